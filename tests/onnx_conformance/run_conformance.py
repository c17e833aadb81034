#!/usr/bin/python3
"""The ONNX project's conformance tests (Debian's libonnx-testdata) through `tessera run`.

Each test directory holds model.onnx and test_data_set_*/{input,output}_*.pb. Every applicable test
runs twice, compiled and on the reference interpreter, and gets one status per mode:

  pass    every output matches (floats: |got - want| <= atol + rtol * |want|, rtol 1e-3 and atol
          1e-7 as the ONNX backend runner; integers and booleans exactly)
  wrong   it ran but an output differs (or is missing)
  error   a clean diagnostic and exit 1; its code (`unsupported_op`, `onnx_opset`, ...) is kept
  crash   anything else: a signal, an internal error, a timeout
  skip    not applicable to any engine here: sequence/optional/map/string types, the training
          domain, random outputs

The statuses are compared with the checked-in list (expected_status.txt, `test mode status`): a
test that passed before and no longer passes is a regression (exit 1); a newly passing test is
reported, and `--update` rewrites the list. `--report FILE` writes the summary table as markdown.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data"
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]
RANDOM_OPS = {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
              "Bernoulli", "Multinomial"}
HERE = os.path.dirname(os.path.abspath(__file__))


def bfloat16_round_nearest_even(x):
    """float32 -> nearest bfloat16 (ties to even; NaN stays NaN), returned as float32."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


# Tests whose libonnx-testdata 1.12 outputs later ONNX releases replaced: the expected output is
# recomputed from the inputs by the current rule. ONNX 1.14 made Cast to bfloat16 round to
# nearest even (as PyTorch does); the 1.12 data truncates.
SUPERSEDED = {
    "node/test_cast_FLOAT_to_BFLOAT16": lambda inputs: [bfloat16_round_nearest_even(inputs[0])],
}


def relay_name(name):
    """The parameter name the importer gives an ONNX graph input."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return "v_" + s if (not s or s[0].isdigit()) else s


def not_applicable(model):
    """Why no engine here can run the test, or None."""
    def value_kind(v):
        t = v.type
        which = t.WhichOneof("value")
        if which != "tensor_type":
            return which
        if t.tensor_type.elem_type == onnx.TensorProto.STRING:
            return "string tensor"
        return None
    for v in list(model.graph.input) + list(model.graph.output):
        kind = value_kind(v)
        if kind:
            return kind
    for node in model.graph.node:
        if node.domain == "ai.onnx.preview.training":
            return "training domain"
        if node.op_type in RANDOM_OPS:
            return "random output"
    return None


def load_tensor(path, declared=None):
    """The tensor in `path`; `declared` is the model's element type for it, when known."""
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    a = numpy_helper.to_array(t)
    if onnx.TensorProto.BFLOAT16 in (t.data_type, declared) and a.dtype == np.uint16:
        # onnx 1.12 stores and returns bfloat16 as raw uint16 bits; numpy has no bfloat16, so the
        # values travel as float32 (exact), which `tessera run` reads into and writes from bfloat16.
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a


def elem_types(values):
    return [v.type.tensor_type.elem_type if v.type.HasField("tensor_type") else None
            for v in values]


def matches(got, want):
    if got is None or got.shape != want.shape:
        return False
    if want.dtype.kind in "fc":
        got = got.astype(np.float64)
        want = want.astype(np.float64)
        return bool(np.all(np.isclose(got, want, rtol=1e-3, atol=1e-7, equal_nan=True)))
    return bool(np.array_equal(got, want))


def run_mode(tessera, test_dir, args, outputs, mode, work):
    out_path = os.path.join(work, f"out_{mode}.npz")
    cmd = [tessera, "run", os.path.join(test_dir, "model.onnx"), *args, "--output", out_path]
    if mode == "interpreter":
        cmd.append("--interpreter")
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "crash", "timeout"
    if r.returncode < 0 or "internal" in r.stderr.lower():
        return "crash", f"exit {r.returncode}"
    if r.returncode != 0:
        code = re.search(r"error\[([a-z0-9_]+)\]", r.stderr)
        return "error", code.group(1) if code else "exit %d" % r.returncode
    got = np.load(out_path, allow_pickle=False)
    got = {"output_0": got} if isinstance(got, np.ndarray) else {k: got[k] for k in got.files}
    for k, want in enumerate(outputs):
        if not matches(got.get(f"output_{k}"), want):
            return "wrong", f"output {k}"
    return "pass", ""


def run_test(tessera, test_dir):
    """[(name, mode, status, detail)] for one test directory."""
    name = os.path.basename(test_dir.rstrip("/"))
    folder = os.path.basename(os.path.dirname(test_dir.rstrip("/")))
    key = f"{folder}/{name}"
    try:
        model = onnx.load(os.path.join(test_dir, "model.onnx"))
    except Exception as e:  # an unreadable model is the suite's problem, not ours
        return [(key, m, "skip", f"unreadable: {e}") for m in ("compiled", "interpreter")]
    why = not_applicable(model)
    if why:
        return [(key, m, "skip", why) for m in ("compiled", "interpreter")]
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    data = os.path.join(test_dir, "test_data_set_0")
    inputs = sorted(glob.glob(os.path.join(data, "input_*.pb")),
                    key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    outputs_pb = sorted(glob.glob(os.path.join(data, "output_*.pb")),
                        key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    input_types = elem_types([i for i in model.graph.input if i.name not in initializers])
    output_types = elem_types(model.graph.output)
    outputs = [load_tensor(p, output_types[k] if k < len(output_types) else None)
               for k, p in enumerate(outputs_pb)]
    if key in SUPERSEDED:
        outputs = SUPERSEDED[key]([load_tensor(p, input_types[k] if k < len(input_types) else None)
                                   for k, p in enumerate(inputs)])
    results = []
    with tempfile.TemporaryDirectory() as work:
        args = []
        for k, path in enumerate(inputs):
            npy = os.path.join(work, f"in{k}.npy")
            np.save(npy, load_tensor(path, input_types[k] if k < len(input_types) else None))
            args += ["--input", f"{relay_name(names[k] if k < len(names) else str(k))}={npy}"]
        for mode in ("compiled", "interpreter"):
            status, detail = run_mode(tessera, test_dir, args, outputs, mode, work)
            results.append((key, mode, status, detail))
    return results


def summary_table(results):
    rows = []
    for mode in ("interpreter", "compiled"):
        mine = [r for r in results if r[1] == mode and r[2] != "skip"]
        count = {s: sum(1 for r in mine if r[2] == s) for s in ("pass", "wrong", "error", "crash")}
        n = len(mine)
        rows.append(f"| Tessera, {mode} | {n} | {count['pass']} ({100 * count['pass'] / max(n, 1):.1f}%) "
                    f"| {count['wrong']} | {count['error']} | {count['crash']} |")
    return ("| engine | tests run | pass | wrong | clean error | crash |\n"
            "|---|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tessera", help="the tessera binary")
    parser.add_argument("--filter", default="", help="only tests whose folder/name contains this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--expected", default=os.path.join(HERE, "expected_status.txt"))
    parser.add_argument("--update", action="store_true", help="rewrite the expected list")
    parser.add_argument("--report", help="write the summary and failure list (markdown) here")
    args = parser.parse_args()
    if not os.path.isdir(DATA):
        print(f"run_conformance: {DATA} is missing (Debian package libonnx-testdata)")
        return 1
    dirs = [d for f in FOLDERS for d in sorted(glob.glob(os.path.join(DATA, f, "*/")))
            if args.filter in d]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for part in pool.map(lambda d: run_test(args.tessera, d), dirs):
            results.extend(part)
    results.sort()
    print(summary_table(results))
    errors = {}
    for r in results:
        if r[2] == "error":
            errors[r[3]] = errors.get(r[3], 0) + 1
    print("clean errors by code:", ", ".join(f"{k} {v}" for k, v in sorted(errors.items(), key=lambda kv: -kv[1])))
    bad = [r for r in results if r[2] in ("wrong", "crash")]
    for r in bad:
        print(f"{r[2].upper()}: {r[0]} ({r[1]}) {r[3]}")
    if args.report:
        with open(args.report, "w") as f:
            f.write(summary_table(results))
            f.write("\nClean errors by code: " + ", ".join(
                f"`{k}` {v}" for k, v in sorted(errors.items(), key=lambda kv: -kv[1])) + "\n")
            if bad:
                f.write("\nWrong or crashed:\n\n" + "".join(f"- {r[0]} ({r[1]}): {r[2]} {r[3]}\n" for r in bad))
    current = {(r[0], r[1]): r[2] for r in results}
    if args.update:
        with open(args.expected, "w") as f:
            f.write("# test mode status (tests/onnx_conformance/run_conformance.py --update)\n")
            for (test, mode), status in sorted(current.items()):
                f.write(f"{test} {mode} {status}\n")
        print(f"wrote {args.expected}")
        return 0
    expected = {}
    if os.path.exists(args.expected):
        for line in open(args.expected):
            if line.startswith("#") or not line.strip():
                continue
            test, mode, status = line.split()
            expected[(test, mode)] = status
    regressions = [k for k, s in expected.items() if s == "pass" and current.get(k, "pass") != "pass"
                   and (not args.filter or args.filter in k[0])]
    fixed = [k for k, s in current.items() if s == "pass" and expected.get(k) not in (None, "pass")]
    for test, mode in fixed:
        print(f"NEWLY PASSING: {test} ({mode}) — run with --update to record it")
    for test, mode in regressions:
        print(f"REGRESSION: {test} ({mode}) is now {current.get((test, mode))}")
    crashes = [r for r in results if r[2] == "crash"]
    return 1 if regressions or crashes else 0


if __name__ == "__main__":
    sys.exit(main())
