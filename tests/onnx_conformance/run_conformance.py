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

A pass also records the engine that ran, read from the `engine:` line `tessera run` prints first
on stdout (never from stderr's prose):

  graph        compiled, on the graph executor
  vm           compiled, on the VM (control flow)
  fallback     the compiled mode's build failed and `tessera run` fell back to the interpreter
  interpreter  the interpreter, asked for (the interpreter mode)

The summary counts a compiled-mode pass as compiled (graph or vm) or fallback, and an
interpreter-mode pass as interpreted: three columns. It also gives the whole suite's size, so a
figure can be quoted against the applicable tests and against every test.

The statuses are compared with the checked-in list (expected_status.txt, `test mode status
[engine]`). The run fails (exit 1) on any wrong result, any crash, a test that passed before and
no longer passes, and a test recorded as compiled that now falls back. A newly passing or newly
compiled test is reported, and `--update` rewrites the list:

  /usr/bin/python3 tests/onnx_conformance/run_conformance.py build/release/tools/tessera/tessera \
      --update

`--report FILE` writes the summary table as markdown.
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


def test_dirs(only=""):
    """Every test directory of the suite's folders whose path contains `only`."""
    return [d for f in FOLDERS for d in sorted(glob.glob(os.path.join(DATA, f, "*/")))
            if only in d]


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


# `tessera run`'s first stdout line, `engine: ...`, and the engine each form stands for.
ENGINE_LINES = [("compiled (graph executor)", "graph"), ("compiled (VM)", "vm"),
                ("interpreter (asked: ", "interpreter"), ("interpreter (fallback: ", "fallback")]
COMPILED = ("graph", "vm")


def engine_of(stdout):
    """The engine `tessera run` reported on stdout, or None when the line is missing."""
    first = stdout.split("\n", 1)[0]
    if not first.startswith("engine: "):
        return None
    text = first[len("engine: "):]
    for prefix, engine in ENGINE_LINES:
        if text.startswith(prefix):
            return engine
    return None


def run_mode(tessera, test_dir, args, outputs, mode, work):
    """(status, detail, engine) of one run; engine is None when none was reported."""
    out_path = os.path.join(work, f"out_{mode}.npz")
    cmd = [tessera, "run", os.path.join(test_dir, "model.onnx"), *args, "--output", out_path]
    if mode == "interpreter":
        cmd.append("--interpreter")
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "crash", "timeout", None
    engine = engine_of(r.stdout)
    if r.returncode < 0 or "internal" in r.stderr.lower():
        return "crash", f"exit {r.returncode}", engine
    if r.returncode != 0:
        code = re.search(r"error\[([a-z0-9_]+)\]", r.stderr)
        return "error", code.group(1) if code else "exit %d" % r.returncode, engine
    if engine is None:
        return "crash", "no engine line on stdout", None
    got = np.load(out_path, allow_pickle=False)
    got = {"output_0": got} if isinstance(got, np.ndarray) else {k: got[k] for k in got.files}
    for k, want in enumerate(outputs):
        if not matches(got.get(f"output_{k}"), want):
            return "wrong", f"output {k}", engine
    return "pass", "", engine


def load_test(test_dir):
    """(key, why not applicable or None, input names, input arrays, expected outputs) of one test
    directory; the ONNX Runtime script (ort_conformance.py) reads the tests through it too."""
    name = os.path.basename(test_dir.rstrip("/"))
    folder = os.path.basename(os.path.dirname(test_dir.rstrip("/")))
    key = f"{folder}/{name}"
    try:
        model = onnx.load(os.path.join(test_dir, "model.onnx"))
    except Exception as e:  # an unreadable model is the suite's problem, not ours
        return key, f"unreadable: {e}", [], [], []
    why = not_applicable(model)
    if why:
        return key, why, [], [], []
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    data = os.path.join(test_dir, "test_data_set_0")
    inputs_pb = sorted(glob.glob(os.path.join(data, "input_*.pb")),
                       key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    outputs_pb = sorted(glob.glob(os.path.join(data, "output_*.pb")),
                        key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    input_types = elem_types([i for i in model.graph.input if i.name not in initializers])
    output_types = elem_types(model.graph.output)
    inputs = [load_tensor(p, input_types[k] if k < len(input_types) else None)
              for k, p in enumerate(inputs_pb)]
    outputs = [load_tensor(p, output_types[k] if k < len(output_types) else None)
               for k, p in enumerate(outputs_pb)]
    if key in SUPERSEDED:
        outputs = SUPERSEDED[key](inputs)
    names = [names[k] if k < len(names) else str(k) for k in range(len(inputs))]
    return key, None, names, inputs, outputs


def run_test(tessera, test_dir):
    """[(name, mode, status, detail, engine)] for one test directory."""
    key, why, names, inputs, outputs = load_test(test_dir)
    if why:
        return [(key, m, "skip", why, None) for m in ("compiled", "interpreter")]
    results = []
    with tempfile.TemporaryDirectory() as work:
        args = []
        for k, value in enumerate(inputs):
            npy = os.path.join(work, f"in{k}.npy")
            np.save(npy, value)
            args += ["--input", f"{relay_name(names[k])}={npy}"]
        for mode in ("compiled", "interpreter"):
            status, detail, engine = run_mode(tessera, test_dir, args, outputs, mode, work)
            results.append((key, mode, status, detail, engine))
    return results


def pct(n, total):
    return f"{100 * n / max(total, 1):.1f}%"


def counts(results, mode):
    """Applicable runs of `mode`, their statuses and their passes split by engine."""
    mine = [r for r in results if r[1] == mode and r[2] != "skip"]
    c = {s: sum(1 for r in mine if r[2] == s) for s in ("pass", "wrong", "error", "crash")}
    passes = [r for r in mine if r[2] == "pass"]
    c["compiled"] = sum(1 for r in passes if r[4] in COMPILED)
    c["fallback"] = sum(1 for r in passes if r[4] == "fallback")
    c["interpreted"] = sum(1 for r in passes if r[4] == "interpreter")
    c["run"] = len(mine)
    return c


def summary_table(results):
    """The markdown table: one row per mode, passes in three columns by the engine that ran."""
    suite = len({r[0] for r in results})
    rows = []
    for mode, label in (("compiled", "`tessera run`"), ("interpreter", "`tessera run --interpreter`")):
        c = counts(results, mode)
        rows.append(f"| {label} | {c['run']} | {c['compiled']} | {c['fallback']} | "
                    f"{c['interpreted']} | {c['wrong']} | {c['error']} | {c['crash']} |")
    c = counts(results, "compiled")
    i = counts(results, "interpreter")
    n = c["run"]
    return ("| mode | tests run | pass, compiled | pass, fallback | pass, interpreted | wrong "
            "| clean error | crash |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n\n"
            f"Whole suite: {suite} tests, {n} applicable ({suite - n} not applicable to any engine "
            "here).\n"
            f"Compiled passes: {c['compiled']} = {pct(c['compiled'], n)} of the applicable tests, "
            f"{pct(c['compiled'], suite)} of the suite.\n"
            f"All passes of `tessera run` (compiled or fallback): {c['pass']} = {pct(c['pass'], n)} "
            f"of the applicable tests, {pct(c['pass'], suite)} of the suite.\n"
            f"Interpreter passes: {i['interpreted']} = {pct(i['interpreted'], n)} of the applicable "
            f"tests, {pct(i['interpreted'], suite)} of the suite.\n")


def read_expected(path):
    """{(test, mode): (status, engine or None)} from the checked-in list."""
    expected = {}
    if not os.path.exists(path):
        return expected
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        expected[(fields[0], fields[1])] = (fields[2], fields[3] if len(fields) > 3 else None)
    return expected


def write_expected(path, results):
    with open(path, "w") as f:
        f.write("# test mode status [engine of a pass: graph, vm, fallback, interpreter]\n"
                "# written by: /usr/bin/python3 tests/onnx_conformance/run_conformance.py "
                "build/release/tools/tessera/tessera --update\n")
        for r in sorted(results):
            f.write(f"{r[0]} {r[1]} {r[2]}" + (f" {r[4]}" if r[2] == "pass" else "") + "\n")


def compare(results, expected, only):
    """The messages of the comparison with the checked-in list, and whether the run fails."""
    messages, failed = [], False
    for r in results:
        if r[2] in ("wrong", "crash"):
            messages.append(f"{r[2].upper()}: {r[0]} ({r[1]}) {r[3]}")
            failed = True
    current = {(r[0], r[1]): r for r in results}
    for key, (status, engine) in sorted(expected.items()):
        if only and only not in key[0]:
            continue
        now = current.get(key)
        if now is None:
            continue
        if status == "pass" and now[2] != "pass":
            messages.append(f"REGRESSION: {key[0]} ({key[1]}) is now {now[2]} {now[3]}")
            failed = True
        elif status == "pass" and engine in COMPILED and now[4] == "fallback":
            messages.append(f"FELL BACK: {key[0]} ({key[1]}) was compiled ({engine}) and now "
                            "runs on the interpreter after a build failure")
            failed = True
        elif status == "pass" and now[2] == "pass" and engine != now[4]:
            messages.append(f"ENGINE CHANGED: {key[0]} ({key[1]}) {engine} -> {now[4]} "
                            "(run with --update to record it)")
    for key, r in sorted(current.items()):
        if r[2] == "pass" and expected.get(key, (None, None))[0] != "pass":
            messages.append(f"NEWLY PASSING: {key[0]} ({key[1]}) on {r[4]} "
                            "(run with --update to record it)")
    return messages, failed


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
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for part in pool.map(lambda d: run_test(args.tessera, d), test_dirs(args.filter)):
            results.extend(part)
    results.sort(key=lambda r: (r[0], r[1]))
    print(summary_table(results))
    errors = {}
    for r in results:
        if r[2] == "error":
            errors[r[3]] = errors.get(r[3], 0) + 1
    print("clean errors by code:", ", ".join(f"{k} {v}" for k, v in sorted(errors.items(), key=lambda kv: -kv[1])))
    fallbacks = [r for r in results if r[2] == "pass" and r[4] == "fallback"]
    if fallbacks:
        print("fallback passes:", ", ".join(r[0] for r in fallbacks))
    bad = [r for r in results if r[2] in ("wrong", "crash")]
    if args.report:
        with open(args.report, "w") as f:
            f.write(summary_table(results))
            f.write("\nClean errors by code: " + ", ".join(
                f"`{k}` {v}" for k, v in sorted(errors.items(), key=lambda kv: -kv[1])) + "\n")
            if fallbacks:
                f.write("\nFallback passes: " + ", ".join(r[0] for r in fallbacks) + "\n")
            if bad:
                f.write("\nWrong or crashed:\n\n" + "".join(f"- {r[0]} ({r[1]}): {r[2]} {r[3]}\n" for r in bad))
    if args.update:
        write_expected(args.expected, results)
        print(f"wrote {args.expected}")
        return 0
    messages, failed = compare(results, read_expected(args.expected), args.filter)
    for m in messages:
        print(m)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
