#!/usr/bin/env python3
"""A/B of two Tessera builds on single quantized layers with their requantizing epilogue.

MobileNetV2's layers as `relay.quantize` realizes them (conv2d to int32, bias, the requantizing
`fixed_point_multiply`, clips and casts to int8): the 16 -> 96 expansion at 112x112 (relu6: a
clip before the multiply) and the 32 -> 16 projection at 112x112 (linear: no clip before it).
Each build compiles each layer (random int8 weights given as constants, so packed); the
compiled directories then run in alternating blocks (`tessera run DIR --bench N`, one thread
pinned to CPU 1), and every output is checked against the reference interpreter first.

    /usr/bin/python3 bench/requant_layers.py --a OLD_TESSERA --b NEW_TESSERA [--rounds 4]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np

# name: (input channels, output channels, size, clip before the multiply, multiplier, shift)
LAYERS = {
    "expand_16_96_relu6": (16, 96, 112, 7867.105586320962, 1118644352, -5),
    "project_32_16_linear": (32, 16, 112, None, 2061283456, -7),
}
MEDIAN = re.compile(r"median ([0-9.]+) us")


def relayText(cin, cout, size, clip, multiplier, shift):
    lines = []

    def bind(expr):  # %0, %1, ... in order
        lines.append(f"  %{len(lines)} = {expr};")
        return f"%{len(lines) - 1}"

    v = bind(f"nn.conv2d(%x, %w, padding=[0, 0, 0, 0], channels={cout}, kernel_size=[1, 1], "
             'out_dtype="int32")')
    v = bind(f"add({v}, %b)")
    if clip:  # relu6 in the integer domain
        v = bind(f"clip({v}, a_min=0f, a_max={clip}f)")
    v = bind(f'cast({v}, dtype="int64")')
    v = bind(f"fixed_point_multiply({v}, multiplier={multiplier}, shift={shift})")
    v = bind(f"clip({v}, a_min=-127f, a_max=127f)")
    v = bind(f'cast({v}, dtype="int32")')
    return ('#[version = "0.0.5"]\n'
            f"def @main(%x: Tensor[(1, {cin}, {size}, {size}), int8], "
            f"%w: Tensor[({cout}, {cin}, 1, 1), int8], %b: Tensor[({cout}, 1, 1), int32]) {{\n"
            + "\n".join(lines) + f'\n  cast({v}, dtype="int8")\n}}\n')


def run(binary, args, threads=1):
    env = dict(os.environ, TESSERA_NUM_THREADS=str(threads))
    return subprocess.run(["taskset", "-c", "1", binary, *args], capture_output=True, text=True,
                          env=env, check=True).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="the baseline tessera binary")
    parser.add_argument("--b", required=True, help="the changed tessera binary")
    parser.add_argument("--rounds", type=int, default=4, help="alternating blocks per build")
    parser.add_argument("--runs", type=int, default=300, help="runs per block")
    args = parser.parse_args()
    rng = np.random.default_rng(20261202)
    print("| layer | A median (us) | B median (us) | B / A |\n|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (cin, cout, size, clip, m, s) in LAYERS.items():
            d = Path(tmp) / name
            d.mkdir()
            (d / "m.relay").write_text(relayText(cin, cout, size, clip, m, s))
            w = rng.integers(-127, 128, (cout, cin, 1, 1)).astype(np.int8)
            b = rng.integers(-2000, 2000, (cout, 1, 1)).astype(np.int32)
            np.savez(d / "p.npz", w=w, b=b)
            np.save(d / "w.npy", w)
            np.save(d / "b.npy", b)
            np.save(d / "x.npy", rng.integers(-128, 128, (1, cin, size, size)).astype(np.int8))
            run(args.a, ["run", str(d / "m.relay"), "--interpreter", "--input", f"x={d}/x.npy",
                         "--input", f"w={d}/w.npy", "--input", f"b={d}/b.npy", "--output",
                         str(d / "ref.npy")])
            ref = np.load(d / "ref.npy")
            for tag, binary in (("a", args.a), ("b", args.b)):
                run(binary, ["compile", str(d / "m.relay"), "--params", str(d / "p.npz"), "-o",
                             str(d / tag)])
                run(binary, ["run", str(d / tag), "--input", f"x={d}/x.npy", "--output",
                             str(d / f"{tag}.npy")])
                if not np.array_equal(np.load(d / f"{tag}.npy"), ref):
                    raise SystemExit(f"{name}: build {tag} differs from the interpreter")
            times = {"a": [], "b": []}
            for _ in range(args.rounds):
                for tag, binary in (("a", args.a), ("b", args.b)):
                    out = run(binary, ["run", str(d / tag), "--input", f"x={d}/x.npy", "--bench",
                                       str(args.runs)])
                    times[tag].append(float(MEDIAN.search(out).group(1)))
            a, b = statistics.median(times["a"]), statistics.median(times["b"])
            print(f"| {name} | {a:.1f} | {b:.1f} | {b / a:.2f} |")


if __name__ == "__main__":
    main()
