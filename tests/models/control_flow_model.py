#!/usr/bin/python3
"""The control-flow model of control_flow_model_test.sh (TorchScript needs its source in a file):
writes WORK/model.onnx (opset 13: Loop over the count n, If on the sign of the sum), the inputs
x.npy, negx.npy and n{0,1,7,40}.npy, and PyTorch's outputs ref_{x,negx}_{n}.npy.
Usage: /usr/bin/python3 tests/models/control_flow_model.py WORK
"""
import sys

import numpy as np
import torch


class Cell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)

    def forward(self, x, n):
        h = x
        for _ in range(int(n)):
            h = torch.tanh(self.lin(h)) + x
        if h.sum() > 0:
            h = h * 2
        else:
            h = h - 1
        return h


work = sys.argv[1]
torch.manual_seed(0)
model = torch.jit.script(Cell())
x = torch.randn(2, 16)
torch.onnx.export(model, (x, torch.tensor(3)), f"{work}/model.onnx", input_names=["x", "n"],
                  output_names=["y"], opset_version=13)
np.save(f"{work}/x.npy", x.numpy())
np.save(f"{work}/negx.npy", (-x - 3).numpy())
for n in (0, 1, 7, 40):
    np.save(f"{work}/n{n}.npy", np.array(n, dtype=np.int64))
    for name, data in (("x", x), ("negx", -x - 3)):
        np.save(f"{work}/ref_{name}_{n}.npy", model(data, torch.tensor(n)).detach().numpy())
