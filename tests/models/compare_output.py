#!/usr/bin/python3
"""Compares a model output of Tessera with PyTorch's reference output.

Passes when both hold:
  * max |out - ref| <= RTOL * max |ref| + ATOL (default RTOL 1e-3, ATOL 1e-4): float32 kernels that
    sum in another order than PyTorch's differ by rounding, which grows with depth but stays far
    below a thousandth of the output's magnitude;
  * top-1 is equal: the argmax over the last axis at every position (one position for a 1 x classes
    classifier output, each of the 128 tokens for the transformer's 1 x 128 x 256 output), except
    at positions where the reference's best value leads the second by at most twice the tolerance:
    there two outputs both within tolerance may rank differently, so such near-ties are counted
    and reported but not required to agree.
Prints one line: the model, the max abs diff, the tolerance, max |ref|, top-1 agreement, and the
smallest top-1 margin of the reference (how far its best class leads the second).
Usage: compare_output.py NAME OUT.npy REF.npy [--rtol R] [--atol A]
"""
import argparse
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name")
    parser.add_argument("out")
    parser.add_argument("ref")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    args = parser.parse_args()
    out = np.load(args.out)
    ref = np.load(args.ref)
    if out.shape != ref.shape or out.dtype != ref.dtype:
        print(f"{args.name}: FAIL: output {out.dtype}{list(out.shape)}, "
              f"reference {ref.dtype}{list(ref.shape)}")
        return 1
    maxRef = float(np.abs(ref).max())
    diff = float(np.abs(out.astype(np.float64) - ref).max())
    tol = args.rtol * maxRef + args.atol
    top1Out = out.argmax(axis=-1)
    top1Ref = ref.argmax(axis=-1)
    same = top1Out == top1Ref
    top2 = np.sort(ref, axis=-1)[..., -2:]
    margins = top2[..., 1] - top2[..., 0]
    nearTie = margins <= 2 * tol
    top1Ok = bool((same | nearTie).all())
    ok = diff <= tol and top1Ok
    ties = f", {int(nearTie.sum())} near-ties exempt" if nearTie.any() else ""
    print(f"{args.name}: {'ok' if ok else 'FAIL'}: max abs diff {diff:.3g} "
          f"(tolerance {tol:.3g} = {args.rtol:g} * max|ref| {maxRef:.3g} + {args.atol:g}), "
          f"top-1 equal at {int(same.sum())} of {same.size}{ties} "
          f"(smallest reference margin {float(margins.min()):.3g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
