#!/usr/bin/env python3
"""Read PETSc's -log_view summaries and solver output; summarise the tutorial benchmark.

Module (python3 standard library only):
  parse_log_view(text)  the event table (count, time, flop and GPU columns of every event,
                        summed over the stages), the total time, version, process count, options
  parse_reasons(text)   the -ksp_converged_reason / -snes_converged_reason lines of a run
  run_metrics(stdout, log_view, wall_s)  what the benchmark compares of one run

Command line:
  petsc_logview.py events FILE [--event NAME ...]     the parsed table as JSON
  petsc_logview.py run --stdout OUT --log-view FILE [--wall S]   one run's metrics as JSON
  petsc_logview.py tutorials --cases CASES.tsv --runs RUNS.tsv --json OUT.json --txt OUT.txt
                   [--meta KEY=VALUE ...]
The last one is the summary of scripts/device-petsc-tutorials.sh; it exits with 1 when a run
failed or the two matrix types' iteration counts differ.
"""

import argparse
import json
import re
import statistics
import sys

# The events of one run that the benchmark reports; "Hola*" events are added as they appear.
SOLVE_EVENTS = ("SNESSolve", "KSPSolve")
PRODUCT_EVENTS = ("MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd")
SETUP_EVENTS = ("KSPSetUp", "PCSetUp", "MatAssemblyEnd", "DMCreateMat", "SNESJacobianEval")

_NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)"
# name, count (max), count ratio, time (max), time ratio, flop (max), flop ratio, the rest.
_EVENT = re.compile(
    r"^(?P<name>\S.*?)\s+(?P<count>\d+)\s+(?P<count_ratio>%s)\s+(?P<time>%s|n/a)"
    r"\s+(?P<time_ratio>%s|n/a)\s+(?P<flop>%s)\s+(?P<flop_ratio>%s)\s+(?P<rest>.*)$"
    % ((_NUM,) * 5)
)
# The columns after the flop ratio, in the order PETSc prints them; the GPU ones only where
# PETSc was built with a device.
_REST = (
    "messages",
    "message_length",
    "reductions",
    "global_pct_time",
    "global_pct_flop",
    "global_pct_messages",
    "global_pct_length",
    "global_pct_reductions",
    "stage_pct_time",
    "stage_pct_flop",
    "stage_pct_messages",
    "stage_pct_length",
    "stage_pct_reductions",
    "mflops",
    "gpu_mflops",
    "cpu_to_gpu_count",
    "cpu_to_gpu_mbytes",
    "gpu_to_cpu_count",
    "gpu_to_cpu_mbytes",
    "gpu_pct_flop",
)
_REASON = re.compile(
    r"^\s*(?P<kind>Linear|Nonlinear)\s+(?:(?P<prefix>\S+)\s+)?solve\s+"
    r"(?P<outcome>converged|did not converge)\s+due to\s+(?P<reason>\S+)"
    r"\s+iterations\s+(?P<its>\d+)"
)


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def parse_log_view(text):
    """The -log_view summary in text: {"version", "processes", "total_time_s", "events",
    "stages", "options"}. events[name] holds count, time_s (both the maximum over the ranks),
    their max/min ratios, flop and, where printed, the GPU columns, summed over the stages;
    stages[stage][name] the same per stage."""
    out = {
        "version": None,
        "processes": None,
        "total_time_s": None,
        "events": {},
        "stages": {},
        "options": [],
    }
    stage = None
    in_options = False
    for line in text.splitlines():
        m = re.search(r"Using PETSc Release Version (\S+?),", line, re.IGNORECASE)
        if m:
            out["version"] = m.group(1)
        m = re.search(r" with (\d+) (?:MPI )?process", line)
        if m and out["processes"] is None:
            out["processes"] = int(m.group(1))
        if line.startswith("Time (sec):") and out["total_time_s"] is None:
            out["total_time_s"] = _number(line.split()[2])
        if line.startswith("#PETSc Option Table entries"):
            in_options = True
            continue
        if line.startswith("#End of PETSc Option Table"):
            in_options = False
            continue
        if in_options:
            out["options"].append(line.split(" # ")[0].strip())
            continue
        m = re.match(r"^--- Event Stage \d+: (.*)$", line)
        if m:
            stage = m.group(1).strip()
            out["stages"].setdefault(stage, {})
            continue
        if stage is None:
            continue
        if line.startswith("----") or line.startswith("===="):
            # The table ends with a rule (the object table that follows has its own stages).
            if out["stages"].get(stage):
                stage = None
            continue
        m = _EVENT.match(line)
        if not m:
            continue
        event = {
            "count": int(m.group("count")),
            "count_ratio": _number(m.group("count_ratio")),
            "time_s": _number(m.group("time")),
            "time_ratio": _number(m.group("time_ratio")),
            "flop": _number(m.group("flop")),
            "flop_ratio": _number(m.group("flop_ratio")),
        }
        for key, value in zip(_REST, m.group("rest").split()):
            event[key] = _number(value)
        out["stages"][stage][m.group("name").strip()] = event
    for events in out["stages"].values():
        for name, e in events.items():
            total = out["events"].setdefault(name, {"count": 0, "time_s": None, "flop": 0.0})
            total["count"] += e["count"]
            # PETSc prints n/a for the time of events inside GPU work unless -log_view_gpu_time
            # is on: unknown stays None rather than becoming 0.
            if e["time_s"] is not None:
                total["time_s"] = (total["time_s"] or 0.0) + e["time_s"]
            total["flop"] += e["flop"] or 0.0
            for key in (
                "cpu_to_gpu_count",
                "cpu_to_gpu_mbytes",
                "gpu_to_cpu_count",
                "gpu_to_cpu_mbytes",
            ):
                if e.get(key) is not None:
                    total[key] = total.get(key, 0.0) + e[key]
            for key in ("count_ratio", "time_ratio"):
                if e.get(key) is not None:
                    total[key] = max(total.get(key, 0.0), e[key])
    return out


def parse_reasons(text):
    """The converged-reason lines of a run's output: {"linear": [...], "nonlinear": [...]},
    each {"prefix", "converged", "reason", "iterations"} in the order printed."""
    out = {"linear": [], "nonlinear": []}
    for line in text.splitlines():
        m = _REASON.match(line)
        if not m:
            continue
        kind = "linear" if m.group("kind") == "Linear" else "nonlinear"
        out[kind].append(
            {
                "prefix": m.group("prefix") or "",
                "converged": m.group("outcome") == "converged",
                "reason": m.group("reason"),
                "iterations": int(m.group("its")),
            }
        )
    return out


def _reported_norm(text):
    """The norm a tutorial prints at its end (ex45: "Residual norm", ex2: "Norm of error")."""
    value = None
    for line in text.splitlines():
        m = re.search(r"(?:Residual norm|Norm of error)\s+(%s)" % _NUM, line)
        if m:
            value = _number(m.group(1))
    return value


def run_metrics(stdout_text, log_view_text, wall_s=None):
    """What the benchmark compares of one run: wall time (given), PETSc's total time, the solve
    event, the products (count, time, microseconds per call), the setup events, iterations."""
    log = parse_log_view(log_view_text) if log_view_text else {"events": {}}
    events = log["events"]
    reasons = parse_reasons(stdout_text or "")
    out = {
        "wall_s": wall_s,
        "petsc_total_s": log.get("total_time_s"),
        "processes": log.get("processes"),
        "petsc_version": log.get("version"),
        "solve_event": None,
        "solve_s": None,
        "linear_iterations": [r["iterations"] for r in reasons["linear"] if not r["prefix"]],
        "nonlinear_iterations": [r["iterations"] for r in reasons["nonlinear"] if not r["prefix"]],
        "reasons": [r["reason"] for r in reasons["nonlinear"] + reasons["linear"]],
        "converged": all(r["converged"] for r in reasons["nonlinear"] + reasons["linear"]),
        "reported_norm": _reported_norm(stdout_text or ""),
        "setup_s": {},
    }
    for name in SOLVE_EVENTS:
        if name in events:
            out["solve_event"] = name
            out["solve_s"] = events[name]["time_s"]
            break
    for name in PRODUCT_EVENTS:
        key = name.lower()
        e = events.get(name)
        count = e["count"] if e else 0
        seconds = e["time_s"] if e else 0.0
        out[key + "_count"] = count
        out[key + "_s"] = seconds
        out[key + "_us_per_call"] = (
            1e6 * seconds / count if count and seconds is not None else None
        )
    for name in list(SETUP_EVENTS) + sorted(n for n in events if n.startswith("Hola")):
        if name in events:
            out["setup_s"][name] = events[name]["time_s"]
    return out


# ---------------------------------------------------------------------------------------------
# The tutorial benchmark (scripts/device-petsc-tutorials.sh).

# Per-run numbers whose medians and ratios are reported (lower is better for all).
TUTORIAL_METRICS = (
    "wall_s",
    "petsc_total_s",
    "solve_s",
    "matmult_s",
    "matmult_us_per_call",
    "matmulttranspose_s",
    "matmulttranspose_us_per_call",
    "matmultadd_s",
)
PER_CALL_METRICS = (
    "first_matmult_s",
    "matmult_us",
    "matmultadd_us",
    "matmulttranspose_us",
    "matmulttransposeadd_us",
)
# Largest relative spread of the total linear iterations between runs that is reported as a
# rounding effect rather than a failure.
ITERATION_TOLERANCE = 0.02

TARGETS = {
    "wall_ratio_max": 1.0,
    "ex45_cg_jacobi_kspsolve_ratio_max": 0.90,
    "matmult_per_call_ratio_max": 0.75,
}


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except (OSError, TypeError):
        return None


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _ratio(a, b):
    return round(a / b, 4) if a is not None and b else None


def _read_tsv(path, fields):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            parts += [""] * (len(fields) - len(parts))
            rows.append(dict(zip(fields, parts)))
    return rows


CASE_FIELDS = ("case", "kind", "ranks", "gpus", "description", "command")
RUN_FIELDS = ("case", "type", "repeat", "rc", "start", "end", "stdout", "log_view")


def _result_line(text):
    for line in (text or "").splitlines():
        if line.startswith("result: "):
            try:
                return json.loads(line[len("result: ") :])
            except ValueError:
                return None
    return None


def _iteration_signature(m):
    return {"linear": m["linear_iterations"], "nonlinear": m["nonlinear_iterations"]}


def summarize_tutorials(cases, runs, meta, types=None, allow_missing=False):
    """tutorials.json's content from the case and run tables (see CASE_FIELDS, RUN_FIELDS).
    types: (Hola's type, the baseline), else taken from the runs. allow_missing: a case or type
    without runs (not started: time budget) is listed under "skipped", not as a failure."""
    if not types:
        types = []
        for r in runs:
            if r["type"] not in types:
                types.append(r["type"])
        hola = next((t for t in types if t.startswith("hola")), types[0] if types else None)
        types = [hola, next((t for t in types if t != hola), None)]
    hola, base = types
    out = dict(meta)
    out.update(
        {
            "types": {"hola": hola, "baseline": base},
            "cases": {},
            "per_call": {},
            "failures": [],
            "notes": [],
            "skipped": [],
        }
    )
    for case in cases:
        name = case["case"]
        mine = [r for r in runs if r["case"] == name]
        entry = {
            "kind": case["kind"],
            "description": case["description"],
            "command": case["command"],
            "ranks": int(case["ranks"] or 1),
            "gpus": case["gpus"],
            "runs": {},
            "median": {},
        }
        ok = bool(mine)
        for t in (hola, base):
            entry["runs"][t] = []
            for r in sorted((r for r in mine if r["type"] == t), key=lambda r: int(r["repeat"])):
                rc = int(r["rc"])
                wall = None
                if r["start"] and r["end"]:
                    wall = round(float(r["end"]) - float(r["start"]), 4)
                stdout = _read(r["stdout"])
                if case["kind"] == "per_call":
                    m = _result_line(stdout) or {}
                    m["wall_s"] = wall
                else:
                    m = run_metrics(stdout, _read(r["log_view"]), wall)
                    if rc == 0 and m["petsc_total_s"] is None:
                        rc = -1  # no -log_view summary: the run did not finish properly
                    if rc == 0 and not (m["linear_iterations"] or m["nonlinear_iterations"]):
                        rc = -2  # no converged-reason line
                m.update({"repeat": int(r["repeat"]), "rc": rc, "stdout": r["stdout"]})
                # The scripts write the command as the first line of the output.
                m["command"] = (stdout or "").split("\n", 1)[0]
                if case["kind"] != "per_call":
                    m["log_view"] = r["log_view"]
                if rc != 0:
                    ok = False
                    out["failures"].append(f"{name} {t} repeat {r['repeat']}: exit {rc}")
                entry["runs"][t].append(m)
            metrics = PER_CALL_METRICS if case["kind"] == "per_call" else TUTORIAL_METRICS
            good = [m for m in entry["runs"][t] if m["rc"] == 0]
            med = {k: _median([m.get(k) for m in good]) for k in metrics + ("wall_s",)}
            if case["kind"] != "per_call":
                setup = sorted({k for m in good for k in m["setup_s"]})
                med["setup_s"] = {k: _median([m["setup_s"].get(k) for m in good]) for k in setup}
            entry["median"][t] = med
            if not entry["runs"][t]:
                ok = False
                (out["skipped"] if allow_missing else out["failures"]).append(
                    f"{name} {t}: no runs"
                )
        mh, mb = entry["median"].get(hola, {}), entry["median"].get(base, {})
        entry["ratio"] = {k: _ratio(mh.get(k), mb.get(k)) for k in mh if k != "setup_s"}
        if "setup_s" in mh:
            entry["ratio"]["setup_s"] = {
                k: _ratio(mh["setup_s"].get(k), mb.get("setup_s", {}).get(k))
                for k in mh["setup_s"]
            }
        if case["kind"] != "per_call":
            sigs = [
                _iteration_signature(m)
                for t in (hola, base)
                for m in entry["runs"][t]
                if m["rc"] == 0
            ]
            same = all(s == sigs[0] for s in sigs)
            entry["iterations"] = {
                t: [_iteration_signature(m) for m in entry["runs"][t]] for t in (hola, base)
            }
            entry["same_iterations"] = same
            if not same:
                # Another summation order may change a long Krylov run by a few iterations
                # (GMRES on a hard Newton system): within ITERATION_TOLERANCE of the total linear
                # iterations it is reported, with the solve time per iteration; beyond, a failure.
                totals = [sum(s["linear"]) for s in sigs]
                spread = (max(totals) - min(totals)) / max(max(totals), 1)
                entry["iteration_spread"] = round(spread, 4)
                if spread <= ITERATION_TOLERANCE:
                    out["notes"].append(
                        f"{name}: linear iteration counts differ by {100 * spread:.2f} % "
                        "(summation order); compare the solve time per iteration"
                    )
                    per_it = {}
                    for t in (hola, base):
                        its = [
                            sum(m["linear_iterations"]) for m in entry["runs"][t] if m["rc"] == 0
                        ]
                        solve = entry["median"].get(t, {}).get("solve_s")
                        if its and solve:
                            per_it[t] = solve / sorted(its)[len(its) // 2]
                    if len(per_it) == 2:
                        entry["ratio"]["solve_s_per_iteration"] = _ratio(
                            per_it[hola], per_it[base]
                        )
                else:
                    ok = False
                    out["failures"].append(f"{name}: iteration counts differ")
            elif not sigs:
                ok = False
        entry["ok"] = ok
        if case["kind"] == "per_call":
            out["per_call"][name] = entry
        else:
            out["cases"][name] = entry
    out["targets"] = _targets(out)
    out["ok"] = not out["failures"]
    return out


def _targets(out):
    t = []
    walls = {n: c["ratio"].get("wall_s") for n, c in out["cases"].items()}
    slower = sorted(n for n, r in walls.items() if r is None or r > TARGETS["wall_ratio_max"])
    t.append(
        {
            "target": "wall time never above the baseline's (every case)",
            "max": TARGETS["wall_ratio_max"],
            "ratios": walls,
            "met": bool(walls) and not slower,
            "not_met_in": slower,
        }
    )
    cg = out["cases"].get("ex45_cg_jacobi", {}).get("ratio", {})
    r = cg.get("solve_s")
    t.append(
        {
            "target": "ex45 CG + Jacobi KSPSolve time",
            "max": TARGETS["ex45_cg_jacobi_kspsolve_ratio_max"],
            "ratio": r,
            "met": r is not None and r <= TARGETS["ex45_cg_jacobi_kspsolve_ratio_max"],
        }
    )
    # MatMult per call: the per-call program (wall clock over back-to-back calls, synchronised),
    # and the MatMult event of ex45 CG + Jacobi (host time of the calls: no -log_view_gpu_time).
    for name, c in sorted(out["per_call"].items()):
        r = c["ratio"].get("matmult_us")
        t.append(
            {
                "target": f"MatMult per call, petsc_matmult_calls {name}",
                "max": TARGETS["matmult_per_call_ratio_max"],
                "ratio": r,
                "met": r is not None and r <= TARGETS["matmult_per_call_ratio_max"],
            }
        )
    r = cg.get("matmult_us_per_call")
    if r is not None:
        t.append(
            {
                "target": "MatMult per call, ex45 CG + Jacobi MatMult event (launch side)",
                "max": TARGETS["matmult_per_call_ratio_max"],
                "ratio": r,
                "met": r <= TARGETS["matmult_per_call_ratio_max"],
            }
        )
    return t


def _fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 100:
            return f"{v:.0f}"
        return f"{v:.{digits}g}"
    return str(v)


def _table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
    return lines


def _its_text(c, types):
    """The iteration counts of the first run that finished (Hola's type first)."""
    good = [m for t in types for m in c["runs"].get(t, []) if m["rc"] == 0]
    s = _iteration_signature(good[0]) if good else {}
    lin, non = s.get("linear", []), s.get("nonlinear", [])
    text = f"{non[0]} Newton, {sum(lin)} lin" if non else "+".join(str(i) for i in lin) or "?"
    return text + ("" if c["same_iterations"] else " DIFFER")


def format_tutorials(out):
    """The readable table of tutorials.json."""
    hola, base = out["types"]["hola"], out["types"]["baseline"]
    lines = [
        f"PETSc tutorials: {hola} / {base}, median of {out.get('repeats', '?')} runs each"
        f" (commit {str(out.get('commit', '?'))[:12]}, {out.get('device', '?')},"
        f" PETSc {out.get('petsc', '?')})",
        "times in s; MatMult, MatMultT: microseconds per call from the -log_view events (host side"
        " of the calls without -log_view_gpu_time); ratio = hola / baseline",
        "",
    ]
    header = [
        "case",
        "ranks",
        "iterations",
        "wall hola",
        "wall base",
        "ratio",
        "solve hola",
        "solve base",
        "ratio",
        "MatMult ratio",
        "MatMultT ratio",
        "ok",
    ]
    rows = []
    for name, c in out["cases"].items():
        mh, mb, r = c["median"].get(hola, {}), c["median"].get(base, {}), c["ratio"]
        rows.append(
            [
                name,
                c["ranks"],
                _its_text(c, (hola, base)),
                _fmt(mh.get("wall_s")),
                _fmt(mb.get("wall_s")),
                _fmt(r.get("wall_s")),
                _fmt(mh.get("solve_s")),
                _fmt(mb.get("solve_s")),
                _fmt(r.get("solve_s")),
                _fmt(r.get("matmult_us_per_call")),
                _fmt(r.get("matmulttranspose_us_per_call")),
                "yes" if c["ok"] else "NO",
            ]
        )
    lines += _table(header, rows)
    setup_rows = []
    for name, c in out["cases"].items():
        mh, mb = c["median"].get(hola, {}), c["median"].get(base, {})
        for ev in mh.get("setup_s", {}):
            setup_rows.append(
                [
                    name,
                    ev,
                    _fmt(mh["setup_s"].get(ev)),
                    _fmt(mb.get("setup_s", {}).get(ev)),
                    _fmt(c["ratio"].get("setup_s", {}).get(ev)),
                ]
            )
    if setup_rows:
        lines += ["", "setup events (s, median):"]
        lines += _table(["case", "event", "hola", "base", "ratio"], setup_rows)
    if out["per_call"]:
        lines += [
            "",
            "petsc_matmult_calls (microseconds per call over back-to-back calls, one"
            " synchronisation after the loop; first MatMult in ms, setup included):",
        ]
        rows = []
        for name, c in out["per_call"].items():
            mh, mb, r = c["median"].get(hola, {}), c["median"].get(base, {}), c["ratio"]
            runs = c["runs"].get(hola) or [{}]
            rows_n = runs[0].get("rows", "?")
            for key, label in (
                ("matmult_us", "MatMult"),
                ("matmultadd_us", "MatMultAdd"),
                ("matmulttranspose_us", "MatMultTranspose"),
                ("matmulttransposeadd_us", "MatMultTransposeAdd"),
                ("first_matmult_s", "first MatMult (ms)"),
            ):
                scale = 1e3 if key == "first_matmult_s" else 1.0
                h = mh.get(key) * scale if mh.get(key) is not None else None
                b = mb.get(key) * scale if mb.get(key) is not None else None
                rows.append([name, rows_n, label, _fmt(h), _fmt(b), _fmt(r.get(key))])
        lines += _table(["size", "rows", "product", "hola", "base", "ratio"], rows)
    lines += ["", "targets (reported, not enforced):"]
    for t in out["targets"]:
        if "ratios" in t:
            detail = "not met in " + ", ".join(t["not_met_in"]) if t["not_met_in"] else "all cases"
        else:
            detail = f"ratio {_fmt(t['ratio'])}"
        met = "met" if t["met"] else "NOT met"
        lines.append(f"  {t['target']} <= {t['max']}: {met} ({detail})")
    if out.get("notes"):
        lines += ["", "NOTES:"] + ["  " + n for n in out["notes"]]
    if out["failures"]:
        lines += ["", "FAILURES:"] + ["  " + f for f in out["failures"]]
    if out["skipped"]:
        lines += ["", "NOT RUN (time budget):"] + ["  " + f for f in out["skipped"]]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("events", help="the parsed -log_view summary of FILE as JSON")
    p.add_argument("file")
    p.add_argument("--event", action="append", help="only these events (repeatable)")
    p = sub.add_parser("run", help="one run's metrics as JSON")
    p.add_argument("--stdout", required=True, help="the program's output")
    p.add_argument("--log-view", help="its -log_view file (when not in the output)")
    p.add_argument("--wall", type=float, help="wall time of the process in seconds")
    p = sub.add_parser("tutorials", help="summary of scripts/device-petsc-tutorials.sh")
    p.add_argument("--cases", required=True, help="TSV: " + " ".join(CASE_FIELDS))
    p.add_argument("--runs", required=True, help="TSV: " + " ".join(RUN_FIELDS))
    p.add_argument("--json", required=True)
    p.add_argument("--txt", required=True)
    p.add_argument("--meta", action="append", default=[], help="KEY=VALUE recorded as is")
    p.add_argument("--types", nargs=2, metavar=("HOLA", "BASELINE"), help="default: from the runs")
    p.add_argument(
        "--allow-missing", action="store_true", help="cases without runs are skipped, not failed"
    )
    args = ap.parse_args(argv)

    if args.command == "events":
        log = parse_log_view(_read(args.file) or "")
        if args.event:
            log["events"] = {k: v for k, v in log["events"].items() if k in args.event}
            log.pop("stages")
        json.dump(log, sys.stdout, indent=2)
        print()
        return 0
    if args.command == "run":
        stdout = _read(args.stdout) or ""
        log_text = _read(args.log_view) if args.log_view else stdout
        json.dump(run_metrics(stdout, log_text, args.wall), sys.stdout, indent=2)
        print()
        return 0
    meta = {}
    for kv in args.meta:
        key, _, value = kv.partition("=")
        meta[key] = int(value) if value.isdigit() else value
    out = summarize_tutorials(
        _read_tsv(args.cases, CASE_FIELDS),
        _read_tsv(args.runs, RUN_FIELDS),
        meta,
        args.types,
        args.allow_missing,
    )
    with open(args.json, "w") as f:
        json.dump(out, f, indent=2)
    text = format_tutorials(out)
    with open(args.txt, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
