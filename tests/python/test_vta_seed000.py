"""Seed 000 (000_116a324a724edcb2.txt) from Python with tessera.vta: the conv+bn+relu model
quantized under PassContext(opt_level=3) + qconfig(skip_conv_layers=[], weight_scale="max"),
graph_pack'ed, and run through the seed's prepare_transform Sequential; each printout compared
with its golden (tests/golden/text, `//` header lines and span=... dropped, as the C++ tests do).
The model is built with the relay builder as TVM's PyTorch frontend gives it (from_pytorch is not
bound; tests/unit/quantize/seed000_model.h)."""
import json
import os
import re
import tempfile
import unittest
from copy import deepcopy

import numpy as np

import tessera as tvm
from tessera import relay
from tessera import vta
# The seed's `from vta_utils.pack_tool import ...` and `from vta_utils.vta_pattern import ...`.
from tessera.vta.pack_tool import graph_pack, WithVTAFunctionTransform
from tessera.vta.vta_pattern import (
    preprocessing_pattern,
    pad_reshape_transpose_pattern,
    conv_add_activate_pattern,
    output_pattern,
)

SOURCE = os.environ.get("TESSERA_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))


def golden(name):
    with open(os.path.join(SOURCE, "tests", "golden", "text", name)) as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("//")]
    return re.sub(r" span=[^ ]*:[0-9]+:[0-9]+", "", "\n".join(lines) + "\n")


def printed(mod):
    return re.sub(r" span=[^ ]*:[0-9]+:[0-9]+", "", str(mod))


def seed_model():
    """nn.Conv2d(3, 36, 3, 1, 1, bias=True) + BatchNorm2d(36) (fresh) + ReLU, as from_pytorch
    gives it."""
    rng = np.random.default_rng(0)
    bound = 1 / np.sqrt(27.0)
    data = relay.var("data", shape=(1, 3, 4, 4), dtype="float32")
    weight = relay.const(rng.uniform(-bound, bound, (36, 3, 3, 3)).astype("float32"))
    bias = relay.const(rng.uniform(-bound, bound, (36,)).astype("float32"))
    y = relay.nn.conv2d(data, weight, padding=(1, 1, 1, 1), channels=36, kernel_size=(3, 3))
    y = relay.nn.bias_add(y, bias)
    ones = relay.const(np.ones(36, "float32"))
    zeros = relay.const(np.zeros(36, "float32"))
    y = relay.nn.batch_norm(y, ones, zeros, zeros, ones)[0]
    y = relay.nn.relu(y)
    mod = tvm.IRModule.from_expr(relay.Function([data], y))
    return relay.transform.InferType()(mod)


class Seed000Test(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        mod = seed_model()
        # 量化
        with tvm.transform.PassContext(opt_level=3):
            with relay.quantize.qconfig(skip_conv_layers=[], weight_scale="max",):
                cls.mod = relay.quantize.quantize(mod, {})

    def test_quantized_printout(self):
        self.assertEqual(printed(self.mod), golden("seed000_quantized.relay"))

    def test_env(self):
        env = vta.get_env()
        self.assertEqual((env.BATCH, env.BLOCK_IN, env.BLOCK_OUT), (1, 16, 16))
        self.assertEqual((env.INP_WIDTH, env.WGT_WIDTH, env.ACC_WIDTH), (8, 8, 32))
        self.assertEqual((env.inp_dtype, env.wgt_dtype, env.acc_dtype), ("int8", "int8", "int32"))
        self.assertEqual(env.inp_scope, "local.inp_buffer")
        self.assertEqual(env.acc_scope, "local.acc_buffer")
        self.assertEqual((env.dma_copy, env.alu), ("dma_copy", "alu"))
        self.assertEqual(env.gemm, "vta.gemm")
        self.assertEqual(env.target, "sim")
        # A vta_config.json of another shape.
        config = json.loads(env.to_json())
        config["LOG_BATCH"] = 1
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "vta_config.json")
            with open(path, "w") as f:
                json.dump(config, f)
            other = vta.get_env(path)
        self.assertEqual((other.BATCH, other.BLOCK_OUT), (2, 16))
        self.assertEqual(other.gemm, "vta.gemm_2x16x16")
        self.assertIs(vta.get_env(), env)

    def test_graph_pack_printout(self):
        env = vta.get_env()
        bfactor = env.BATCH
        cfactor = env.BLOCK_OUT
        weight_bits = env.WGT_WIDTH
        run_mod = deepcopy(self.mod)
        new_fn = graph_pack(run_mod["main"], bfactor, cfactor, weight_bits)
        self.assertIsInstance(new_fn, relay.Function)
        self.assertEqual(printed(tvm.IRModule.from_expr(new_fn)),
                         golden("seed000_graph_pack.relay"))

    def test_merge_composite_printout(self):
        pattern_table = [
            ("vta_preprocessing", preprocessing_pattern()),
            ("vta_reshape_transpose", pad_reshape_transpose_pattern()),
            ("vta_conv2d", conv_add_activate_pattern()),
            ("vta_output", output_pattern()),
        ]
        env = vta.get_env()
        bfactor = env.BATCH
        cfactor = env.BLOCK_OUT
        weight_bits = env.WGT_WIDTH
        prepare_transform = tvm.transform.Sequential([
            relay.transform.InferType(),
            relay.transform.FoldConstant(),  # 折叠常量参数
            relay.transform.MergeComposite(pattern_table),  # 算子融合
            WithVTAFunctionTransform(),  # 为融合函数 vta_conv2d 添加 ConvAttrs 属性
            relay.transform.InferType(),
        ])
        run_mod = deepcopy(self.mod)
        with tvm.transform.PassContext(opt_level=3):
            new_fn = graph_pack(run_mod["main"], bfactor, cfactor, weight_bits)
            run_mod = tvm.IRModule.from_expr(new_fn)
            run_mod = prepare_transform(run_mod)
        self.assertEqual(printed(run_mod), golden("seed000_merge_composite.relay"))

    def test_tvm_region_variant(self):
        # TVM's graph_pack with a start and stop name: the result is unpacked at the stop.
        x = relay.var("x", shape=(1, 32, 8, 8), dtype="int8")
        w = relay.const(np.ones((32, 32, 3, 3), "int8"))
        y = relay.nn.max_pool2d(x, pool_size=(2, 2), padding=(0, 0, 1, 1))
        y = relay.nn.conv2d(y, w, padding=(1, 1), channels=32, kernel_size=(3, 3),
                            out_dtype="int32")
        y = relay.nn.global_avg_pool2d(y)
        fn = relay.Function([x], y)
        packed = graph_pack(fn, 1, 16, 8, start_name="nn.max_pool2d",
                            stop_name="nn.global_avg_pool2d")
        text = str(tvm.IRModule.from_expr(packed))
        self.assertIn('data_layout="NCHW1n16c", kernel_layout="OIHW16o16i"', text)
        with self.assertRaises(tvm.DiagnosticError) as raised:
            graph_pack(fn, 1, 16, 8, start_name="nn.no_such_op")
        self.assertEqual(raised.exception.code, "graph_pack")


if __name__ == "__main__":
    unittest.main()
