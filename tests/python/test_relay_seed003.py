"""Seed 003 (a Relay conv + batch_norm + relu block built in Python) with `tvm` replaced by
`tessera`: printing, the graph passes the seed runs, relay.build with the graph executor, and the
results against NumPy and the reference interpreter."""
import unittest

import numpy as np

import tessera
from tessera import relay
from tessera.contrib import graph_executor


# --- the seed's code, imports changed ---------------------------------------------------------
def batch_norm_infer(data, gamma=None, beta=None, moving_mean=None, moving_var=None, **kwargs):
    name = kwargs.get("name")
    kwargs.pop("name")
    if not gamma:
        gamma = relay.var(name + "_gamma")
    if not beta:
        beta = relay.var(name + "_beta")
    if not moving_mean:
        moving_mean = relay.var(name + "_moving_mean")
    if not moving_var:
        moving_var = relay.var(name + "_moving_var")
    return relay.nn.batch_norm(data, gamma=gamma, beta=beta, moving_mean=moving_mean,
                               moving_var=moving_var, **kwargs)[0]


def conv2d(data, weight=None, **kwargs):
    name = kwargs.get("name")
    kwargs.pop("name")
    if not weight:
        weight = relay.var(name + "_weight")
    return relay.nn.conv2d(data, weight, **kwargs)


def conv_block(data, name, channels, kernel_size=(3, 3), strides=(1, 1), padding=(1, 1),
               epsilon=1e-5):
    conv = conv2d(data=data, channels=channels, kernel_size=kernel_size, strides=strides,
                  padding=padding, data_layout="NCHW", name=name + "_conv")
    bn = batch_norm_infer(data=conv, epsilon=epsilon, name=name + "_bn")
    return relay.nn.relu(data=bn)


DATA_SHAPE = (1, 3, 16, 16)  # the seed's 224x224, smaller for a fast test


def make_module():
    data = relay.var("data", shape=DATA_SHAPE, dtype="float32")
    act = conv_block(data, "graph", 32, strides=(2, 2))
    func = relay.Function(relay.analysis.free_vars(act), act)
    mod = relay.Module.from_expr(func)
    return relay.transform.InferType()(mod)


def make_params(mod):
    shape_dict = {v.name_hint: v.checked_type for v in mod["main"].params}
    rng = np.random.default_rng(0)
    params = {}
    for k, v in shape_dict.items():
        if k == "data":
            continue
        init = rng.uniform(-1, 1, v.concrete_shape).astype(v.dtype)
        if k.endswith("moving_var"):
            init = np.abs(init) + 0.5
        params[k] = tessera.nd.array(init, device=tessera.cpu(0))
    return params


def numpy_reference(x, p):
    w = p["graph_conv_weight"].numpy()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out_h = (DATA_SHAPE[2] + 2 - 3) // 2 + 1
    conv = np.zeros((1, 32, out_h, out_h), "float64")
    for i in range(3):
        for j in range(3):
            patch = padded[:, :, i:i + 2 * out_h:2, j:j + 2 * out_h:2]
            conv += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    c = lambda name: p["graph_bn_" + name].numpy().reshape(1, -1, 1, 1)
    bn = (conv - c("moving_mean")) / np.sqrt(c("moving_var") + 1e-5) * c("gamma") + c("beta")
    return np.maximum(bn, 0)


class Seed003Test(unittest.TestCase):
    def setUp(self):
        self.mod = make_module()
        self.params = make_params(self.mod)
        self.x = np.random.default_rng(1).uniform(-1, 1, DATA_SHAPE).astype("float32")

    def test_prints_like_the_seed(self):
        text = self.mod.astext(show_meta_data=False)
        self.assertIn("nn.conv2d(%data, %graph_conv_weight, strides=[2, 2], padding=[1, 1], "
                      "channels=32, kernel_size=[3, 3])", text)
        self.assertIn("nn.batch_norm(%0, %graph_bn_gamma", text)
        self.assertIn("%2 = %1.0", text)
        self.assertIn("-> Tensor[(1, 32, 8, 8), float32]", text)
        self.assertEqual(str(self.mod["main"].checked_type.ret_type),
                         "Tensor[(1, 32, 8, 8), float32]")

    def test_text_round_trip(self):
        text = self.mod.astext(show_meta_data=True)
        self.assertTrue(tessera.ir.structural_equal(tessera.parser.parse(text), self.mod))
        self.assertTrue(tessera.ir.structural_equal(relay.fromtext(text), self.mod))

    def test_seed_optimize(self):
        # The seed's my_optimize: bind the params, then its Sequential of graph passes.
        func = relay.build_module.bind_params_by_name(self.mod["main"], self.params)
        optimize = tessera.transform.Sequential([
            relay.transform.SimplifyInference(), relay.transform.FoldConstant(),
            relay.transform.FoldScaleAxis(), relay.transform.CanonicalizeOps(),
            relay.transform.FoldConstant()])
        with tessera.transform.PassContext(opt_level=3):
            mod = optimize(relay.Module.from_expr(func))
        text = mod.astext(show_meta_data=False)
        self.assertIn("def @main(%data: Tensor[(1, 3, 16, 16), float32]", text)
        self.assertNotIn("batch_norm", text)
        self.assertNotIn("multiply", text)  # the scale is folded into the weights at level 3
        self.assertIn("add(%0, meta[relay.Constant][1]", text)
        ref = relay.create_executor("debug", mod=self.mod, params=self.params).evaluate()(self.x)
        got = relay.create_executor("debug", mod=mod).evaluate()(self.x)
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)

    def test_more_passes(self):
        mod = relay.transform.SimplifyInference()(self.mod)
        for p in (relay.transform.EliminateCommonSubexpr(),
                  relay.transform.CombineParallelConv2D(min_num_branches=2),
                  relay.transform.FoldConstant(), relay.transform.FuseOps(fuse_opt_level=2)):
            mod = p(mod)
        self.assertIn("Primitive=1", str(mod))

    def test_build_and_graph_executor(self):
        with tessera.transform.PassContext(opt_level=3):
            lib = relay.build(self.mod, "llvm", params=self.params)
        dev = tessera.cpu(0)
        module = graph_executor.GraphModule(lib["default"](dev))
        module.set_input("data", tessera.nd.array(self.x))
        module.run()
        out = module.get_output(0).numpy()
        self.assertEqual(out.shape, (1, 32, 8, 8))
        np.testing.assert_allclose(out, numpy_reference(self.x, self.params), rtol=1e-4,
                                   atol=1e-4)
        self.assertIn('"calls"', lib.get_graph_json())

    def test_legacy_build_tuple_and_create(self):
        with relay.build_config(opt_level=3):
            with self.assertWarns(DeprecationWarning):
                graph, lib, params = relay.build(self.mod, "llvm", params=self.params)
        module = graph_executor.create(graph, lib, tessera.cpu(0))
        module.run(data=self.x)
        np.testing.assert_allclose(module.get_output(0).numpy(),
                                   numpy_reference(self.x, self.params), rtol=1e-4, atol=1e-4)

    def test_hello_relay(self):
        # The seed's first program: a scalar int64 add.
        x = relay.expr.var("x", relay.scalar_type("int64"), dtype="int64")
        one = relay.expr.const(1, dtype="int64")
        add = relay.op.tensor.add(x, one)
        func = relay.expr.Function([x], add, relay.scalar_type("int64"))
        mod = relay.Module.from_expr(func)
        self.assertIn("add(%x, 1i64)", mod.astext(show_meta_data=False))
        out = relay.create_executor("graph", mod=mod).evaluate()(np.array(41, "int64"))
        self.assertEqual(int(out.numpy()), 42)


if __name__ == "__main__":
    unittest.main()
