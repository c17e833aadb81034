#!/usr/bin/python3
"""One PyTorch engine of the peer benchmark, driven by run_peers.py over stdin/stdout.

Builds model NAME exactly as tests/models/make_models.py does (same seeds, so the same weights as
the ONNX file), in one of three modes: `eager` (the nn.Module under torch.no_grad), `torchscript`
(torch.jit.trace, then torch.jit.freeze) or `int8` (torchvision's quantizable definition with the
same weights, modules fused, post-training static quantization with the `onednn` engine and its
default qconfig, calibrated on the reference input and 3 seeded random ones; CNNs only). Then
answers one JSON request per line:
  {"cmd": "threads", "n": T}  -> torch.set_num_threads(T); replies {"ok": true}
  {"cmd": "run", "k": K}      -> K timed inferences; replies {"ms": [...]} (wall time per call)
  {"cmd": "check"}            -> one inference; replies {"max_abs_diff": D} against NAME.ref.npy
  {"cmd": "info"}             -> versions and whether OpenBLAS is mapped into the process
Usage: torch_worker.py MODE NAME CACHE_DIR     (run with /usr/bin/python3, Debian's torch)
"""
import json
import pathlib
import sys
import time

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "models"))
import make_models  # noqa: E402  (the model definitions and seeds)


def buildInt8(name, model, x):
    """PyTorch's own int8 path: eager-mode post-training static quantization on oneDNN."""
    import torch.ao.quantization as tq
    from torchvision.models import quantization

    torch.backends.quantized.engine = "onednn"
    qmodel = getattr(quantization, name)(weights=None, quantize=False)
    qmodel.load_state_dict(model.state_dict())
    qmodel.eval()
    qmodel.fuse_model()
    qmodel.qconfig = tq.get_default_qconfig("onednn")
    tq.prepare(qmodel, inplace=True)
    gen = torch.Generator().manual_seed(20261126)
    with torch.no_grad():
        for batch in [x] + [torch.randn(x.shape, generator=gen) for _ in range(3)]:
            qmodel(batch)
    return tq.convert(qmodel, inplace=True)


def build(mode, name, x):
    # Weights are made with one thread, as make_models does, so BN calibration sums in its order.
    torch.set_num_threads(1)
    model = make_models.buildModel(name, torch)
    if mode == "eager":
        return model
    if mode == "int8":
        return buildInt8(name, model, x)
    with torch.no_grad():
        return torch.jit.freeze(torch.jit.trace(model, (x,)))


def mappedLibraries(*words):
    maps = pathlib.Path("/proc/self/maps").read_text().splitlines()
    paths = {line.split()[-1] for line in maps if "/" in line}
    return sorted(p for p in paths if any(w in p for w in words))


def main():
    mode, name, cache = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    x = torch.from_numpy(np.load(cache / f"{name}.input.npy"))
    ref = np.load(cache / f"{name}.ref.npy")
    model = build(mode, name, x)
    for line in sys.stdin:
        request = json.loads(line)
        cmd = request["cmd"]
        if cmd == "threads":
            torch.set_num_threads(request["n"])
            reply = {"ok": True}
        elif cmd == "run":
            ms = []
            with torch.no_grad():
                for _ in range(request["k"]):
                    start = time.perf_counter()
                    model(x)
                    ms.append((time.perf_counter() - start) * 1e3)
            reply = {"ms": ms}
        elif cmd == "check":
            with torch.no_grad():
                out = model(x).numpy()
            reply = {"max_abs_diff": float(np.abs(out - ref).max())}
        elif cmd == "info":
            reply = {"torch": torch.__version__, "blas": mappedLibraries("blas")}
        else:
            reply = {"error": f"unknown command {cmd!r}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
