#!/usr/bin/env python3
"""Per-kernel time and GFLOP/s of a compiled model: `tessera run DIR --profile N`, with each conv2d
or dense kernel's FLOPs read from its signature in `tessera tir MODEL --func NAME`.

    /usr/bin/python3 bench/profile_gflops.py TESSERA MODEL.onnx COMPILED_DIR [--threads N] [--runs N]

GFLOP/s counts a convolution's direct FLOPs (2 x outputs x window x input channels), so a
Winograd kernel can exceed the FMA peak; NCHWc kernels (blocked layouts) are listed without one.
One thread runs pinned to CPU 1 (taskset), two to CPUs 0-1.
"""
import argparse
import os
import re
import subprocess


def kernelFlops(binary, model, name):
    """(flops, description) of a conv2d (NCHW/OIHW) or dense kernel, else (0, "")."""
    out = subprocess.run([binary, "tir", model, "--func", name], capture_output=True,
                         text=True).stdout
    m = re.search(r"def \w+\((.*?)\):", out)
    shapes = [tuple(int(x) for x in b.split(",") if x.strip())
              for b in re.findall(r"T\.Buffer\(\(([0-9, ]+)\)", m.group(1))] if m else []
    if len(shapes) < 3:
        return 0, ""
    data, weight, out = shapes[0], shapes[1], shapes[-1]
    if "conv2d" in name and len(data) == 4 and len(weight) == 4 and len(out) == 4:
        return (2 * out[1] * out[2] * out[3] * weight[1] * weight[2] * weight[3],
                f"{data[1]}->{out[1]} {weight[2]}x{weight[3]} {data[2]}->{out[2]}")
    if "dense" in name and len(weight) == 2:
        rows = 1
        for d in data[:-1]:
            rows *= d
        return 2 * rows * weight[0] * weight[1], f"dense {weight[1]}->{weight[0]}"
    return 0, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tessera")
    parser.add_argument("model")
    parser.add_argument("compiled")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    env = dict(os.environ, TESSERA_NUM_THREADS=str(args.threads))
    cpus = "1" if args.threads == 1 else "0,1"
    profile = subprocess.run(["taskset", "-c", cpus, args.tessera, "run", args.compiled,
                              "--random-inputs", "0", "--profile", str(args.runs)],
                             capture_output=True, text=True, env=env, check=True).stdout
    rows = re.findall(r"^\s+([0-9.]+)\s+(\d+)\s+[0-9.]+%\s+(\S+)$", profile, re.M)
    print("| ms | calls | GFLOP/s | layer | kernel |")
    print("|---:|---:|---:|---|---|")
    total = 0.0
    for ms, calls, name in rows:
        ms, calls = float(ms), int(calls)
        total += ms
        flops, what = kernelFlops(args.tessera, args.model, name)
        rate = f"{flops / (ms / calls * 1e-3) / 1e9:.1f}" if flops else ""
        print(f"| {ms:.3f} | {calls} | {rate} | {what} | {name} |")
    print(f"| {total:.3f} | | | | total |")


if __name__ == "__main__":
    main()
