"""Seed 002, sections 4 (end-to-end model execution): the FashionMNIST MLP as NumPy, as a Relax
module built for the VM from a TensorIR linear0 and registered library functions (env.linear,
env.relu as PyTorch through DLPack), BindParams, and linear0 tuned with tune_tir and swapped in
with update_func; each prediction printed, as in the seed.

Changes from the seed: the TVMScript classes (MyModule, MyModuleMixture) are built with the
BlockBuilder and te.create_prim_func (`tessera.script` parsing is another issue); the parameters
are the trained ones of examples/fashion_mnist/mlp.onnx, not fasionmnist_mlp_params.pkl; the
image is the first of Debian's FashionMNIST test set, not a random one; tune_tir runs 16 trials,
not 64."""
import gzip
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax, te

HERE = os.path.dirname(os.path.abspath(__file__))
classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def numpy_mlp(data, w0, b0, w1, b1):
    linear0 = data @ w0.T + b0
    relu = np.maximum(linear0, 0)
    linear1 = relu @ w1.T + b1
    return linear1


# The trained parameters (w0 is 128x784: the layer computes x @ w0.T + b0).
model = onnx.load(os.path.join(HERE, "..", "fashion_mnist", "mlp.onnx"))
init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
matmuls = sorted(k for k in init if k.startswith("onnx::MatMul"))
mlp_params = {"w0": np.ascontiguousarray(init[matmuls[0]].T), "b0": init["b0"],
              "w1": np.ascontiguousarray(init[matmuls[1]].T), "b1": init["b1"]}
with gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz") as f:
    img = np.frombuffer(f.read(), np.uint8, offset=16, count=784).astype("float32") / 255.0
with gzip.open("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz") as f:
    label = np.frombuffer(f.read(), np.uint8, offset=8, count=1)[0]
print(f"Label: {label} ({classes[label]})")

res = numpy_mlp(img.reshape(1, 784), mlp_params["w0"], mlp_params["b0"], mlp_params["w1"],
                mlp_params["b1"])
pred_kind = np.argmax(res, axis=1)
print("预测的类别:", classes[pred_kind[0]])


# --- MyModule: linear0 and relu0 as TensorIR, main calling them with call_dps_packed ----------
def te_linear(X, W, B):
    k = te.reduce_axis((0, X.shape[1]), name="k")
    Y = te.compute((X.shape[0], W.shape[0]), lambda i, j: te.sum(X[i, k] * W[j, k], axis=k),
                   name="Y")
    return te.compute(Y.shape, lambda i, j: Y[i, j] + B[j], name="Z")


def prim_func(shapes, fcompute, name):
    args = [te.placeholder(s, name=n) for n, s in shapes]
    return te.create_prim_func(args + [fcompute(*args)]).with_attr("global_symbol", name)


def mlp_module(linear0, relu0, linear1):
    x = relax.Var("x", relax.TensorStructInfo((1, 784), "float32"))
    w0 = relax.Var("w0", relax.TensorStructInfo((128, 784), "float32"))
    b0 = relax.Var("b0", relax.TensorStructInfo((128,), "float32"))
    w1 = relax.Var("w1", relax.TensorStructInfo((10, 128), "float32"))
    b1 = relax.Var("b1", relax.TensorStructInfo((10,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", params=[x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit(relax.call_dps_packed(linear0, (x, w0, b0),
                                                relax.TensorStructInfo((1, 128), "float32")),
                          "lv0")
            lv1 = bb.emit(relax.call_dps_packed(relu0, (lv0,),
                                                relax.TensorStructInfo((1, 128), "float32")),
                          "lv1")
            out = bb.emit_output(relax.call_dps_packed(
                linear1, (lv1, w1, b1), relax.TensorStructInfo((1, 10), "float32")), "out")
        bb.emit_func_output(out)
    return bb.get()


MyModule = mlp_module("linear0", "relu0", "linear1")
MyModule["linear0"] = prim_func([("X", (1, 784)), ("W", (128, 784)), ("B", (128,))],
                                te_linear, "linear0")
MyModule["linear1"] = prim_func([("X", (1, 128)), ("W", (10, 128)), ("B", (10,))],
                                te_linear, "linear1")
MyModule["relu0"] = prim_func([("X", (1, 128))], lambda X: te.compute(
    X.shape, lambda i, j: te.max(X[i, j], 0), name="Y"), "relu0")
print(MyModule.script())

ex = relax.build(MyModule, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
data_nd = tvm.nd.array(img.reshape(1, 784))
nd_params = {k: tvm.nd.array(v) for k, v in mlp_params.items()}
nd_res = vm["main"](data_nd, nd_params["w0"], nd_params["b0"], nd_params["w1"], nd_params["b1"])
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModule Prediction:", classes[pred_kind[0]])


# --- Library functions registered by name, called through DLPack ------------------------------
@tvm.register_func("env.linear", override=True)
def torch_linear(x: tvm.nd.NDArray, w: tvm.nd.NDArray, b: tvm.nd.NDArray, out: tvm.nd.NDArray):
    x_torch = torch.from_dlpack(x)
    w_torch = torch.from_dlpack(w)
    b_torch = torch.from_dlpack(b)
    out_torch = torch.from_dlpack(out)
    torch.mm(x_torch, w_torch.T, out=out_torch)
    torch.add(out_torch, b_torch, out=out_torch)


@tvm.register_func("env.relu", override=True)
def lnumpy_relu(x: tvm.nd.NDArray, out: tvm.nd.NDArray):
    x_torch = torch.from_dlpack(x)
    out_torch = torch.from_dlpack(out)
    torch.maximum(x_torch, torch.Tensor([0.0]), out=out_torch)


MyModuleWithExternCall = mlp_module("env.linear", "env.relu", "env.linear")
ex = relax.build(MyModuleWithExternCall, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd, nd_params["w0"], nd_params["b0"], nd_params["w1"], nd_params["b1"])
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModuleWithExternCall Prediction:", classes[pred_kind[0]])

# --- Mixing TensorIR and library code; binding the parameters ---------------------------------
MyModuleMixture = mlp_module("linear0", "env.relu", "env.linear")
MyModuleMixture["linear0"] = MyModule["linear0"]
MyModuleWithParams = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
print(MyModuleWithParams.script())
ex = relax.build(MyModuleWithParams, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd)
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModuleWithParams Prediction:", classes[pred_kind[0]])
ftimer = vm.module.time_evaluator("main", tvm.cpu(), number=100)
print("==========Attempt %d,time-cost:%.9f ms=======" % (0, ftimer(data_nd).mean * 1000))

# --- linear0 tuned (tune_tir) and swapped in with update_func --------------------------------
mod_linear = tvm.IRModule.from_expr(MyModuleMixture["linear0"].with_attr("global_symbol", "main"))
database = ms.tune_tir(
    mod=mod_linear,
    target="llvm --num-cores=1",
    max_trials_global=16,  # the seed's 64, fewer for a quick run
    num_trials_per_iter=16,
    work_dir="./tune_tmp",
    task_name="main",
)
sch = ms.tir_integration.compile_tir(database, mod_linear, "llvm --num-cores=1")
MyModuleWithParams2 = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
new_func = sch.mod["main"].with_attr("global_symbol", "linear0")
gv = MyModuleWithParams2.get_global_var("linear0")
MyModuleWithParams2.update_func(gv, new_func)
ex = relax.build(MyModuleWithParams2, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd)
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModuleWithParams2 Prediction:", classes[pred_kind[0]])
print("max |MyModuleWithParams2 - numpy|:", float(np.abs(nd_res.numpy() - res).max()))

# Not in the seed: the first 200 test images through the VM, against PyTorch's predictions
# (examples/fashion_mnist/reference.npz) and the labels.
count = 200
with gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz") as f:
    images = np.frombuffer(f.read(), np.uint8, offset=16, count=784 * count)
images = images.reshape(count, 1, 784).astype("float32") / 255.0
reference = np.load(os.path.join(HERE, "..", "fashion_mnist", "reference.npz"))
preds = np.array([np.argmax(vm["main"](tvm.nd.array(im)).numpy()) for im in images])
print("agrees with PyTorch on %d/%d images, accuracy %.3f" % (
    (preds == reference["mlp_pred"][:count]).sum(), count,
    (preds == reference["labels"][:count]).mean()))
