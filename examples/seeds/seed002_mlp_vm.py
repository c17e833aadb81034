"""Seed 002, sections 4 and 5.4 (end-to-end model execution): the FashionMNIST MLP as NumPy and
as the seed's TVMScript modules on the Relax VM: MyModule (TensorIR linear0 and relu0),
MyModuleWithExternCall (env.linear and env.relu registered from Python, PyTorch through DLPack),
MyModuleMixture with its parameters bound (BindParams, printed as the seed prints it), and
linear0 tuned with tune_tir and swapped in with update_func; each prediction printed.

Changes from the seed: `tvm` is `tessera` (`from tessera.script import tir as T`, ...); the
parameters are the trained ones of examples/fashion_mnist/mlp.onnx, not
fasionmnist_mlp_params.pkl; the image is the first of Debian's FashionMNIST test set, not a
random one; tune_tir runs 16 trials, not 64."""
import gzip
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax
from tessera.script import relax as R
from tessera.script import tir as T

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


# --- 4.2-4.4 an end-to-end IRModule in TVMScript, built and run on the VM ----------------------
@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def relu0(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (1, n), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        for i, j in T.grid(1, n):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(x: T.handle,
                w: T.handle,
                b: T.handle,
                z: T.handle):
        m, n, k = T.int64(), T.int64(), T.int64()
        X = T.match_buffer(x, (1, m), "float32")
        W = T.match_buffer(w, (n, m), "float32")
        B = T.match_buffer(b, (n, ), "float32")
        Z = T.match_buffer(z, (1, n), "float32")
        Y = T.alloc_buffer((1, n), "float32")
        for i, j, k in T.grid(1, n, m):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, n):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, "m"), "float32"),
             w0: R.Tensor(("n", "m"), "float32"),
             b0: R.Tensor(("n", ), "float32"),
             w1: R.Tensor(("k", "n"), "float32"),
             b1: R.Tensor(("k", ), "float32")):
        m, n, k = T.int64(), T.int64(), T.int64()
        with R.dataflow():
            lv0 = R.call_dps_packed("linear0", (x, w0, b0), R.Tensor((1, n), "float32"))
            lv1 = R.call_dps_packed("relu0", (lv0, ), R.Tensor((1, n), "float32"))
            out = R.call_dps_packed("linear0", (lv1, w1, b1), R.Tensor((1, k), "float32"))
            R.output(out)
        return out


ex = relax.build(MyModule, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
data_nd = tvm.nd.array(img.reshape(1, 784))
nd_params = {k: tvm.nd.array(v) for k, v in mlp_params.items()}
nd_res = vm["main"](data_nd, nd_params["w0"], nd_params["b0"], nd_params["w1"], nd_params["b1"])
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModule Prediction:", classes[pred_kind[0]])


# --- 4.5 library functions registered by name, called through DLPack -------------------------
@tvm.script.ir_module
class MyModuleWithExternCall:
    @R.function
    def main(x: R.Tensor((1, "m"), "float32"),
             w0: R.Tensor(("n", "m"), "float32"),
             b0: R.Tensor(("n", ), "float32"),
             w1: R.Tensor(("k", "n"), "float32"),
             b1: R.Tensor(("k", ), "float32")):
        # block 0
        m, n, k = T.int64(), T.int64(), T.int64()
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), R.Tensor((1, n), "float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0, ), R.Tensor((1, n), "float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, k), "float32"))
            R.output(out)
        return out


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


ex = relax.build(MyModuleWithExternCall, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd, nd_params["w0"], nd_params["b0"], nd_params["w1"], nd_params["b1"])
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModuleWithExternCall Prediction:", classes[pred_kind[0]])


# --- 4.6-4.7 and 5.4: TensorIR and library mixed, parameters bound, linear0 tuned -------------
@tvm.script.ir_module
class MyModuleMixture:
    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"),
                W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"),
                Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"),
             w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"),
             w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_dps_packed("linear0", (x, w0, b0), R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out


MyModuleWithParams = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
print(MyModuleWithParams.script())
ex = relax.build(MyModuleWithParams, target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
nd_res = vm["main"](data_nd)
pred_kind = np.argmax(nd_res.numpy(), axis=1)
print("MyModuleWithParams Prediction:", classes[pred_kind[0]])
ftimer = vm.module.time_evaluator("main", tvm.cpu(), number=100)
print("==========Attempt %d,time-cost:%.9f ms=======" % (0, ftimer(data_nd).mean * 1000))

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
ftimer = vm.module.time_evaluator("main", tvm.cpu(), number=100)
print("==========Attempt %d,time-cost:%.9f ms=======" % (0, ftimer(data_nd).mean * 1000))
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
