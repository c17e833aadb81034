#!/usr/bin/python3
"""The detector models of detector_model_test.sh: a torchvision object detector with random
weights, exported to ONNX as torchvision's postprocessing computes it (per-class score threshold
through NonZero, TopK over the run-time count, batched NMS inside an If, the first 300 kept; for
Faster R-CNN also the proposals' NMS, MultiScaleRoIAlign over the run-time proposals and the box
decoding of the second stage).

The classification and regression heads get random weights and biases and every BatchNorm's
statistics are calibrated on random images (training mode, cumulative average), so the scores
differ from box to box as a trained model's do; torchvision's default initialisation gives every
class the same score, and ties would make the comparison meaningless.

Writes WORK/NAME.onnx (opset 11, input `images` 3xSxS), WORK/img{0,1}.npy (seeded images) and
PyTorch's detections for each, WORK/ref{0,1}_{boxes,scores,labels}.npy (one thread).
Usage: /usr/bin/python3 tests/models/detector_model.py WORK NAME SIZE
"""
import math
import sys

import numpy as np
import torch
import torchvision

work, name, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.manual_seed(0)
torch.set_num_threads(1)
retinanet = name.startswith("retinanet")
two_stage = name.startswith("fasterrcnn")
# RetinaNet's transform resizes to 800 pixels unless told the size.
extra = {"min_size": size, "max_size": size} if retinanet else {}
model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None, **extra)
# Faster R-CNN's heads are the region proposal network's and the box predictor (after RoIAlign).
heads = [model.rpn.head, model.roi_heads.box_predictor] if two_stage else [model.head]
with torch.no_grad():
    for m in (m for head in heads for m in head.modules()):
        if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
            # RetinaNet's head is four 256-channel convolutions deep: weights scaled by fan-in,
            # else its logits saturate every sigmoid at 1 and all scores tie.
            std = 1.0 / math.sqrt(m.weight[0].numel()) if retinanet else 0.05
            m.weight.normal_(0.0, std)
            if m.bias is not None:
                m.bias.normal_(0.0, 0.5)
    for bn in model.modules():
        if isinstance(bn, torch.nn.BatchNorm2d):
            bn.reset_running_stats()
            bn.momentum = None
    model.train()
    for _ in range(2):
        batch = torch.rand(4, 3, size, size)
        if retinanet or two_stage:  # their backbones see normalized images
            batch = model.transform(list(batch))[0].tensors
        features = list(model.backbone(batch).values())
        if not two_stage:
            model.head(features)
    if retinanet:
        # The FPN's features are a few units wide: the head's first convolutions take them to
        # unit scale, and the box deltas stay small, so scores and boxes differ as a trained
        # model's do.
        scale = torch.cat([f.flatten() for f in features]).std().item()
        for subnet in (model.head.classification_head, model.head.regression_head):
            subnet.conv[0][0].weight /= scale
        model.head.regression_head.bbox_reg.weight *= 0.3
        model.head.regression_head.bbox_reg.bias *= 0.3
model.eval()


def settle(layer, target, calibration):
    """Scales `layer` so that its outputs on the calibration images have standard deviation
    `target` (weights and bias alike, so every later layer sees the same pattern)."""
    seen = []
    hook = layer.register_forward_hook(
        lambda module, args, out: seen.append(torch.cat([t.flatten() for t in (
            out if isinstance(out, (list, tuple)) else [out])])))
    with torch.no_grad():
        model(calibration)
        hook.remove()
        scale = target / torch.cat(seen).std().item()
        layer.weight.mul_(scale)
        layer.bias.mul_(scale)


if two_stage:
    # The FPN's features are about a thousand units wide: at the initial weights the RPN's deltas
    # move every proposal to the whole image and NMS keeps one. Each head layer in turn is scaled
    # to outputs of unit scale (objectness logits of a few units, box deltas of a fraction of a
    # box, class logits spread enough that softmax gives varied scores above the 0.05 threshold).
    calibration = [torch.rand(3, size, size) for _ in range(2)]
    rpn, predictor = model.rpn.head, model.roi_heads.box_predictor
    for layer, target in ((rpn.conv[0][0], 1.0), (rpn.cls_logits, 2.0), (rpn.bbox_pred, 0.2),
                          (predictor.cls_score, 3.0), (predictor.bbox_pred, 0.2)):
        settle(layer, target, calibration)

images = [torch.rand(3, size, size, generator=torch.Generator().manual_seed(10 + k))
          for k in range(2)]
for k, x in enumerate(images):
    np.save(f"{work}/img{k}.npy", x.numpy())
    with torch.no_grad():
        out = model([x])[0]
    for key in ("boxes", "scores", "labels"):
        np.save(f"{work}/ref{k}_{key}.npy", out[key].numpy())
torch.onnx.export(model, ([images[0]],), f"{work}/{name}.onnx", opset_version=11,
                  input_names=["images"])
