#!/usr/bin/python3
"""Exports the model-test and peer-benchmark models to ONNX, with reference inputs and outputs.

Models (batch 1, float32, random weights from fixed seeds; no pretrained weights are downloaded):
  * resnet18, resnet50, mobilenet_v2: torchvision's definitions, input `input` 1x3x224x224;
  * transformer: nn.TransformerEncoder, 4 layers, d_model 256, 4 heads, feed-forward 1024, ReLU,
    batch_first, input `src` 1x128x256.
The batch-norm statistics of the CNNs are calibrated on random images (a few forward passes in
training mode) so that activations stay of order one through the network, as in a trained model;
the default initialisation (mean 0, variance 1) would let them grow with depth.

For each model NAME the cache directory receives NAME.onnx (opset 13, constants folded),
NAME.input.npy (a seeded normal input) and NAME.ref.npy (PyTorch's output on that input, computed
with one thread). A model whose three files all exist is skipped. The cache is $TESSERA_MODEL_CACHE,
else ~/.cache/tessera-models, unless --out is given.

Needs Debian's python3-torch, python3-torchvision and python3-onnx; run with /usr/bin/python3.
Usage: /usr/bin/python3 tests/models/make_models.py [--out DIR] [--force] [NAME...]
       /usr/bin/python3 tests/models/make_models.py --list     # prints "NAME INPUT_NAME" lines
"""
import argparse
import os
import pathlib
import sys

import numpy as np

OPSET = 13
# name -> (ONNX input name, input shape)
MODELS = {
    "resnet18": ("input", (1, 3, 224, 224)),
    "resnet50": ("input", (1, 3, 224, 224)),
    "mobilenet_v2": ("input", (1, 3, 224, 224)),
    "transformer": ("src", (1, 128, 256)),
}


def cacheDir(arg):
    if arg:
        return pathlib.Path(arg)
    env = os.environ.get("TESSERA_MODEL_CACHE")
    if env:
        return pathlib.Path(env)
    return pathlib.Path.home() / ".cache" / "tessera-models"


def calibrateBatchNorm(model, torch, steps=4):
    """Randomises the BN affine parameters, then sets the running statistics to the cumulative
    average over `steps` batches of random images (momentum None), in training mode."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for bn in bns:
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.normal_(0.0, 0.1)
            bn.reset_running_stats()
            bn.momentum = None
        model.train()
        for _ in range(steps):
            model(torch.randn(8, 3, 224, 224))
    model.eval()


def buildModel(name, torch):
    """Returns the eval-mode module for `name`, with weights drawn from a seed fixed per model."""
    torch.manual_seed(sum(map(ord, name)))
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                                 dropout=0.1, batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)
        return model.eval()
    import torchvision
    model = getattr(torchvision.models, name)(weights=None)
    calibrateBatchNorm(model, torch)
    return model


def export(name, out, torch):
    inputName, shape = MODELS[name]
    model = buildModel(name, torch)
    rng = np.random.default_rng(20261125)
    x = rng.standard_normal(shape, dtype=np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    onnxPath = out / f"{name}.onnx"
    tmp = out / f"{name}.onnx.tmp"
    # Export with gradients on: under no_grad, eval-mode TransformerEncoderLayer takes PyTorch's
    # fused fast path (aten::_transformer_encoder_layer_fwd), which the exporter rejects.
    torch.onnx.export(model, (torch.from_numpy(x),), str(tmp), opset_version=OPSET,
                      do_constant_folding=True, input_names=[inputName],
                      output_names=["output"])
    np.save(out / f"{name}.input.npy", x)
    np.save(out / f"{name}.ref.npy", ref)
    tmp.replace(onnxPath)  # last, so a present .onnx means the set is complete
    print(f"make_models: {name}: {onnxPath} ({onnxPath.stat().st_size >> 20} MiB), "
          f"output {ref.shape}, max|ref| {np.abs(ref).max():.3g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"models to make (default: all of {list(MODELS)})")
    parser.add_argument("--out", help="cache directory (default $TESSERA_MODEL_CACHE or "
                        "~/.cache/tessera-models)")
    parser.add_argument("--force", action="store_true", help="remake models already present")
    parser.add_argument("--list", action="store_true", help="print 'NAME INPUT_NAME' and exit")
    args = parser.parse_args()
    if args.list:
        for name, (inputName, _) in MODELS.items():
            print(name, inputName)
        return 0
    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model {unknown[0]!r}; known: {', '.join(MODELS)}")

    out = cacheDir(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = []
    for name in args.names or list(MODELS):
        files = [out / f"{name}{suffix}" for suffix in (".onnx", ".input.npy", ".ref.npy")]
        if all(f.exists() for f in files) and not args.force:
            print(f"make_models: {name}: present in {out}")
            continue
        todo.append(name)
    if not todo:
        return 0

    import torch  # only when something is to be made: importing torch takes seconds
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    for name in todo:
        export(name, out, torch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
