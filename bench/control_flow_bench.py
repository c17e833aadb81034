#!/usr/bin/python3
"""Control flow on the VM against ONNX Runtime: ONNX models whose Loop trip count and If condition
are graph inputs (known only at run time), so Tessera compiles them for the VM (`tessera compile`
writes vm.json) and ONNX Runtime runs its Loop/If subgraph executors.

Models (built here with the onnx package, seeded weights):
  * rnn_loop: h = tanh(h W + b) repeated M times (M an int64 input), h of 1x64, W 64x64: the cost
    per iteration is mostly the engine's loop overhead.
  * mlp_loop: the same with h 1x512 and W 512x512: the kernel dominates.
  * if_cnn: if (c) { conv3x3(64->64) + relu } else { conv1x1 + sigmoid } on 1x64x56x56.
Each case runs both engines in interleaved rounds (one process per engine per round, `--runs`
timed runs each after a warm-up); the report gives the median over all runs, and the ratio.
Outputs are compared first (max abs diff). Writes a markdown table (--out).

Timing every engine the same way: the harnesses differ. Tessera's `tessera run --bench` times the
executor's call on inputs already in place; ONNX Runtime is timed around `session.run` in Node
(ort_time.js), which also marshals the inputs and copies the output into a JS array on each call.
So each engine's harness is also timed, in the same rounds, on a trivial model with the same
inputs and output (the output an Identity of the data input): the per-call cost of the harness
and of the engine's entry. The "net" columns subtract it (median case minus median trivial) and
the ratio compares the nets; the raw medians are kept beside them. Subtracting the trivial model
also removes ONNX Runtime's own fixed cost per run and the Identity's copy, so the net slightly
favours ONNX Runtime.
Usage: /usr/bin/python3 bench/control_flow_bench.py [--rounds 3] [--runs 20] [--threads 1]
"""
import argparse
import datetime
import json
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper
from onnx import TensorProto as T
from onnx import helper as h

ROOT = pathlib.Path(__file__).resolve().parents[1]
ORT_TIME = ROOT / "bench" / "peers" / "ort_time.js"


def loop_model(width, seed):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    b = (rng.standard_normal((width,)) * 0.1).astype(np.float32)
    body = h.make_graph(
        [h.make_node("MatMul", ["h_in", "W"], ["mm"]), h.make_node("Add", ["mm", "B"], ["pre"]),
         h.make_node("Tanh", ["pre"], ["h_out"]), h.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("cond_in", T.BOOL, []),
         h.make_tensor_value_info("h_in", T.FLOAT, [1, width])],
        [h.make_tensor_value_info("cond_out", T.BOOL, []),
         h.make_tensor_value_info("h_out", T.FLOAT, [1, width])])
    g = h.make_graph(
        [h.make_node("Loop", ["M", "", "x"], ["y"], body=body)], "g",
        [h.make_tensor_value_info("M", T.INT64, []), h.make_tensor_value_info("x", T.FLOAT, [1, width])],
        [h.make_tensor_value_info("y", T.FLOAT, [1, width])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 13)])


def if_model(seed):
    rng = np.random.default_rng(seed)
    w3 = (rng.standard_normal((64, 64, 3, 3)) / 24).astype(np.float32)
    w1 = (rng.standard_normal((64, 64, 1, 1)) / 8).astype(np.float32)
    then_g = h.make_graph(
        [h.make_node("Conv", ["x", "W3"], ["c3"], pads=[1, 1, 1, 1]), h.make_node("Relu", ["c3"], ["t"])],
        "then", [], [h.make_tensor_value_info("t", T.FLOAT, [1, 64, 56, 56])])
    else_g = h.make_graph(
        [h.make_node("Conv", ["x", "W1"], ["c1"]), h.make_node("Sigmoid", ["c1"], ["e"])],
        "else", [], [h.make_tensor_value_info("e", T.FLOAT, [1, 64, 56, 56])])
    g = h.make_graph(
        [h.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "g",
        [h.make_tensor_value_info("c", T.BOOL, []), h.make_tensor_value_info("x", T.FLOAT, [1, 64, 56, 56])],
        [h.make_tensor_value_info("y", T.FLOAT, [1, 64, 56, 56])],
        [numpy_helper.from_array(w3, "W3"), numpy_helper.from_array(w1, "W1")])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 13)])


def trivial_model(inputs, data, out_shape):
    """A model with the inputs of a case (name -> (onnx dtype, shape)) whose output is an Identity
    of input `data` of shape `out_shape`: what the engine's harness costs per call."""
    graph_inputs = [h.make_tensor_value_info(name, dtype, shape) for name, (dtype, shape) in inputs.items()]
    g = h.make_graph([h.make_node("Identity", [data], ["y"])], "trivial", graph_inputs,
                     [h.make_tensor_value_info("y", T.FLOAT, out_shape)])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 13)])


def cases():
    rng = np.random.default_rng(0)
    out = []
    for name, width in [("rnn_loop", 64), ("mlp_loop", 512)]:
        x = rng.standard_normal((1, width)).astype(np.float32)
        trivial = trivial_model({"M": (T.INT64, []), "x": (T.FLOAT, [1, width])}, "x", [1, width])
        for trips in [1, 100, 1000]:
            out.append((f"{name} M={trips}", f"{name}", loop_model(width, 1),
                        {"M": np.array(trips, np.int64), "x": x}, f"{name}_trivial", trivial))
    x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    trivial = trivial_model({"c": (T.BOOL, []), "x": (T.FLOAT, [1, 64, 56, 56])}, "x",
                            [1, 64, 56, 56])
    for c in [True, False]:
        out.append((f"if_cnn c={str(c).lower()}", "if_cnn", if_model(2), {"c": np.array(c), "x": x},
                    "if_cnn_trivial", trivial))
    return out


def run_tessera(tessera, model_dir, inputs, work, runs, threads):
    args = [tessera, "run", model_dir, "--bench", str(runs), "--output", str(work / "t_out.npy")]
    for name, value in inputs.items():
        path = work / f"{name}.npy"
        np.save(path, value)
        args += ["--input", f"{name}={path}"]
    env = {"TESSERA_NUM_THREADS": str(threads), "PATH": "/usr/bin:/bin"}
    text = subprocess.run(args, check=True, capture_output=True, text=True, env=env).stdout
    # time_evaluator prints the mean, median, min, max; all samples are not printed, so the
    # per-process median stands for the process's runs.
    median = float(re.search(r"median ([0-9.]+) (us|ms)", text).group(1))
    unit = re.search(r"median [0-9.]+ (us|ms)", text).group(1)
    return (median / 1000 if unit == "us" else median), np.load(work / "t_out.npy")


def run_ort(model_path, inputs, work, runs, threads):
    specs = []
    for name, value in inputs.items():
        dtype = {"float32": "float32", "int64": "int64", "bool": "bool"}[str(value.dtype)]
        specs.append({"name": name, "dtype": dtype, "shape": list(value.shape),
                      "data": value.reshape(-1).astype(np.float64 if dtype == "float32" else np.int64).tolist()})
    spec_path = work / "inputs.json"
    spec_path.write_text(json.dumps(specs))
    out = subprocess.run(["node", str(ORT_TIME), str(model_path), str(spec_path), str(threads), str(runs)],
                         check=True, capture_output=True, text=True).stdout
    reply = json.loads(out)
    return statistics.median(reply["ms"]), np.array(reply["output"], np.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", default=str(ROOT / "build/release/tools/tessera/tessera"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="tessera_cf_"))
    compiled = {}

    def prepare(key, model, vm):
        model_path = work / f"{key}.onnx"
        if key not in compiled:
            onnx.save(model, model_path)
            out_dir = work / f"{key}_dir"
            text = subprocess.run([args.tessera, "compile", str(model_path), "-o", str(out_dir)],
                                  check=True, capture_output=True, text=True).stdout
            assert ("VM program" in text) == vm, text
            compiled[key] = out_dir
        return model_path, compiled[key]

    results = []
    for label, key, model, inputs, trivial_key, trivial in cases():
        model_path, model_dir = prepare(key, model, True)
        trivial_path, trivial_dir = prepare(trivial_key, trivial, False)
        ms = {("tessera", False): [], ("ort", False): [], ("tessera", True): [], ("ort", True): []}
        diff = None
        for r in range(args.rounds):
            order = [0, 1] if r % 2 == 0 else [1, 0]
            for engine in order:
                for is_trivial in (False, True):
                    path, directory = (trivial_path, trivial_dir) if is_trivial else (model_path, model_dir)
                    if engine == 0:
                        t, t_out = run_tessera(args.tessera, str(directory), inputs, work, args.runs,
                                               args.threads)
                        ms[("tessera", is_trivial)].append(t)
                    else:
                        t, o_out = run_ort(path, inputs, work, args.runs, args.threads)
                        ms[("ort", is_trivial)].append(t)
                    if not is_trivial:
                        if engine == 0:
                            last_t = t_out
                        else:
                            last_o = o_out
            diff = float(np.max(np.abs(last_t.reshape(-1) - last_o.reshape(-1))))
        med = {k: statistics.median(v) for k, v in ms.items()}
        net_t = med[("tessera", False)] - med[("tessera", True)]
        net_o = med[("ort", False)] - med[("ort", True)]
        results.append((label, med, net_t, net_o, diff))
        print(f"{label}: tessera {med[('tessera', False)]:.4f} ms (trivial {med[('tessera', True)]:.4f}), "
              f"onnxruntime {med[('ort', False)]:.4f} ms (trivial {med[('ort', True)]:.4f}), "
              f"net ratio {net_t / net_o:.2f}, diff {diff:.2e}", flush=True)

    cpu = open("/proc/cpuinfo").read()
    family = re.search(r"cpu family\s*:\s*(\d+)", cpu).group(1)
    model_name = re.search(r"model name\s*:\s*(.*)", cpu).group(1)
    ort_version = json.load(open(ROOT / "bench/peers/node_modules/onnxruntime-node/package.json"))["version"]
    lines = [f"# Control flow on the VM vs ONNX Runtime ({datetime.date.today()})", "",
             f"Machine: {model_name} (cpu family {family}), {platform.machine()}; threads {args.threads}; "
             f"ONNX Runtime {ort_version} (onnxruntime-node).",
             f"Command: `/usr/bin/python3 bench/control_flow_bench.py --rounds {args.rounds} --runs {args.runs} "
             f"--threads {args.threads}`", "",
             "Median ms per inference over interleaved rounds (each round: one process per engine and "
             f"model, {args.runs} timed runs after a warm-up). Raw: the case as each harness times it "
             "(Tessera: the executor call in-process; ONNX Runtime: `session.run` in Node, with its "
             "input/output marshalling). Trivial: the same harness on a model with the same inputs and "
             "output that only copies the data input (Identity): the per-call cost of harness and entry. "
             "Net = raw - trivial, for both engines; ratio = Tessera net / ONNX Runtime net (below 1: "
             "Tessera faster).", "",
             "| case | Tessera raw | Tessera trivial | Tessera net | ORT raw | ORT trivial | ORT net | "
             "ratio (net) | max abs diff |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for label, med, net_t, net_o, diff in results:
        lines.append(f"| {label} | {med[('tessera', False)]:.4f} | {med[('tessera', True)]:.4f} | "
                     f"{net_t:.4f} | {med[('ort', False)]:.4f} | {med[('ort', True)]:.4f} | "
                     f"{net_o:.4f} | {net_t / net_o:.2f} | {diff:.1e} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    sys.exit(main())
