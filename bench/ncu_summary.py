#!/usr/bin/env python3
"""Table of the Nsight Compute counters that scripts/device-profile.sh collects.

Usage: python3 bench/ncu_summary.py ncu.csv[.gz] [--bench-json-dir DIR] [--json OUT] [--meta K=V ...]

ncu.csv holds, per profiled hola-bench run, a line "== SPEC PRECISION KERNEL OP" followed by
ncu's CSV (one row per kernel launch and metric) and whatever the program printed. Each run
profiles every launch: setup, the warm-up product and the timed product. The product is the
sequence of launches that repeats at the end of the run (the warm-up's last launches equal the
timed product's); its launches are summed (time, bytes, sectors) or averaged weighted by time
(throughput and occupancy percentages). With --bench-json-dir, hola-bench's JSON of the run
(profile-<spec>-<precision>-<kernel>-<op>.json, written under ncu) gives the matrix size, so the
DRAM bytes can be set against the floor's bytes (matrix, x and y read or written once), and
auto's pick (its "chose ..." note). A header with a fifth word, "== SPEC PRECISION KERNEL OP auto",
marks a run of the kernel that auto chose in a plain run beforehand (under ncu auto's check at
its first products times ncu's replays, not the kernels): it is reported as auto->KERNEL.
"""
import argparse
import csv
import gzip
import io
import json
import os
import re
import sys

SUMMED = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "lts__t_sectors_op_red.sum",
          "lts__t_sectors_op_atom.sum", "smsp__inst_executed.sum")
TIME_WEIGHTED = ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
                 "lts__throughput.avg.pct_of_peak_sustained_elapsed",
                 "lts__t_sector_hit_rate.pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                 "sm__warps_active.avg.pct_of_peak_sustained_active",
                 "sm__maximum_warps_per_active_cycle_pct")
TIME = "gpu__time_duration.sum"


def number(text):
    text = text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def to_base_unit(value, unit):
    """ncu picks units per value (byte / Kbyte / Mbyte, nsecond / usecond / msecond)."""
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "ns": 1e-3, "nsecond": 1e-3,
             "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}
    return value * scale.get(unit, 1.0)


def parse(path):
    """Runs in file order: (header words, launches); a launch is (name, {metric: value})."""
    runs = []
    header, lines = None, []

    def flush():
        if header is None:
            return
        rows = [l for l in lines if l.startswith('"')]
        launches = {}
        order = []
        for rec in csv.DictReader(io.StringIO("".join(rows))):
            key = rec.get("ID")
            if key is None:
                continue
            if key not in launches:
                launches[key] = (rec["Kernel Name"], {}, rec.get("Block Size", ""),
                                 rec.get("Grid Size", ""))
                order.append(key)
            v = number(rec["Metric Value"])
            if v is not None:
                launches[key][1][rec["Metric Name"]] = to_base_unit(v, rec.get("Metric Unit", ""))
        runs.append((header, [launches[k] for k in order]))

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("== "):
                flush()
                header, lines = line[3:].split(), []
            elif header is not None:
                lines.append(line)
    flush()
    return runs


def short_name(name):
    """'void ns::foo_kernel<...>(...)' -> 'foo_kernel'."""
    name = re.sub(r"^void\s+", "", name)
    depth, out = 0, []
    for ch in name:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).split("::")[-1].strip()


def product_launches(launches):
    """The launches of the last product: the shortest block at the end that the launches just
    before it repeat (the last launch alone when nothing repeats: a run without its warm-up)."""
    names = [l[0] for l in launches]
    for k in range(1, len(names) // 2 + 1):
        if names[-k:] == names[-2 * k:-k]:
            return launches[-k:]
    return launches[-1:] if launches else []


def bench_json(directory, header):
    if not directory:
        return None
    stem = "-".join(header[:4])
    stem = re.sub(r"[:=,|]", "_", stem)
    path = os.path.join(directory, "profile-" + stem + ".json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def floor_bytes(rows, cols, nnz, precision):
    v = 8 if precision == "double" else 4
    return nnz * (v + 4) + (rows + 1) * 4 + (rows + cols) * v


def summarize(runs, json_dir):
    table = []
    for header, launches in runs:
        if len(header) < 4:
            continue
        spec, precision, kernel, op = header[:4]
        picked_by_auto = len(header) > 4 and header[4] == "auto"
        product = product_launches(launches)
        if not product:
            table.append({"matrix": spec, "precision": precision, "kernel": kernel, "op": op,
                          "error": "no kernel launches profiled"})
            continue
        row = {"matrix": spec, "precision": precision, "kernel": kernel, "op": op,
               "launches": [short_name(l[0]) for l in product]}
        for m in SUMMED:
            row[m] = sum(l[1].get(m, 0.0) for l in product)
        total_time = row[TIME] or 1.0
        for m in TIME_WEIGHTED:
            row[m] = sum(l[1].get(m, 0.0) * l[1].get(TIME, 0.0) for l in product) / total_time
        longest = max(product, key=lambda l: l[1].get(TIME, 0.0))
        row["main_kernel"] = short_name(longest[0])
        row["registers"] = longest[1].get("launch__registers_per_thread")
        row["block"], row["grid"] = longest[2], longest[3]
        info = bench_json(json_dir, header)
        if info:
            results = [r for r in info.get("results", []) if r.get("kernel") == kernel]
            if results:
                r = results[0]
                row["rows"], row["cols"], row["nnz"] = r["rows"], r["cols"], r["nnz"]
                row["floor_bytes"] = floor_bytes(r["rows"], r["cols"], r["nnz"], precision)
                note = r.get("note", "")
                m = re.search(r"chose ([A-Za-z0-9_-]+)", note)
                if m:
                    row["chose"] = m.group(1)
        if picked_by_auto:
            row["kernel"], row["chose"] = "auto", kernel
        table.append(row)
    return table


def print_table(table, out=None):
    out = out or sys.stdout  # looked up at the call: stdout may be redirected
    cols = ("matrix", "prec", "op", "kernel", "main_kernel", "us", "DRAM_MB", "x_floor",
            "DRAM%", "L2%", "L2_hit%", "SM%", "sect/req", "occ%", "theo%", "regs", "red+atom_M")
    print("  ".join(cols), file=out)
    for r in table:
        if "error" in r:
            print(f"{r['matrix']}  {r['precision']}  {r['op']}  {r['kernel']}  {r['error']}",
                  file=out)
            continue
        dram = r["dram__bytes_read.sum"] + r["dram__bytes_write.sum"]
        req = r["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        sect = r["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
        kernel = r["kernel"] + (f"->{r['chose']}" if r.get("chose") else "")
        fields = [
            r["matrix"], r["precision"], r["op"], kernel, r["main_kernel"],
            f"{r[TIME]:.1f}", f"{dram / 1e6:.0f}",
            f"{dram / r['floor_bytes']:.2f}" if r.get("floor_bytes") else "-",
            f"{r['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}",
            f"{r['lts__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}",
            f"{r['lts__t_sector_hit_rate.pct']:.0f}",
            f"{r['sm__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}",
            f"{sect / req:.1f}" if req else "-",
            f"{r['sm__warps_active.avg.pct_of_peak_sustained_active']:.0f}",
            f"{r['sm__maximum_warps_per_active_cycle_pct']:.0f}",
            f"{r['registers']:.0f}" if r.get("registers") is not None else "-",
            f"{(r['lts__t_sectors_op_red.sum'] + r['lts__t_sectors_op_atom.sum']) / 1e6:.2f}",
        ]
        print("  ".join(fields), file=out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("--bench-json-dir")
    p.add_argument("--json")
    p.add_argument(
        "--meta", action="append", default=[], help="KEY=VALUE recorded in --json and printed"
    )
    a = p.parse_args(argv)
    table = summarize(parse(a.csv), a.bench_json_dir)
    if not table:
        print("no profiled runs in", a.csv, file=sys.stderr)
        return 1
    meta = dict(kv.split("=", 1) for kv in a.meta if "=" in kv)
    if meta:  # the printed table names its commit and GPU as the JSON does
        print("# " + ", ".join(f"{k}={v}" for k, v in meta.items()))
    print_table(table)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "rows": table}, f, indent=1)
    return 0 if all("error" not in r for r in table) else 1


if __name__ == "__main__":
    sys.exit(main())
