#!/usr/bin/python3
"""ONNX Runtime on the tests run_conformance.py runs, judged the same way, for the README's figure.

The same test directories (Debian's libonnx-testdata), the same applicability filter, inputs,
expected outputs and tolerances: everything comes from run_conformance.py (`load_test`,
`matches`). Each applicable test runs once in a fresh `node bench/peers/ort_run_model.js`
process (onnxruntime-node, CPU, one thread, all graph optimizations; installed by
scripts/install_model_deps.sh), so a crash is one test's. Statuses as run_conformance.py's: pass,
wrong, error (ONNX Runtime refused the model or an input: its message's last line is kept),
crash (a signal or a timeout), skip (not applicable).

  /usr/bin/python3 tests/onnx_conformance/ort_conformance.py [--report FILE.md] [--filter NAME]

Prints the summary row (and writes it as markdown with --report) with the ONNX Runtime version,
the date and the CPU family, and lists every test that does not pass.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import run_conformance as rc

ROOT = os.path.dirname(os.path.dirname(rc.HERE))
PEERS = os.path.join(ROOT, "bench", "peers")
RUNNER = os.path.join(PEERS, "ort_run_model.js")


def run_ort(test_dir):
    """(key, status, detail) of one test on ONNX Runtime."""
    key, why, names, inputs, outputs = rc.load_test(test_dir)
    if why:
        return key, "skip", why
    with tempfile.TemporaryDirectory() as work:
        specs = []
        for k, (name, value) in enumerate(zip(names, inputs)):
            path = os.path.join(work, f"in{k}.bin")
            value = np.ascontiguousarray(value)
            value.astype(value.dtype.newbyteorder("<")).tofile(path)
            specs.append({"name": name, "dtype": str(value.dtype), "shape": list(value.shape),
                          "file": path})
        spec = os.path.join(work, "spec.json")
        with open(spec, "w") as f:
            json.dump({"model": os.path.join(test_dir, "model.onnx"), "out": work,
                       "inputs": specs}, f)
        try:
            r = subprocess.run(["node", RUNNER, spec], capture_output=True, text=True,
                               timeout=120)
        except subprocess.TimeoutExpired:
            return key, "crash", "timeout"
        if r.returncode < 0:
            return key, "crash", f"signal {-r.returncode}"
        if r.returncode != 0:
            # The thrown message is the last line; ONNX Runtime's log lines (coloured) come first.
            lines = re.sub(r"\x1b\[[0-9;]*m", "", r.stderr).strip().splitlines()
            return key, "error", lines[-1] if lines else "exit %d" % r.returncode
        described = json.loads(r.stdout)
        got = [np.fromfile(os.path.join(work, f"output_{k}.bin"), dtype=d["dtype"])
               .reshape(d["shape"]) for k, d in enumerate(described)]
    for k, want in enumerate(outputs):
        if not rc.matches(got[k] if k < len(got) else None, want):
            return key, "wrong", f"output {k}"
    return key, "pass", ""


def cpu_family():
    for line in open("/proc/cpuinfo"):
        if line.startswith("cpu family"):
            return line.split(":")[1].strip()
    return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="only tests whose folder/name contains this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--report", help="write the summary and the non-passing tests here")
    args = parser.parse_args()
    package = os.path.join(PEERS, "node_modules", "onnxruntime-node", "package.json")
    if not os.path.exists(package):
        print("ort_conformance: onnxruntime-node is not installed (scripts/install_model_deps.sh)")
        return 1
    if not os.path.isdir(rc.DATA):
        print(f"ort_conformance: {rc.DATA} is missing (Debian package libonnx-testdata)")
        return 1
    version = json.load(open(package))["version"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = sorted(pool.map(run_ort, rc.test_dirs(args.filter)))
    suite = len(results)
    run = [r for r in results if r[1] != "skip"]
    count = {s: sum(1 for r in run if r[1] == s) for s in ("pass", "wrong", "error", "crash")}
    n = len(run)
    when = datetime.date.today().isoformat()
    table = ("| engine | tests run | pass | wrong | error | crash |\n"
             "|---|---:|---:|---:|---:|---:|\n"
             f"| ONNX Runtime {version} (onnxruntime-node, CPU) | {n} | {count['pass']} "
             f"({rc.pct(count['pass'], n)}) | {count['wrong']} | {count['error']} "
             f"| {count['crash']} |\n\n"
             f"Whole suite: {suite} tests, {n} applicable. Passes: {count['pass']} = "
             f"{rc.pct(count['pass'], n)} of the applicable tests, "
             f"{rc.pct(count['pass'], suite)} of the suite. Measured {when}, cpu family "
             f"{cpu_family()}.\n")
    print(table)
    failing = [r for r in run if r[1] != "pass"]
    for key, status, detail in failing:
        print(f"{status.upper()}: {key} {detail}")
    if args.report:
        with open(args.report, "w") as f:
            f.write(table)
            f.write("\nNot passing:\n\n" + "".join(f"- {k}: {s} {d}\n" for k, s, d in failing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
