#!/usr/bin/python3
"""Compile time and peak memory of `tessera compile` on torchvision's classification models.

Each model is torchvision 0.14's definition with random weights (`weights=None`, a seed fixed per
model), batch 1, 3x224x224 (3x299x299 for inception_v3), exported to ONNX (opset 13, falling back
to 17 when 13 fails; constants folded) into a cache directory the first time. Each is then compiled
once by `tessera compile MODEL.onnx -o DIR` under `/usr/bin/time -v`, one model at a time (--jobs 1
by default), and the report gives per model: wall seconds, user+sys CPU seconds, peak RSS (MB),
the weights (MB: the bytes of the ONNX initializers and Constant nodes), peak RSS / weights, the
kernel count, and the error of a model that fails to export, import or compile.

The target of issue 14 item 7: every model compiles in under 5 s wall and under 2x its weights of
peak memory. On a shared machine wall time depends on the load (the load average before each
compile is recorded); user+sys is the steadier measure.

Needs Debian's python3-torch, python3-torchvision and python3-onnx (scripts/install_model_deps.sh);
run with /usr/bin/python3.
Usage: /usr/bin/python3 bench/compile_bench.py [--models a,b] [--out FILE.md] [--json FILE]
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The list: every torchvision 0.14 classification family, a few sizes of the large ones.
MODELS = [
    "alexnet",
    "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn",
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "wide_resnet50_2",
    "squeezenet1_0", "squeezenet1_1",
    "densenet121", "densenet161", "densenet169", "densenet201",
    "inception_v3", "googlenet",
    "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
    "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "mnasnet0_5", "mnasnet1_0",
    "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
    "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
    "efficientnet_v2_s",
    "regnet_x_400mf", "regnet_x_1_6gf", "regnet_x_8gf",
    "regnet_y_400mf", "regnet_y_1_6gf", "regnet_y_8gf",
    "convnext_tiny", "convnext_small",
    "vit_b_16", "swin_t", "maxvit_t",
]
INPUT = "input"
TARGET_WALL_S = 5.0
TARGET_RSS_RATIO = 2.0


def inputSize(name):
    return 299 if name == "inception_v3" else 224


def cacheDir(arg):
    if arg:
        return pathlib.Path(arg)
    base = os.environ.get("TESSERA_MODEL_CACHE")
    base = pathlib.Path(base) if base else pathlib.Path.home() / ".cache" / "tessera-models"
    return base / "compile-bench"


def weightBytes(onnxPath):
    """Bytes of the model's initializers and Constant-node tensors (what the weights occupy)."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(str(onnxPath))
    total = sum(numpy_helper.to_array(t).nbytes for t in model.graph.initializer)
    for node in model.graph.node:
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.type == onnx.AttributeProto.TENSOR:
                    total += numpy_helper.to_array(a.t).nbytes
    return total


def exportModels(names, cache, log):
    """Exports the models missing from the cache; returns {name: error} for those that fail."""
    errors = {}
    todo = [n for n in names if not (cache / f"{n}.onnx").exists()]
    if todo:
        import torch
        import torchvision
        torch.set_num_threads(1)
        for name in todo:
            try:
                torch.manual_seed(sum(map(ord, name)))
                model = getattr(torchvision.models, name)(weights=None).eval()
                size = inputSize(name)
                x = torch.randn(1, 3, size, size)
                tmp = cache / f"{name}.onnx.tmp"
                last = None
                for opset in (13, 17):
                    try:
                        torch.onnx.export(model, (x,), str(tmp), opset_version=opset,
                                          do_constant_folding=True, input_names=[INPUT],
                                          output_names=["output"])
                        last = None
                        break
                    except Exception as e:  # noqa: BLE001 - any exporter failure is a finding
                        last = e
                if last is not None:
                    raise last
                tmp.replace(cache / f"{name}.onnx")
                log(f"exported {name} (opset {opset}, "
                    f"{(cache / f'{name}.onnx').stat().st_size >> 20} MiB)")
            except Exception as e:  # noqa: BLE001
                errors[name] = f"export failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
                log(f"{name}: {errors[name]}")
    for name in names:
        sidecar = cache / f"{name}.weights.json"
        if (cache / f"{name}.onnx").exists() and not sidecar.exists():
            sidecar.write_text(json.dumps({"bytes": weightBytes(cache / f"{name}.onnx")}))
    return errors


def parseTime(text):
    """The fields of `/usr/bin/time -v` the report uses."""
    def field(label):
        m = re.search(re.escape(label) + r":\s*(.+)", text)
        return m.group(1).strip() if m else None
    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    return {"wall_s": secs,
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "rss_mb": int(field("Maximum resident set size (kbytes)")) * 1024 / 1e6}


def loadAverage():
    return float(pathlib.Path("/proc/loadavg").read_text().split()[0])


def compileOne(binary, name, cache, work, extra, timePasses):
    onnx = cache / f"{name}.onnx"
    size = inputSize(name)
    outDir = work / name
    timeFile = work / f"{name}.time"
    argv = ["/usr/bin/time", "-v", "-o", str(timeFile), binary, "compile", str(onnx),
            "-o", str(outDir), "--input-shape", f"{INPUT}=1,3,{size},{size}"] + extra
    if timePasses:
        argv.append("--time-passes")
    load = loadAverage()
    proc = subprocess.run(argv, capture_output=True, text=True)
    row = {"name": name, "load": load,
           "weights_mb": json.loads((cache / f"{name}.weights.json").read_text())["bytes"] / 1e6}
    row.update(parseTime(timeFile.read_text()))
    row["ratio"] = row["rss_mb"] / row["weights_mb"] if row["weights_mb"] else None
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.strip().splitlines() if l.strip()]
        row["error"] = f"exit {proc.returncode}: " + (lines[-1][:300] if lines else "")
    else:
        m = re.search(r"(\d+) kernels?, (\d+) calls?", proc.stdout)
        row["kernels"] = int(m.group(1)) if m else None
    row["passes"] = proc.stderr if timePasses else ""
    shutil.rmtree(outDir, ignore_errors=True)
    return row


def meets(row):
    return ("error" not in row and row["wall_s"] < TARGET_WALL_S
            and row["ratio"] is not None and row["ratio"] < TARGET_RSS_RATIO)


def table(rows):
    out = ["| model | weights MB | wall s | user+sys s | peak RSS MB | RSS / weights | kernels | "
           "load | target |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if "wall_s" not in r:
            out.append(f"| {r['name']} | | | | | | | | {r['error']} |")
            continue
        verdict = "yes" if meets(r) else ("**" + r["error"] + "**" if "error" in r else "no")
        if "error" not in r and not meets(r):
            why = []
            if r["wall_s"] >= TARGET_WALL_S:
                why.append("time")
            if r["ratio"] >= TARGET_RSS_RATIO:
                why.append("memory")
            verdict = "no (" + ", ".join(why) + ")"
        out.append(f"| {r['name']} | {r['weights_mb']:.1f} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | "
                   f"{r['rss_mb']:.0f} | {r['ratio']:.2f} | {r.get('kernels', '')} | "
                   f"{r['load']:.2f} | {verdict} |")
    return "\n".join(out)


def machine():
    info = {}
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        key = line.split(":")[0].strip()
        if key in ("model name", "cpu family") and key not in info:
            info[key] = line.split(":", 1)[1].strip()
    return f"{info.get('model name', '?')} (family {info.get('cpu family', '?')}), " \
           f"{os.cpu_count()} CPUs"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", help="comma-separated subset (default: all of MODELS)")
    parser.add_argument("--tessera", default=str(ROOT / "build/release/tools/tessera/tessera"))
    parser.add_argument("--cache", help="exported models (default $TESSERA_MODEL_CACHE/"
                        "compile-bench or ~/.cache/tessera-models/compile-bench)")
    parser.add_argument("--jobs", type=int, default=1, help="compiles at once (default 1)")
    parser.add_argument("--time-passes", action="store_true",
                        help="also pass --time-passes and keep each model's report")
    parser.add_argument("--extra", default="", help="more `tessera compile` arguments")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument("--out", help="write the markdown table to this file")
    parser.add_argument("--export-only", action="store_true", help="export the models and stop")
    args = parser.parse_args()

    names = MODELS if not args.models else args.models.split(",")
    cache = cacheDir(args.cache)
    cache.mkdir(parents=True, exist_ok=True)

    def log(text):
        print(f"compile_bench: {text}", file=sys.stderr, flush=True)

    errors = exportModels(names, cache, log)
    if args.export_only:
        return 0
    rows = {n: {"name": n, "error": e} for n, e in errors.items()}
    todo = [n for n in names if n not in errors]
    with tempfile.TemporaryDirectory(prefix="tessera-compile-bench-") as tmp:
        work = pathlib.Path(tmp)
        binary = shutil.copy2(args.tessera, work / "tessera")  # a rebuild does not change it
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(compileOne, binary, n, cache, work, args.extra.split(),
                                   args.time_passes): n for n in todo}
            for f in concurrent.futures.as_completed(futures):
                r = f.result()
                rows[r["name"]] = r
                log(f"{r['name']}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s cpu, "
                    f"{r['rss_mb']:.0f} MB ({r['ratio']:.2f}x weights)"
                    + (f" FAILED {r['error']}" if "error" in r else ""))
    ordered = [rows[n] for n in names]
    ok = sum(meets(r) for r in ordered)
    text = (f"{datetime.date.today()}, {machine()}, `tessera compile` of {len(ordered)} models, "
            f"--jobs {args.jobs}: {ok} meet the target (< {TARGET_WALL_S:g} s wall, "
            f"< {TARGET_RSS_RATIO:g}x weights peak RSS)\n\n" + table(ordered) + "\n")
    if args.time_passes:
        for r in ordered:
            if r.get("passes"):
                text += f"\n### {r['name']}: --time-passes\n\n```\n{r['passes'].strip()}\n```\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(ordered, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
