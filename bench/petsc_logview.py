#!/usr/bin/env python3
"""Read PETSc's -log_view summaries and solver output; summarise the tutorial benchmark.

Module (python3 standard library only):
  parse_log_view(text)  the event table (count, time, flop and GPU columns of every event,
                        summed over the stages), the total time, version, process count, options
  parse_reasons(text)   the -ksp_converged_reason / -snes_converged_reason lines of a run
  run_metrics(stdout, log_view, wall_s)  what the benchmark compares of one run
  scaling_metrics(stdout, log_view, wall_s, ranks)  the same for the scaling stage (setup,
                        scatter and halo bytes as well)

Command line:
  petsc_logview.py events FILE [--event NAME ...]     the parsed table as JSON
  petsc_logview.py run --stdout OUT --log-view FILE [--wall S]   one run's metrics as JSON
  petsc_logview.py tutorials --cases CASES.tsv --runs RUNS.tsv --json OUT.json --txt OUT.txt
                   [--meta KEY=VALUE ...]
  petsc_logview.py scaling (the same arguments)
The last two are the summaries of scripts/device-petsc-tutorials.sh and
scripts/device-petsc-scaling.sh (summarize_tutorials, summarize_scaling); they exit with 1 when
a run failed or the two matrix types' iteration counts differ.
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


def _types(types, runs):
    """(Hola's type, the baseline): as given, else from the runs (the first hola* type first)."""
    if types:
        return tuple(types)
    found = []
    for r in runs:
        if r["type"] not in found:
            found.append(r["type"])
    hola = next((t for t in found if t.startswith("hola")), found[0] if found else None)
    return hola, next((t for t in found if t != hola), None)


def _load_run(r, metrics):
    """One line of runs.tsv with its metrics: metrics(stdout, log_view_text, wall_s) for a solver
    run (rc -1 without a -log_view summary, -2 without a converged-reason line), or None for a
    per-call run (its "result:" line)."""
    rc = int(r["rc"])
    wall = None
    if r["start"] and r["end"]:
        wall = round(float(r["end"]) - float(r["start"]), 4)
    stdout = _read(r["stdout"])
    if metrics is None:
        m = _result_line(stdout) or {}
        m["wall_s"] = wall
    else:
        m = metrics(stdout, _read(r["log_view"]), wall)
        if rc == 0 and m["petsc_total_s"] is None:
            rc = -1  # no -log_view summary: the run did not finish properly
        if rc == 0 and not (m["linear_iterations"] or m.get("nonlinear_iterations")):
            rc = -2  # no converged-reason line
    m.update({"repeat": int(r["repeat"]), "rc": rc, "stdout": r["stdout"]})
    # The scripts write the command as the first line of the output.
    m["command"] = (stdout or "").split("\n", 1)[0]
    if metrics is not None:
        m["log_view"] = r["log_view"]
    return m


def _compare_iterations(name, entry, types, out):
    """Sets entry's same_iterations and iterations; False when the runs' counts differ beyond
    ITERATION_TOLERANCE (a failure) or no run finished."""
    hola, base = types
    sigs = [_iteration_signature(m) for t in types for m in entry["runs"][t] if m["rc"] == 0]
    same = all(s == sigs[0] for s in sigs)
    entry["iterations"] = {t: [_iteration_signature(m) for m in entry["runs"][t]] for t in types}
    entry["same_iterations"] = same
    if not sigs:
        return False
    if same:
        return True
    # Another summation order may change a long Krylov run by a few iterations (GMRES on a hard
    # Newton system): within ITERATION_TOLERANCE of the total linear iterations it is reported,
    # with the solve time per iteration; beyond, a failure. The solve time per iteration is
    # given either way: on a solve as sensitive to rounding as SNES ex19's, the wall-time ratio
    # follows the counts more than the product.
    per_it = {}
    for t in types:
        its = [sum(m["linear_iterations"]) for m in entry["runs"][t] if m["rc"] == 0]
        solve = entry["median"].get(t, {}).get("solve_s")
        if its and solve:
            per_it[t] = solve / sorted(its)[len(its) // 2]
    if len(per_it) == 2:
        entry["ratio"]["solve_s_per_iteration"] = _ratio(per_it[hola], per_it[base])
    totals = [sum(s["linear"]) for s in sigs]
    spread = (max(totals) - min(totals)) / max(max(totals), 1)
    entry["iteration_spread"] = round(spread, 4)
    if spread > ITERATION_TOLERANCE:
        out["failures"].append(f"{name}: iteration counts differ")
        out["notes"].append(
            f"{name}: linear iteration counts differ by {100 * spread:.2f} % (beyond "
            f"{100 * ITERATION_TOLERANCE:g} %); solve time per iteration, hola / baseline: "
            f"{_fmt(entry['ratio'].get('solve_s_per_iteration'))}"
        )
        return False
    out["notes"].append(
        f"{name}: linear iteration counts differ by {100 * spread:.2f} % "
        "(summation order); compare the solve time per iteration"
    )
    return True


def _summary_start(meta, types, runs, *tables):
    """The types (Hola's, the baseline) and a summary holding meta, the types, "cases" and the
    named tables (empty dicts), then empty "failures", "notes" and "skipped" lists."""
    hola, base = _types(types, runs)
    out = dict(meta)
    out["types"] = {"hola": hola, "baseline": base}
    out["cases"] = {}
    out.update({name: {} for name in tables})
    out.update({"failures": [], "notes": [], "skipped": []})
    return hola, base, out


def summarize_tutorials(cases, runs, meta, types=None, allow_missing=False):
    """tutorials.json's content from the case and run tables (see CASE_FIELDS, RUN_FIELDS).
    types: (Hola's type, the baseline), else taken from the runs. allow_missing: a case or type
    without runs (not started: time budget) is listed under "skipped", not as a failure."""
    hola, base, out = _summary_start(meta, types, runs, "per_call")
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
                m = _load_run(r, None if case["kind"] == "per_call" else run_metrics)
                if m["rc"] != 0:
                    ok = False
                    out["failures"].append(f"{name} {t} repeat {r['repeat']}: exit {m['rc']}")
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
        if case["kind"] != "per_call" and not _compare_iterations(name, entry, (hola, base), out):
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
        "solve/it ratio",
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
                _fmt(r.get("solve_s_per_iteration")),
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


# ---------------------------------------------------------------------------------------------
# Strong and weak scaling of ex45 (scripts/device-petsc-scaling.sh).

# cases.tsv of the scaling stage: the tutorial columns, then the series (strong, weak, shared),
# the preconditioner and the grid ("NX NY NZ").
SCALING_CASE_FIELDS = CASE_FIELDS + ("series", "solver", "grid")
# Per-run numbers whose medians are kept (all lower is better but iterations and counts).
SCALING_METRICS = (
    "wall_s",
    "petsc_total_s",
    "outside_solve_s",
    "solve_s",
    "solve_s_per_iteration",
    "iterations",
    "matmult_count",
    "matmult_s",
    "setup_s",
    "hola_setup_s",
    "scatter_s",
    "scatter_count",
    "halo_bytes_per_matmult_per_rank",
    "gpus_used",
)
SCALING_TARGETS = {"kspsolve_ratio_max": 0.90, "weak_efficiency_min": 0.85}


def _event_time_sum(events, names):
    """Sum of the events' times: None when none of them is there or one's time is unknown (n/a)."""
    present = [events[n] for n in names if n in events]
    if not present or any(e["time_s"] is None for e in present):
        return None
    return sum(e["time_s"] for e in present)


# -mat_hola_view's line per rank of an MPI matrix on the GPU type: rank, node, the GPU's PCI id.
_RANK_GPU = re.compile(
    r"^\[(\d+)\] Hola \([^)]*\): node (\S+), node-local rank \d+ of \d+: GPU -?\d+ \(PCI ([^)]*)\)"
)


def ranks_on_gpus(text):
    """{rank: "node PCI-id"} from the -mat_hola_view lines of a run's output (the first matrix's
    lines for each rank); empty without them."""
    out = {}
    for line in (text or "").splitlines():
        m = _RANK_GPU.match(line)
        if m and int(m.group(1)) not in out:
            out[int(m.group(1))] = f"{m.group(2)} {m.group(3)}"
    return out


def scaling_metrics(stdout_text, log_view_text, wall_s=None, ranks=1):
    """One scaling run: iterations, KSPSolve time (max over the ranks), the rest of PETSc's
    time, MatMult count and time, setup (KSPSetUp + PCSetUp: PETSc logs them one after the
    other, not nested), HolaSetup (inside the first product, so inside PCSetUp or KSPSolve: not
    added), VecScatterBegin + VecScatterEnd, and the bytes MatMult sent per call and rank (its
    message count times average length, each to PETSc's two printed digits; messages nest, so
    the halo exchange is counted there; approximate).
    Times PETSc prints as n/a (GPU work without -log_view_gpu_time) stay None."""
    m = run_metrics(stdout_text, log_view_text, wall_s)
    log = parse_log_view(log_view_text) if log_view_text else {"events": {}, "stages": {}}
    events = log["events"]
    its = sum(m["linear_iterations"]) if m["linear_iterations"] else None
    solve, total = m["solve_s"], m["petsc_total_s"]
    out = {
        k: m[k]
        for k in (
            "wall_s",
            "petsc_total_s",
            "processes",
            "petsc_version",
            "solve_s",
            "linear_iterations",
            "nonlinear_iterations",
            "reasons",
            "converged",
            "reported_norm",
            "matmult_count",
            "matmult_s",
        )
    }
    out["iterations"] = its
    out["solve_s_per_iteration"] = solve / its if solve is not None and its else None
    out["outside_solve_s"] = total - solve if total is not None and solve is not None else None
    out["setup_s"] = _event_time_sum(events, ("KSPSetUp", "PCSetUp"))
    out["setup_events_s"] = {
        n: events[n]["time_s"] for n in ("KSPSetUp", "PCSetUp", "HolaSetup") if n in events
    }
    out["hola_setup_s"] = events["HolaSetup"]["time_s"] if "HolaSetup" in events else None
    out["scatter_s"] = _event_time_sum(events, ("VecScatterBegin", "VecScatterEnd"))
    out["scatter_count"] = events.get("VecScatterBegin", {}).get("count", 0)
    messages = nbytes = 0.0
    for stage in log["stages"].values():
        e = stage.get("MatMult")
        if e and e.get("messages"):
            messages += e["messages"]
            nbytes += e["messages"] * (e.get("message_length") or 0.0)
    out["matmult_messages"] = messages
    out["matmult_message_bytes"] = nbytes
    count = m["matmult_count"]
    # Approximate: PETSc prints two digits, and the first call's setup messages are included.
    out["halo_bytes_per_matmult_per_rank"] = nbytes / count / ranks if count else None
    # Distinct GPUs the ranks ran on, where Hola's view printed them (None: not printed).
    layout = ranks_on_gpus(stdout_text)
    out["gpus_used"] = len(set(layout.values())) if layout else None
    return out


def _scaling_efficiency(out):
    """Per series (strong, weak) and solver: the GPU counts and, per type, the KSPSolve medians,
    speedup and parallel efficiency against the same series' one-GPU case (strong: T1 / (G TG),
    weak: T1 / TG), also on the time per iteration (weak ex45 needs more iterations as z grows)."""
    types = (out["types"]["hola"], out["types"]["baseline"])
    result = {}
    for series in ("strong", "weak"):
        solvers = sorted({c["solver"] for c in out["cases"].values() if c["series"] == series})
        for solver in solvers:
            cases = sorted(
                (
                    (c["gpus"], name)
                    for name, c in out["cases"].items()
                    if c["series"] == series and c["solver"] == solver
                ),
            )
            d = {"gpus": [g for g, _ in cases], "cases": [n for _, n in cases]}
            for key in (
                "solve_s",
                "iterations",
                "speedup",
                "efficiency",
                "efficiency_per_iteration",
            ):
                d[key] = {t: [] for t in types}
            d["solve_ratio"] = [out["cases"][n]["ratio"].get("solve_s") for _, n in cases]
            one = next((n for g, n in cases if g == 1), None)
            for t in types:
                m1 = out["cases"][one]["median"].get(t, {}) if one else {}
                t1, it1 = m1.get("solve_s"), m1.get("solve_s_per_iteration")
                for g, n in cases:
                    m = out["cases"][n]["median"].get(t, {})
                    tg, itg = m.get("solve_s"), m.get("solve_s_per_iteration")
                    scale = g if series == "strong" else 1
                    eff = round(t1 / (scale * tg), 4) if t1 and tg else None
                    eff_it = round(it1 / (scale * itg), 4) if it1 and itg else None
                    d["solve_s"][t].append(tg)
                    d["iterations"][t].append(m.get("iterations"))
                    d["speedup"][t].append(round(t1 / tg, 4) if t1 and tg else None)
                    d["efficiency"][t].append(eff)
                    d["efficiency_per_iteration"][t].append(eff_it)
                    out["cases"][n].setdefault("efficiency", {})[t] = eff
                    out["cases"][n].setdefault("efficiency_per_iteration", {})[t] = eff_it
            result.setdefault(series, {})[solver] = d
            its = [i for i in d["iterations"][types[0]] if i]
            if series == "weak" and len(its) > 1 and its[-1] > 1.1 * its[0]:
                out["notes"].append(
                    f"weak {solver}: iterations grow from {its[0]:.0f} to {its[-1]:.0f} with the"
                    " GPUs:"
                    " ex45's domain stays the unit cube, so a longer z is a finer grid; the"
                    " efficiency per iteration is the one that measures the products"
                )
    return result


def _shared_gpu(out):
    """Ranks sharing one GPU, per solver: KSPSolve against the strong one-rank case."""
    types = (out["types"]["hola"], out["types"]["baseline"])
    result = {}
    for solver in sorted({c["solver"] for c in out["cases"].values() if c["series"] == "shared"}):
        cases = sorted(
            (c["ranks"], name)
            for name, c in out["cases"].items()
            if c["series"] == "shared" and c["solver"] == solver
        )
        one = next(
            (
                n
                for n, c in out["cases"].items()
                if c["series"] == "strong" and c["solver"] == solver and c["gpus"] == 1
            ),
            None,
        )
        if one:
            cases = [(1, one)] + cases
        d = {"ranks": [r for r, _ in cases], "cases": [n for _, n in cases]}
        d["solve_s"] = {t: [] for t in types}
        d["speedup_vs_one_rank"] = {t: [] for t in types}
        d["solve_ratio"] = [out["cases"][n]["ratio"].get("solve_s") for _, n in cases]
        for t in types:
            t1 = out["cases"][one]["median"].get(t, {}).get("solve_s") if one else None
            for _, n in cases:
                tr = out["cases"][n]["median"].get(t, {}).get("solve_s")
                d["solve_s"][t].append(tr)
                d["speedup_vs_one_rank"][t].append(round(t1 / tr, 4) if t1 and tr else None)
        result[solver] = d
    return result


def _scaling_targets(out):
    hola, base = out["types"]["hola"], out["types"]["baseline"]
    limit = SCALING_TARGETS["kspsolve_ratio_max"]
    ratios = {
        n: c["ratio"].get("solve_s")
        for n, c in out["cases"].items()
        if c["series"] in ("strong", "weak")
    }
    above = sorted(n for n, r in ratios.items() if r is None or r > limit)
    t = [
        {
            "target": f"KSPSolve {hola} / {base} at every G (strong and weak)",
            "max": limit,
            "ratios": ratios,
            "met": bool(ratios) and not above,
            "not_met_in": above,
        }
    ]
    floor = SCALING_TARGETS["weak_efficiency_min"]
    for solver, d in sorted(out["scaling"].get("weak", {}).items()):
        if not d["gpus"] or max(d["gpus"]) < 2:
            continue
        i = d["gpus"].index(max(d["gpus"]))
        eh, eb = d["efficiency"][hola][i], d["efficiency"][base][i]
        t.append(
            {
                "target": f"weak {solver}: efficiency at G={d['gpus'][i]} >= {base}'s and"
                f" >= {floor}",
                "min": floor,
                "gpus": d["gpus"][i],
                "efficiency": {hola: eh, base: eb},
                "efficiency_per_iteration": {
                    hola: d["efficiency_per_iteration"][hola][i],
                    base: d["efficiency_per_iteration"][base][i],
                },
                "met": eh is not None and eb is not None and eh >= eb and eh >= floor,
            }
        )
    differ = sorted(n for n, c in out["cases"].items() if c.get("same_iterations") is False)
    unknown = sorted(n for n, c in out["cases"].items() if c.get("same_iterations") is None)
    t.append(
        {
            "target": "same iterations with both types (every case)",
            "met": bool(out["cases"]) and not differ and not unknown,
            "not_met_in": differ,
            "not_compared": unknown,
        }
    )
    return t


def summarize_scaling(cases, runs, meta, types=None, allow_missing=False):
    """scaling.json's content from the case table (SCALING_CASE_FIELDS) and the run table
    (RUN_FIELDS): per case every run and the medians over the repeats, ratios Hola / baseline,
    same iterations or not; per series and solver the parallel efficiency; ranks sharing a GPU;
    the targets (reported, not enforced). allow_missing as in summarize_tutorials."""
    hola, base, out = _summary_start(meta, types, runs)
    for case in cases:
        name = case["case"]
        mine = [r for r in runs if r["case"] == name]
        ranks = int(case["ranks"] or 1)
        entry = {
            "series": case["series"],
            "solver": case["solver"],
            "grid": [int(x) for x in case["grid"].split()],
            "ranks": ranks,
            "gpus": int(case["gpus"] or 1),
            "description": case["description"],
            "command": case["command"],
            "runs": {},
            "median": {},
        }
        ok = bool(mine)

        def metrics(stdout, view, wall):
            return scaling_metrics(stdout, view, wall, ranks)

        for t in (hola, base):
            entry["runs"][t] = []
            for r in sorted((r for r in mine if r["type"] == t), key=lambda r: int(r["repeat"])):
                m = _load_run(r, metrics)
                if m["rc"] != 0:
                    ok = False
                    out["failures"].append(f"{name} {t} repeat {r['repeat']}: exit {m['rc']}")
                entry["runs"][t].append(m)
            good = [m for m in entry["runs"][t] if m["rc"] == 0]
            entry["median"][t] = {k: _median([m.get(k) for m in good]) for k in SCALING_METRICS}
            if not entry["runs"][t]:
                ok = False
                (out["skipped"] if allow_missing else out["failures"]).append(
                    f"{name} {t}: no runs"
                )
        mh, mb = entry["median"][hola], entry["median"][base]
        entry["ratio"] = {
            k: _ratio(mh.get(k), mb.get(k))
            for k in SCALING_METRICS
            if k not in ("iterations", "matmult_count", "scatter_count", "gpus_used")
        }
        used = [
            m["gpus_used"] for t in (hola, base) for m in entry["runs"][t] if m.get("gpus_used")
        ]
        if used and min(used) < entry["gpus"]:
            out["notes"].append(
                f"{name}: the ranks ran on {min(used)} distinct GPU(s), not {entry['gpus']}"
                " (-mat_hola_view): a wrong rank-to-GPU mapping"
            )
        if not _compare_iterations(name, entry, (hola, base), out):
            ok = False
        if not all(any(m["rc"] == 0 for m in entry["runs"][t]) for t in (hola, base)):
            entry["same_iterations"] = None  # not compared: a type has no finished run
        entry["ok"] = ok
        out["cases"][name] = entry
    out["scaling"] = _scaling_efficiency(out)
    out["shared"] = _shared_gpu(out)
    out["targets"] = _scaling_targets(out)
    out["ok"] = not out["failures"]
    return out


def _pct(v):
    return "-" if v is None else f"{100 * v:.0f} %"


def format_scaling(out):
    """The readable tables of scaling.json."""
    hola, base = out["types"]["hola"], out["types"]["baseline"]
    lines = [
        f"PETSc ex45 scaling: {hola} / {base}, median of {out.get('repeats', '?')} runs each"
        f" (commit {str(out.get('commit', '?'))[:12]}, {out.get('device', '?')},"
        f" {out.get('gpus_present', '?')} GPU(s) present, PETSc {out.get('petsc', '?')})",
        f"MPI: {out.get('mpi', '?')}, CUDA support {out.get('mpi_cuda_support', '?')};"
        f" -use_gpu_aware_mpi {out.get('gpu_aware_mpi', '?')}"
        f" ({out.get('gpu_aware_mpi_from', '?')})",
        "KSPSolve: max over the ranks, s; ratio = hola / baseline; efficiency on KSPSolve"
        " (strong: T1 / (G TG), weak: T1 / TG), per iteration in brackets",
        "",
    ]
    header = [
        "case",
        "G",
        "ranks",
        "grid",
        "iterations",
        "KSPSolve hola",
        "base",
        "ratio",
        "eff hola",
        "eff base",
        "wall hola",
        "base",
        "ratio",
        "ok",
    ]
    rows = []
    for name, c in out["cases"].items():
        mh, mb, r = c["median"][hola], c["median"][base], c["ratio"]
        its = mh.get("iterations") if mh.get("iterations") is not None else mb.get("iterations")
        eff, eff_it = c.get("efficiency", {}), c.get("efficiency_per_iteration", {})
        rows.append(
            [
                name,
                c["gpus"],
                c["ranks"],
                "x".join(str(g) for g in c["grid"]),
                ("-" if its is None else f"{its:.0f}")
                + {True: "", False: " DIFFER", None: " ?"}[c.get("same_iterations")],
                _fmt(mh.get("solve_s")),
                _fmt(mb.get("solve_s")),
                _fmt(r.get("solve_s")),
                f"{_pct(eff.get(hola))} ({_pct(eff_it.get(hola))})" if eff else "",
                f"{_pct(eff.get(base))} ({_pct(eff_it.get(base))})" if eff else "",
                _fmt(mh.get("wall_s")),
                _fmt(mb.get("wall_s")),
                _fmt(r.get("wall_s")),
                "yes" if c["ok"] else "NO",
            ]
        )
    lines += _table(header, rows)
    lines += [
        "",
        "products, setup and communication (medians, hola / base; '-': PETSc prints n/a for"
        " events with GPU work without -log_view_gpu_time); setup = KSPSetUp + PCSetUp;"
        " outside = PETSc total - KSPSolve; halo = bytes MatMult sends per call and rank; GPUs"
        " used: distinct PCI ids in -mat_hola_view's rank lines:",
    ]
    rows = []
    for name, c in out["cases"].items():
        mh, mb = c["median"][hola], c["median"][base]

        def pair(key, mh=mh, mb=mb):
            return f"{_fmt(mh.get(key))} / {_fmt(mb.get(key))}"

        halo = mh.get("halo_bytes_per_matmult_per_rank")
        rows.append(
            [
                name,
                _fmt(mh.get("matmult_count")),
                pair("matmult_s"),
                pair("setup_s"),
                _fmt(mh.get("hola_setup_s")),
                pair("scatter_s"),
                _fmt(mh.get("scatter_count")),
                "-" if halo is None else f"{halo / 1024:.1f} KiB",
                _fmt(mh.get("gpus_used")),
                pair("outside_solve_s"),
            ]
        )
    lines += _table(
        [
            "case",
            "MatMults",
            "MatMult s",
            "setup s",
            "HolaSetup s",
            "scatter s",
            "scatters",
            "halo",
            "GPUs used",
            "outside s",
        ],
        rows,
    )
    if out.get("shared"):
        lines += ["", "ranks sharing one GPU (KSPSolve s; speedup against one rank):"]
        rows = []
        for solver, d in out["shared"].items():
            for i, ranks in enumerate(d["ranks"]):
                rows.append(
                    [
                        solver,
                        ranks,
                        d["cases"][i],
                        _fmt(d["solve_s"][hola][i]),
                        _fmt(d["solve_s"][base][i]),
                        _fmt(d["solve_ratio"][i]),
                        _fmt(d["speedup_vs_one_rank"][hola][i]),
                        _fmt(d["speedup_vs_one_rank"][base][i]),
                    ]
                )
        lines += _table(
            ["solver", "ranks", "case", "hola", "base", "ratio", "speedup hola", "speedup base"],
            rows,
        )
    lines += ["", "targets (reported, not enforced):"]
    for t in out["targets"]:
        met = "met" if t["met"] else "NOT met"
        if "ratios" in t:
            detail = "not met in " + ", ".join(t["not_met_in"]) if t["not_met_in"] else "all"
            lines.append(f"  {t['target']} <= {t['max']}: {met} ({detail})")
        elif "efficiency" in t:
            e, ei = t["efficiency"], t["efficiency_per_iteration"]
            lines.append(
                f"  {t['target']}: {met} ({hola} {_pct(e[hola])}, {base} {_pct(e[base])};"
                f" per iteration {_pct(ei[hola])}, {_pct(ei[base])})"
            )
        else:
            detail = [", ".join(t["not_met_in"]) + " differ"] if t["not_met_in"] else []
            if t.get("not_compared"):
                detail.append(
                    ", ".join(t["not_compared"]) + " not compared (a type has no finished run)"
                )
            lines.append(f"  {t['target']}: {met} ({'; '.join(detail) or 'all'})")
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
    for name, fields, script in (
        ("tutorials", CASE_FIELDS, "device-petsc-tutorials.sh"),
        ("scaling", SCALING_CASE_FIELDS, "device-petsc-scaling.sh"),
    ):
        p = sub.add_parser(name, help=f"summary of scripts/{script}")
        p.add_argument("--cases", required=True, help="TSV: " + " ".join(fields))
        p.add_argument("--runs", required=True, help="TSV: " + " ".join(RUN_FIELDS))
        p.add_argument("--json", required=True)
        p.add_argument("--txt", required=True)
        p.add_argument("--meta", action="append", default=[], help="KEY=VALUE recorded as is")
        p.add_argument(
            "--types", nargs=2, metavar=("HOLA", "BASELINE"), help="default: from the runs"
        )
        p.add_argument(
            "--allow-missing",
            action="store_true",
            help="cases without runs are skipped, not failed",
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
    summarize, fields, fmt = (
        (summarize_scaling, SCALING_CASE_FIELDS, format_scaling)
        if args.command == "scaling"
        else (summarize_tutorials, CASE_FIELDS, format_tutorials)
    )
    out = summarize(
        _read_tsv(args.cases, fields),
        _read_tsv(args.runs, RUN_FIELDS),
        meta,
        args.types,
        args.allow_missing,
    )
    with open(args.json, "w") as f:
        json.dump(out, f, indent=2)
    text = fmt(out)
    with open(args.txt, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
