"""Python overhead of a compiled model run (issue 27: within 5 us of C++) and the cost of handing a
1 MB NumPy array to tessera.nd.

The model is the FashionMNIST MLP (examples/fashion_mnist/mlp.onnx: 784-128-10, batch 1), built
once by relay.build at opt level 3 and exported; the C++ side (bench/python_overhead_bench.cc)
loads the same directory, so both run the same kernels. Rounds alternate Python and C++, each
RUNS calls after a warm-up; the table gives the median and the minimum over rounds of the mean
time per call (the minimum is the steadier on a loaded machine).

    bash scripts/build.sh release tessera_python python_overhead_bench
    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_overhead_bench.py \\
        [--runs 20000] [--rounds 7] [--out FILE.md]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import tessera
from tessera import relay
from tessera.contrib import graph_executor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def per_call_us(fn, runs):
    start = time.perf_counter()
    for _ in range(runs):
        fn()
    return (time.perf_counter() - start) / runs * 1e6


def python_round(module, x_nd, runs):
    run = per_call_us(module.run, runs)

    def full():
        module.set_input("x", x_nd)
        module.run()
        module.get_output(0)

    return run, per_call_us(full, runs)


def cpp_round(binary, directory, runs):
    out = subprocess.run([binary, directory, str(runs), "1"], check=True, capture_output=True,
                         text=True).stdout
    fields = dict(f.split("=") for f in out.split())
    return float(fields["run_us"]), float(fields["set_run_get_us"])


def ndarray_costs(repeats=200):
    """Microseconds to hand a 1 MB float32 array to tessera: nd.array (copies, as TVM's), and
    nd.from_dlpack of a NumPy array on a 64-byte boundary (shares) and 16 bytes past one
    (copied)."""
    n = (1 << 20) // 4
    raw = np.empty(n + 32, np.float32)
    base = (-raw.ctypes.data % 64) // 4
    aligned = raw[base:base + n]
    unaligned = raw[base + 4:base + 4 + n]
    rows = []
    for label, arr, fn in (
            ("nd.array(x) (copy, TVM's semantics)", aligned, tessera.nd.array),
            ("nd.from_dlpack(x), x 64-byte aligned", aligned,
             tessera.nd.from_dlpack),
            ("nd.from_dlpack(x), x 16 bytes off 64-byte alignment", unaligned,
             tessera.nd.from_dlpack)):
        nd = fn(arr)
        shared = np.from_dlpack(nd).ctypes.data == arr.ctypes.data
        us = min(per_call_us(lambda: fn(arr), repeats) for _ in range(3))
        rows.append((label, us, "shared" if shared else "copied"))
    return rows


def binding_costs(module, x_nd, runs=20000):
    """Best-of-5 microseconds per call of the binding's pieces, without the model's run."""
    ex = module._executor  # pylint: disable=protected-access
    pieces = (("a Python no-op call (the loop's own cost)", lambda: None),
              ("`get_num_inputs()` (a bound call, GIL kept)", ex.get_num_inputs),
              ("`GraphModule.set_input(\"x\", nd)` (by name, 784 floats copied)",
               lambda: module.set_input("x", x_nd)),
              ("`GraphModule.get_output(0)` (a new NDArray sharing the buffer)",
               lambda: module.get_output(0)))
    return [(label, min(per_call_us(fn, runs) for _ in range(5))) for label, fn in pieces]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "release", "bench",
                                                         "python_overhead_bench"))
    parser.add_argument("--out", help="append the Markdown table to this file")
    args = parser.parse_args()

    mod, params = relay.frontend.from_onnx(
        os.path.join(ROOT, "examples", "fashion_mnist", "mlp.onnx"), shape={"x": (1, 784)})
    with tessera.transform.PassContext(opt_level=3):
        lib = relay.build(mod, "llvm", params=params)
    directory = tempfile.mkdtemp(prefix="tessera_overhead_")
    lib.export_library(directory)
    module = graph_executor.GraphModule(lib["default"](tessera.cpu(0)))
    x_nd = tessera.nd.array(np.full((1, 784), 0.5, np.float32))
    module.set_input("x", x_nd)
    for _ in range(100):
        module.run()

    py_run, py_full, cc_run, cc_full = [], [], [], []
    for _ in range(args.rounds):
        r, f = python_round(module, x_nd, args.runs)
        py_run.append(r)
        py_full.append(f)
        r, f = cpp_round(args.binary, directory, args.runs)
        cc_run.append(r)
        cc_full.append(f)

    def row(name, cc, py):
        med = statistics.median
        return (f"| {name} | {med(cc):.2f} / {min(cc):.2f} | {med(py):.2f} / {min(py):.2f} | "
                f"{med(py) - med(cc):.2f} / {min(py) - min(cc):.2f} |")

    lines = [
        f"load average before: {os.getloadavg()[0]:.2f}; TESSERA_NUM_THREADS="
        f"{os.environ.get('TESSERA_NUM_THREADS', '(all cores)')}",
        "",
        "| call | C++ (us, median / min) | Python (us, median / min) | Python - C++ (us) |",
        "|---|---|---|---|",
        row("`run()`", cc_run, py_run),
        row("`set_input` + `run` + `get_output`", cc_full, py_full),
        "",
        "| 1 MB float32 NumPy array to tessera.nd | us per call | memory |",
        "|---|---|---|",
    ]
    lines += [f"| {label} | {us:.2f} | {how} |" for label, us, how in ndarray_costs()]
    lines += ["", "| binding piece | us per call (best of 5) |", "|---|---|"]
    lines += [f"| {label} | {us:.2f} |" for label, us in binding_costs(module, x_nd)]
    rounds = "; ".join(f"{side} run {', '.join(f'{v:.2f}' for v in values)}"
                       for side, values in (("Python", py_run), ("C++", cc_run)))
    lines += ["", f"rounds {args.rounds} x {args.runs} calls; per-round values: {rounds}"]
    print("\n".join(lines))
    if args.out:  # appended: one run per thread setting goes into one report
        with open(args.out, "a") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
