#!/usr/bin/env python3
"""A/B benchmark of two Tessera builds on the peer benchmark's models.

Answers "is this change slower?" for a refactor: both binaries compile each model, then their
compiled directories run in alternating blocks (`tessera run DIR --bench N`), so drift of the
machine hits both alike. Reports, per model and thread count, each build's median of the block
medians and the ratio B/A.

    /usr/bin/python3 bench/peers/ab_builds.py --a OLD_TESSERA --b NEW_TESSERA [--rounds 8] [--int8]

With --int8 each build quantizes the model first, as run_peers.py's tessera_int8 engine does (the
same calibration inputs and flags), and the quantized modules' compiled directories are timed.

With --kernels the blocks are `tessera run DIR --profile N` instead, and the table is per kernel
(the median over the blocks of each kernel's per-call median, largest first in A; kernels are
matched by name, so both builds must fuse alike), with the profiles' totals first.
"""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import tempfile

from run_peers import MAKE_MODELS, PYTHON, quantizeModel

MODELS = ["resnet18", "resnet50", "mobilenet_v2", "transformer"]
MEDIAN = re.compile(r"median ([0-9.]+) (ms|us)")  # `--bench` prints us below a millisecond
PROFILE_ROW = re.compile(r"^\s+([0-9.]+)\s+(\d+)\s+[0-9.]+%\s+(\S+)$")
PROFILE_TOTAL = re.compile(r"^\s+([0-9.]+)\s+total$")


def block_median(binary, model_dir, runs, threads):
    env = dict(os.environ, TESSERA_NUM_THREADS=str(threads))
    out = subprocess.run([binary, "run", model_dir, "--random-inputs", "0", "--bench", str(runs)],
                         capture_output=True, text=True, env=env, check=True).stdout
    m = MEDIAN.search(out)
    return float(m.group(1)) / (1000 if m.group(2) == "us" else 1)


def block_profile(binary, model_dir, runs, threads):
    """{kernel: ms per call} of one `--profile` block, with the profile's total as "(total)"."""
    env = dict(os.environ, TESSERA_NUM_THREADS=str(threads))
    out = subprocess.run([binary, "run", model_dir, "--random-inputs", "0", "--profile", str(runs)],
                         capture_output=True, text=True, env=env, check=True).stdout
    times = {}
    for line in out.splitlines():
        if m := PROFILE_ROW.match(line):
            times[m.group(3)] = float(m.group(1)) / int(m.group(2))
        elif m := PROFILE_TOTAL.match(line):
            times["(total)"] = float(m.group(1))
    return times


def print_kernels(model, threads, samples, top):
    """The per-kernel table of `samples` ({"a": [profile], "b": [profile]})."""
    def median_of(name, kernel):
        return statistics.median(p.get(kernel, float("nan")) for p in samples[name])
    kernels = sorted(samples["a"][0], key=lambda k: -median_of("a", k))
    print(f"\n{model}, {threads} thread(s), per call:\n")
    print("| kernel | A (us) | B (us) | B / A |")
    print("|---|---:|---:|---:|")
    for kernel in kernels[:top + 1]:
        a, b = median_of("a", kernel) * 1000, median_of("b", kernel) * 1000
        print(f"| {kernel} | {a:.1f} | {b:.1f} | {b / a:.2f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="the baseline tessera binary")
    parser.add_argument("--b", required=True, help="the changed tessera binary")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=8, help="alternating blocks per build")
    parser.add_argument("--runs", type=int, default=5, help="runs per block")
    parser.add_argument("--int8", action="store_true",
                        help="time the int8 modules of run_peers.py's tessera_int8 engine")
    parser.add_argument("--kernels", type=int, default=0, metavar="TOP",
                        help="per-kernel profiles instead (`--profile RUNS`): the TOP kernels")
    parser.add_argument("--cache", default=os.environ.get(
        "TESSERA_MODEL_CACHE", str(pathlib.Path.home() / ".cache/tessera-models")))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="tessera-ab-")
    inputNames = {}
    if args.int8:
        listing = subprocess.run([PYTHON, str(MAKE_MODELS), "--list"], capture_output=True,
                                 text=True, check=True).stdout.split("\n")
        inputNames = dict(line.split() for line in listing if line.strip())
    if not args.kernels:
        print("| model | threads | A median (ms) | B median (ms) | B / A |")
        print("|---|---:|---:|---:|---:|")
    for model in args.models.split(","):
        onnx = os.path.join(args.cache, model + ".onnx")
        dirs = {}
        for name, binary in (("a", args.a), ("b", args.b)):
            dirs[name] = os.path.join(work, f"{model}-{name}")
            if args.int8:
                quantizeModel(binary, pathlib.Path(onnx), inputNames[model],
                              os.path.join(args.cache, model + ".input.npy"),
                              pathlib.Path(dirs[name]))
                dirs[name] = os.path.join(dirs[name], "compiled")
            else:
                subprocess.run([binary, "compile", onnx, "-o", dirs[name]], check=True,
                               capture_output=True)
        for threads in (int(t) for t in args.threads.split(",")):
            samples = {"a": [], "b": []}
            for r in range(args.rounds):
                # Alternate which build goes first, so neither always runs on a warmer machine.
                order = ("a", "b") if r % 2 == 0 else ("b", "a")
                for name in order:
                    binary = args.a if name == "a" else args.b
                    measure = block_profile if args.kernels else block_median
                    samples[name].append(measure(binary, dirs[name], args.runs, threads))
            if args.kernels:
                print_kernels(model, threads, samples, args.kernels)
                continue
            a, b = statistics.median(samples["a"]), statistics.median(samples["b"])
            print(f"| {model} | {threads} | {a:.2f} | {b:.2f} | {b / a:.3f} |", flush=True)


if __name__ == "__main__":
    main()
