"""Seed 002, section 6: a PyTorch model traced by torch.fx and translated node by node into a
BlockBuilder with emit_te (the seed's own from_fx, map_param and mapping functions, with `tvm`
replaced by `tessera`), built for the Relax VM and compared with PyTorch's output."""
import unittest

import numpy as np

import tessera
from tessera import relax, te, topi

try:
    import torch
    from torch import fx, nn
except ImportError:  # python3-torch is optional
    torch = None


def map_param(param):
    return relax.const(
        param.data.cpu().numpy(), relax.TensorStructInfo(param.data.shape, "float32")
    )


def fetch_attr(fx_mod, target: str):
    """Helper function to fetch an attr"""
    target_atoms = target.split('.')
    attr_itr = fx_mod
    for i, atom in enumerate(target_atoms):
        if not hasattr(attr_itr, atom):
            raise RuntimeError(f"Node referenced nonexistant target {'.'.join(target_atoms[:i])}")
        attr_itr = getattr(attr_itr, atom)
    return attr_itr


def from_fx(fx_mod, input_shapes, call_function_map, call_module_map):
    input_index = 0
    node_map = {}
    named_modules = dict(fx_mod.named_modules())

    bb = relax.BlockBuilder()

    fn_inputs = []
    fn_output = None
    with bb.function("main"):
        with bb.dataflow():
            for node in fx_mod.graph.nodes:
                if node.op == "placeholder":
                    # create input placeholder
                    shape = input_shapes[input_index]
                    input_index += 1
                    input_var = relax.Var(
                        node.target, relax.TensorStructInfo(shape, "float32")
                    )
                    fn_inputs.append(input_var)
                    node_map[node] = input_var
                elif node.op == "get_attr":
                    node_map[node] = map_param(fetch_attr(fx_mod, node.target))
                elif node.op == "call_function":
                    node_map[node] = call_function_map[node.target](bb, node_map, node)
                elif node.op == "call_module":
                    named_module = named_modules[node.target]
                    node_map[node] = call_module_map[type(named_module)](
                        bb, node_map, node, named_module)
                elif node.op == "output":
                    output = node_map[node.args[0]]
                    assert fn_output is None
                    fn_output = bb.emit_output(output)
        # output and finalize the function
        bb.emit_func_output(output, fn_inputs)

    return bb.get()


def te_matmul(A, B):
    assert A.shape[1] == B.shape[0]
    n = A.shape[0]
    m = B.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda i, j: te.max(A[i, j], 0), name="relu")


def map_matmul(bb, node_map, node):
    A = node_map[node.args[0]]
    B = node_map[node.args[1]]
    return bb.emit_te(te_matmul, A, B)


def map_relu(bb, node_map, node):
    A = node_map[node.args[0]]
    return bb.emit_te(te_relu, A)


def map_nn_linear(bb, node_map, node, nn_mod):
    x = node_map[node.args[0]]
    w = map_param(nn_mod.weight)
    if nn_mod.bias is not None:
        b = map_param(nn_mod.bias)
    y = bb.emit_te(topi.nn.dense, x, w)
    return bb.emit_te(topi.add, y, b)


def map_nn_relu(bb, node_map, node, nn_mod):
    return map_relu(bb, node_map, node)


def run(mod, x):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tessera.cpu())
    return vm["main"](tessera.nd.array(x)).numpy()


@unittest.skipIf(torch is None, "python3-torch is not installed")
class FromFxTest(unittest.TestCase):
    def test_matmul_relu_model(self):
        class MyModel(nn.Module):
            def __init__(self):
                super(MyModel, self).__init__()
                self.weight = nn.Parameter(torch.randn(128, 128))

            def forward(self, x):
                x = torch.matmul(x, self.weight)
                x = torch.relu(x)
                return x

        torch.manual_seed(0)
        model = MyModel()
        fx_module = fx.symbolic_trace(model)
        MyModule = from_fx(
            fx_module,
            input_shapes=[(1, 128)],
            call_function_map={
                torch.matmul: map_matmul,
                torch.relu: map_relu,
            },
            call_module_map={},
        )
        text = MyModule.script()
        self.assertIn("def te_matmul(", text)
        self.assertIn("R.call_tir(cls.te_relu", text)
        x = torch.randn(1, 128)
        np.testing.assert_allclose(run(MyModule, x.numpy()), model(x).detach().numpy(),
                                   rtol=1e-4, atol=1e-4)

    def test_fashion_mnist_mlp(self):
        class MLP(nn.Module):
            def __init__(self):
                super(MLP, self).__init__()
                self.linear0 = nn.Linear(784, 128, bias=True)
                self.relu = nn.ReLU()
                self.linear1 = nn.Linear(128, 10, bias=True)

            def forward(self, x):
                x = self.linear0(x)
                x = self.relu(x)
                x = self.linear1(x)
                return x

        torch.manual_seed(0)
        mlp_model = MLP()
        MLPModule = from_fx(
            fx.symbolic_trace(mlp_model),
            input_shapes=[(1, 784)],
            call_function_map={
            },
            call_module_map={
                torch.nn.Linear: map_nn_linear,
                torch.nn.ReLU: map_nn_relu,
            },
        )
        text = MLPModule.script()
        for name in ("def dense(", "def add(", "def te_relu(", "def dense1(", "def add1("):
            self.assertIn(name, text)
        img = torch.rand(1, 784)
        torch_res = mlp_model(img).detach().numpy()
        np.testing.assert_allclose(run(MLPModule, img.numpy()), torch_res, rtol=1e-4,
                                   atol=1e-4)
        self.assertEqual(np.argmax(run(MLPModule, img.numpy()), axis=1), np.argmax(torch_res))


if __name__ == "__main__":
    unittest.main()
