"""tessera.frontend (pytest): from_pytorch (torch.onnx.export in memory + the C++ ONNX importer)
on a small CNN and on seed 002's MLP, and from_fx (torch.fx walked into the BlockBuilder) on seed
002's MLP and ResNet-18, each against PyTorch's own output; the mapping tables extended by a user;
bad input raising DiagnosticError.

Tolerances: float32 throughout; rtol=1e-4, atol=1e-5 for the one- and two-layer models, and
rtol=1e-3, atol=1e-4 for ResNet-18 (twenty convolutions accumulate rounding differences from
PyTorch's im2col/GEMM order)."""
import numpy as np
import pytest

import tessera
from tessera import relay, te
from tessera.contrib import graph_executor
from tessera.frontend import MAP_NN_MODULE, from_fx, from_pytorch, register_nn_module

torch = pytest.importorskip("torch")
nn = torch.nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(x, 1))


class MLP(nn.Module):  # seed 002's FashionMNIST model
    def __init__(self):
        super().__init__()
        self.linear0 = nn.Linear(784, 128, bias=True)
        self.relu = nn.ReLU()
        self.linear1 = nn.Linear(128, 10, bias=True)

    def forward(self, x):
        return self.linear1(self.relu(self.linear0(x)))


def randomize_bn(model, seed=0):
    """Non-trivial running statistics, so eval-mode batch norm is more than an identity."""
    gen = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
    return model.eval()


def run_relay(mod, name, x):
    with tessera.transform.PassContext(opt_level=3):
        lib = relay.build(mod, "llvm")
    module = graph_executor.GraphModule(lib["default"](tessera.cpu(0)))
    module.set_input(name, tessera.nd.array(x))
    module.run()
    return module.get_output(0).numpy()


def run_relax(mod, *args):
    vm = relax_vm(mod)
    return vm["main"](*[tessera.nd.array(a) for a in args]).numpy()


def relax_vm(mod):
    return tessera.relax.VirtualMachine(tessera.relax.build(mod, target="llvm"), tessera.cpu())


# --- from_pytorch ------------------------------------------------------------------------------

def test_from_pytorch_small_cnn():
    torch.manual_seed(0)
    model = randomize_bn(SmallCNN())
    x = torch.randn(1, 3, 8, 8)
    traced = torch.jit.trace(model, x)
    mod, params = from_pytorch(traced, [("data", (1, 3, 8, 8))])
    assert params == {}
    text = mod.astext(show_meta_data=False)
    assert "def @main(%data: Tensor[(1, 3, 8, 8), float32]" in text
    for op in ("nn.conv2d(", "nn.batch_norm(", "nn.relu(", "nn.max_pool2d(", "nn.dense("):
        assert op in text
    assert "-> Tensor[(1, 10), float32]" in text
    expected = model(x).detach().numpy()
    np.testing.assert_allclose(run_relay(mod, "data", x.numpy()), expected, rtol=1e-4, atol=1e-5)


def test_from_pytorch_seed_mlp_with_dtype_form():
    torch.manual_seed(1)
    model = MLP().eval()
    img = torch.rand(1, 784)
    # relay.frontend.from_pytorch is the same function, under TVM's path.
    mod, _ = relay.frontend.from_pytorch(torch.jit.trace(model, img),
                                         [("img", ((1, 784), "float32"))])
    text = str(mod)
    assert text.startswith("def @main(%img: Tensor[(1, 784), float32]")
    assert ") -> Tensor[(1, 10), float32] {" in text and text.count("nn.dense(") == 2
    got = run_relay(mod, "img", img.numpy())
    expected = model(img).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert np.argmax(got) == np.argmax(expected)


@pytest.mark.parametrize("input_info, needle", [
    ([], "non-empty list"),
    ("data", "non-empty list"),
    ([("data",)], "input_info[0] must be a (name, shape) pair"),
    ([(0, (1, 784))], "input_info[0] must be a (name, shape) pair"),
    ([("data", (1, "x"))], "the shape must be a list of ints"),
    ([("data", (1, -784))], "the shape must be positive ints"),
    ([("data", ((1, 784), "complex32"))], "unknown dtype 'complex32'"),
    ([("a", (1, 784)), ("a", (1, 784))], "input names must be distinct"),
])
def test_from_pytorch_bad_input_info(input_info, needle):
    with pytest.raises(tessera.DiagnosticError) as raised:
        from_pytorch(MLP().eval(), input_info)
    assert raised.value.code == "from_pytorch"
    assert needle in str(raised.value)


def test_from_pytorch_export_failure_and_wrong_model():
    # Two inputs for a one-input model: PyTorch's exporter fails; the error says so.
    with pytest.raises(tessera.DiagnosticError) as raised:
        from_pytorch(MLP().eval(), [("a", (1, 784)), ("b", (1, 784))])
    assert raised.value.code == "from_pytorch"
    assert "torch.onnx.export failed" in str(raised.value)
    with pytest.raises(tessera.DiagnosticError, match="must be a torch.nn.Module"):
        from_pytorch(lambda x: x, [("a", (1, 784))])
    # A shape PyTorch accepts but the model cannot take.
    with pytest.raises(tessera.DiagnosticError):
        from_pytorch(MLP().eval(), [("img", (1, 783))])


class Softplus(nn.Module):
    def forward(self, x):
        return nn.functional.softplus(torch.relu(x) * 2.0) + 1.0


def softplus_convert(inputs, input_types):
    """TVM's custom_convert_map signature: Relay inputs and their dtypes in, the Relay value out;
    softplus(x, beta, threshold) arrives with its scalars as constant inputs."""
    assert input_types[0] == "float32" and len(inputs) == 3
    return relay.log(relay.add(relay.exp(inputs[0]), relay.const(1.0)))


def test_from_pytorch_custom_convert_map():
    x = np.random.RandomState(0).randn(2, 5).astype("float32")
    traced = torch.jit.trace(Softplus().eval(), torch.from_numpy(x))
    mod, _ = from_pytorch(traced, [("x", (2, 5))],
                          custom_convert_map={"aten::softplus": softplus_convert})
    assert "log(" in mod.astext() and "exp(" in mod.astext()
    expected = Softplus()(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(run_relay(mod, "x", x), expected, rtol=1e-5, atol=1e-6)
    # The symbolic was registered for that export only: without the map PyTorch's own is used.
    plain, _ = from_pytorch(traced, [("x", (2, 5))])
    np.testing.assert_allclose(run_relay(plain, "x", x), expected, rtol=1e-5, atol=1e-6)


def test_from_pytorch_custom_convert_map_errors():
    traced = torch.jit.trace(Softplus().eval(), torch.zeros(2, 5))

    def broken(inputs, input_types):
        raise ValueError("converter failed")

    with pytest.raises(ValueError, match="converter failed"):
        from_pytorch(traced, [("x", (2, 5))], custom_convert_map={"aten::softplus": broken})
    with pytest.raises(TypeError, match="Relay expressions"):
        from_pytorch(traced, [("x", (2, 5))],
                     custom_convert_map={"aten::softplus": lambda inputs, types: 3})
    with pytest.raises(tessera.DiagnosticError) as info:
        from_pytorch(traced, [("x", (2, 5))], custom_convert_map={"softplus": broken})
    assert info.value.code == "from_pytorch"
    with pytest.raises(tessera.DiagnosticError) as info:  # two values for softplus's one output
        from_pytorch(traced, [("x", (2, 5))],
                     custom_convert_map={"aten::softplus": lambda inputs, types: inputs[:2]})
    assert info.value.code == "onnx_custom_op" and "2 values for 1 outputs" in str(info.value)


# --- from_fx -----------------------------------------------------------------------------------

def test_from_fx_seed_mlp():
    torch.manual_seed(2)
    model = MLP().eval()
    mod = from_fx(torch.fx.symbolic_trace(model), [((1, 784), "float32")])
    text = mod.script()
    for needle in ("def dense(", "def add(", "def relu(", "def dense1(", "def add1(",
                   "R.call_tir(cls.dense, (x, metadata", "R.Tensor((1, 10), dtype=\"float32\")"):
        assert needle in text, needle
    img = torch.rand(1, 784)
    np.testing.assert_allclose(run_relax(mod, img.numpy()), model(img).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def test_from_fx_small_cnn_functional_ops():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False)
            self.gap = nn.AdaptiveAvgPool2d((1, 1))
            self.flat = nn.Flatten()

        def forward(self, x, y):
            a = torch.relu(self.conv(x))
            b = torch.nn.functional.max_pool2d(a, 2) + 1.0
            z = self.flat(self.gap(b)) * 2
            return torch.matmul(z, y), z.view(z.size(0), -1)

    torch.manual_seed(3)
    model = Net().eval()
    x, y = torch.randn(1, 3, 8, 8), torch.randn(4, 5)
    mod = from_fx(model, [(1, 3, 8, 8), (4, 5)])  # an nn.Module is traced by from_fx
    vm = relax_vm(mod)
    got = vm["main"](tessera.nd.array(x.numpy()), tessera.nd.array(y.numpy()))
    want = model(x, y)
    assert len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_from_fx_resnet18():
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(4)
    model = randomize_bn(torchvision.models.resnet18(weights=None, num_classes=16))
    x = torch.randn(1, 3, 32, 32)
    mod = from_fx(torch.fx.symbolic_trace(model), [((1, 3, 32, 32), "float32")])
    text = mod.script()
    assert text.count("R.call_tir(cls.conv2d") == 20  # 16 3x3 + 3 downsample 1x1 + the stem
    assert "def adaptive_avg_pool2d(" in text and "def max_pool2d(" in text
    got = run_relax(mod, x.numpy())
    expected = model(x).detach().numpy()
    assert got.shape == (1, 16)
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)


def test_from_fx_user_mappings():
    # nn.Hardtanh (a leaf module for fx) and torch.neg are not in the built-in tables.
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.clamp = nn.Hardtanh(-2.0, 3.0)

        def forward(self, x):
            return torch.neg(self.clamp(x))

    with pytest.raises(tessera.DiagnosticError) as raised:
        from_fx(Net(), [(2, 3)])
    assert raised.value.code == "from_fx"
    assert "node 'clamp'" in str(raised.value)
    assert "no converter for module type Hardtanh (register_nn_module)" in str(raised.value)

    def map_hardtanh(bb, node_map, node, module):
        x = node_map[node.args[0]]
        return bb.emit_te(lambda a: te.compute(
            a.shape, lambda i, j: te.min(te.max(a[i, j], module.min_val), module.max_val),
            name="hardtanh"), x, primfunc_name_hint="hardtanh")

    def map_neg(bb, node_map, node):
        return bb.emit_te(tessera.topi.negative, node_map[node.args[0]])

    with pytest.raises(tessera.DiagnosticError, match="node 'neg'.*no converter for this function"):
        from_fx(Net(), [(2, 3)], map_nn_module={nn.Hardtanh: map_hardtanh})
    mod = from_fx(Net(), [(2, 3)], map_nn_module={nn.Hardtanh: map_hardtanh},
                  map_function={torch.neg: map_neg})
    assert "def hardtanh(" in mod.script() and "def negative(" in mod.script()
    x = np.array([[-5, -1, 0], [1, 2.5, 7]], dtype="float32")
    np.testing.assert_allclose(run_relax(mod, x), -np.clip(x, -2.0, 3.0))
    # Registered globally: every later import sees it.
    register_nn_module(nn.Hardtanh)(map_hardtanh)
    try:
        mod = from_fx(nn.Sequential(nn.Hardtanh(0.0, 1.0)), [(2, 3)])
        np.testing.assert_allclose(run_relax(mod, x), np.clip(x, 0.0, 1.0))
    finally:
        MAP_NN_MODULE.pop(nn.Hardtanh)


def test_from_fx_bad_input_info():
    with pytest.raises(tessera.DiagnosticError, match="the model has 1 inputs, input_info gives 2"):
        from_fx(MLP(), [(1, 784), (1, 784)])
    with pytest.raises(tessera.DiagnosticError, match="the shape must be a list of ints"):
        from_fx(MLP(), [("x", "float32")])
    train_bn = nn.Sequential(nn.BatchNorm2d(2)).train()
    with pytest.raises(tessera.DiagnosticError, match="eval mode"):
        from_fx(train_bn, [(1, 2, 3, 3)])
