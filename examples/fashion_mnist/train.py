#!/usr/bin/python3
"""Trains the FashionMNIST models of the main job and exports them to ONNX.

Two models, both on 28x28 grey images scaled to [0, 1]:
  * mlp: the seed-002 MLP, 784 -> 128 -> ReLU -> 10, parameters named w0, b0, w1, b1 (w0 is
    128x784 and the layer computes x @ w0.T + b0, as the seed's numpy reference does);
  * cnn: conv(1->16, 3x3) -> ReLU -> maxpool 2 -> conv(16->32, 3x3) -> ReLU -> maxpool 2 ->
    flatten -> dense 1568 -> 10.
Outputs (next to this script unless --out is given): mlp.onnx, cnn.onnx (batch 1), samples.npz
(a few test images with labels, for the README's main command) and reference.npz (PyTorch's
predicted class for each of the 10,000 test images, per model, which `tessera eval` must match).

Needs Debian's python3-torch and dataset-fashion-mnist; run with /usr/bin/python3. Deterministic
(fixed seeds, one thread). Usage: /usr/bin/python3 examples/fashion_mnist/train.py [--epochs N]
"""
import argparse
import gzip
import pathlib

import numpy as np
import torch
from torch import nn

DATA = pathlib.Path("/usr/share/datasets/fashion-mnist")
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def load(kind):
    with gzip.open(DATA / f"{kind}-images-idx3-ubyte.gz") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(DATA / f"{kind}-labels-idx1-ubyte.gz") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return images.astype(np.float32) / 255.0, labels.astype(np.int64)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.w0 = nn.Parameter(torch.empty(128, 784))
        self.b0 = nn.Parameter(torch.zeros(128))
        self.w1 = nn.Parameter(torch.empty(10, 128))
        self.b1 = nn.Parameter(torch.zeros(10))
        nn.init.kaiming_uniform_(self.w0, a=5 ** 0.5)
        nn.init.kaiming_uniform_(self.w1, a=5 ** 0.5)

    def forward(self, x):
        x = x.reshape(x.shape[0], 784)
        return torch.relu(x @ self.w0.T + self.b0) @ self.w1.T + self.b1


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def train(model, images, labels, epochs):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    for epoch in range(epochs):
        order = torch.randperm(len(x))
        for start in range(0, len(x), 128):
            idx = order[start:start + 128]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
        print(f"  epoch {epoch + 1}: last batch loss {loss.item():.4f}")


def predict(model, images):
    with torch.no_grad():
        return model(torch.from_numpy(images)).argmax(1).numpy().astype(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    train_x, train_y = load("train")
    test_x, test_y = load("t10k")
    reference = {}
    for name, model, example in (("mlp", Mlp(), torch.zeros(1, 784)),
                                 ("cnn", Cnn(), torch.zeros(1, 1, 28, 28))):
        print(f"training {name}")
        train(model, train_x, train_y, args.epochs)
        model.eval()
        inputs = test_x.reshape(-1, 784) if name == "mlp" else test_x
        pred = predict(model, inputs)
        accuracy = float((pred == test_y).mean())
        print(f"  {name} test accuracy {accuracy:.4f}")
        reference[f"{name}_pred"] = pred
        reference[f"{name}_accuracy"] = np.array(accuracy)
        torch.onnx.export(model, example, args.out / f"{name}.onnx", input_names=["x"],
                          output_names=["logits"], opset_version=13,
                          do_constant_folding=True)
    np.savez(args.out / "reference.npz", labels=test_y.astype(np.uint8), **reference)
    picks = [0, 1, 2, 3, 4, 5, 6, 7]
    np.savez(args.out / "samples.npz", images=test_x[picks].reshape(len(picks), 784),
             labels=test_y[picks])
    print("wrote", ", ".join(f"{n}" for n in ("mlp.onnx", "cnn.onnx", "reference.npz", "samples.npz")))


if __name__ == "__main__":
    main()
