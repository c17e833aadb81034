#!/usr/bin/env python3
"""A/B of two kernel_bench binaries: is a change slower on the kernels?

Runs the two builds' `kernel_bench` one after the other, alternating, for --rounds rounds each
(so drift of the machine hits both alike), reads Tessera's milliseconds per case and thread count
from each run's table, and prints a Markdown table of the medians over the rounds with B/A.
Each kernel_bench run already times Tessera against its peer (OpenBLAS, oneDNN) interleaved; the
peer's median time is listed too, as a measure of the machine's drift between A's and B's runs.

    /usr/bin/python3 bench/ab_kernel_bench.py --a OLD/kernel_bench --b NEW/kernel_bench \
        [--rounds 3] [--args="--quick --only gemm"]
"""
import argparse
import shlex
import statistics
import subprocess


def run(binary, extra):
    """{(case, threads): (tessera ms, peer GFLOPS)} of one kernel_bench run."""
    out = subprocess.run([binary] + extra, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 6 or not cells[1].isdigit():
            continue
        try:
            rows[(cells[0], int(cells[1]))] = (float(cells[2]), float(cells[4]))
        except ValueError:
            continue
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="the baseline kernel_bench")
    parser.add_argument("--b", required=True, help="the changed kernel_bench")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--args", default="--quick", help="arguments for both binaries")
    args = parser.parse_args()
    extra = shlex.split(args.args)
    runs = {"a": [], "b": []}
    for r in range(args.rounds):
        # Alternate which build goes first, so neither always follows the other.
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for which in order:
            runs[which].append(run(getattr(args, which), extra))
    keys = [k for k in runs["a"][0] if all(k in r for r in runs["a"] + runs["b"])]
    print("| case | threads | A ms | B ms | B / A | peer GFLOPS in A's runs | in B's runs |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for key in keys:
        a = statistics.median(r[key][0] for r in runs["a"])
        b = statistics.median(r[key][0] for r in runs["b"])
        pa = statistics.median(r[key][1] for r in runs["a"])
        pb = statistics.median(r[key][1] for r in runs["b"])
        ratios.append(b / a)
        print(f"| {key[0]} | {key[1]} | {a:.3f} | {b:.3f} | {b / a:.3f} | {pa:.1f} | {pb:.1f} |")
    print(f"\nmedian B/A over {len(ratios)} cases: {statistics.median(ratios):.3f}; "
          f"{args.rounds} rounds of `kernel_bench {args.args}` per build")


if __name__ == "__main__":
    main()
