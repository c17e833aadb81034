#!/usr/bin/python3
"""The dynamic-batch model of dynamic_batch_model_test.sh: a small CNN (conv, batch norm, ReLU,
max pooling, a second conv, global average pooling, flatten, two linear layers and a softmax)
exported with a dynamic batch axis (`dynamic_axes`, dim_param "batch"). Writes WORK/model.onnx
(opset 13), x{1,3,8}.npy (seeded inputs of batch 1, 3 and 8) and PyTorch's outputs ref{1,3,8}.npy.
A second model, WORK/view_model.onnx with outputs view_ref{1,3,8}.npy, flattens with
`x.view(x.size(0), -1)` and reshapes with `x.shape[0]` instead: its export computes the target
shapes at run time (Shape -> Gather -> Unsqueeze -> Concat -> Reshape).
Usage: /usr/bin/python3 tests/models/dynamic_batch_model.py WORK
"""
import sys

import numpy as np
import torch


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
        self.head = torch.nn.Sequential(
            torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))

    def forward(self, x):
        return torch.softmax(self.head(self.features(x)), dim=1)


class ViewCnn(SmallCnn):
    """SmallCnn whose flatten and a reshape read the batch from the tensor, as many exports do."""

    def forward(self, x):
        f = self.features[:-1](x)
        f = f.view(f.size(0), -1)
        g = f.reshape(f.shape[0], f.shape[1] // 2, 2).sum(2)
        return torch.softmax(self.head(f) + self.side(g), dim=1)

    def __init__(self):
        super().__init__()
        self.side = torch.nn.Linear(16, 10)


work = sys.argv[1]
torch.manual_seed(0)
torch.set_num_threads(1)
model = SmallCnn().eval()
with torch.no_grad():
    bn = model.features[1]
    bn.running_mean.normal_(0.0, 0.1)
    bn.running_var.uniform_(0.5, 1.5)
torch.onnx.export(model, torch.randn(2, 3, 16, 16), f"{work}/model.onnx", input_names=["x"],
                  output_names=["y"], opset_version=13,
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
view_model = ViewCnn().eval()
torch.onnx.export(view_model, torch.randn(2, 3, 16, 16), f"{work}/view_model.onnx",
                  input_names=["x"], output_names=["y"], opset_version=13,
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
rng = np.random.default_rng(7)
for batch in (1, 3, 8):
    x = rng.standard_normal((batch, 3, 16, 16)).astype(np.float32)
    np.save(f"{work}/x{batch}.npy", x)
    with torch.no_grad():
        np.save(f"{work}/ref{batch}.npy", model(torch.from_numpy(x)).numpy())
        np.save(f"{work}/view_ref{batch}.npy", view_model(torch.from_numpy(x)).numpy())
