"""The dataflow pattern language and MergeComposite with a pattern table, and seed 001's
partition rules written in Python (register_partition_function, QPartitionExpr,
partition_expr_check, _forward_op, Op.reset_attr) run by the C++ partition pass."""
import unittest

import numpy as np

import tessera
from tessera import relay
from tessera.relay import analysis as _analysis
from tessera.relay.dataflow_pattern import is_constant, is_op, is_var, wildcard
from tessera.relay.op import op as _op
from tessera.relay.quantize._partition import (QPartitionExpr, partition_expr_check,
                                                register_partition_function,
                                                restore_builtin_rules)
from tessera.relay.quantize.quantize import _forward_op

OPS = ["nn.conv2d", "nn.relu", "nn.max_pool2d", "add", "multiply", "clip",
       "nn.global_avg_pool2d"]


def seed001_module():
    """Seed 001's Model after prerequisite_optimize, written in Relay."""
    rng = np.random.default_rng(0)
    const = lambda *s: relay.const(rng.standard_normal(s).astype("float32"))  # noqa: E731
    data = relay.var("data", shape=(1, 3, 4, 4))
    x = relay.nn.relu(relay.nn.conv2d(data, const(16, 3, 3, 3), padding=(1, 1), channels=16,
                                      kernel_size=(3, 3)))
    x = relay.add(relay.nn.conv2d(x, const(16, 16, 3, 3), padding=(1, 1), channels=16,
                                  kernel_size=(3, 3)), const(16, 1, 1))
    x = relay.nn.max_pool2d(relay.nn.relu(x), pool_size=(2, 2), strides=(2, 2))
    x = relay.nn.batch_flatten(x)
    x = relay.nn.relu(relay.nn.dense(x, const(32, 64)))
    x = relay.nn.relu(relay.add(relay.nn.dense(x, const(16, 32)), const(16)))
    x = relay.add(relay.nn.dense(x, const(8, 16)), const(8))
    mod = tessera.IRModule.from_expr(relay.Function([data], x))
    return relay.transform.InferType()(mod)


def reset_partition():
    for op_name in OPS:
        _op.get(op_name).reset_attr("FQPartitionRewrite")


def identity_partition_function(ref_call, new_args, ctx):
    cond, expr = partition_expr_check(new_args[0])
    return QPartitionExpr(_forward_op(ref_call, [expr]))


def add_partition_generic(ref_call, new_args, ctx):
    lhs_cond, lhs = partition_expr_check(new_args[0])
    rhs_cond, rhs = partition_expr_check(new_args[1])
    if lhs_cond and rhs_cond:
        lhs = new_args[0].realize()
        rhs = new_args[1].realize()
        return QPartitionExpr(_forward_op(ref_call, [lhs, rhs]))
    if not lhs_cond and rhs_cond:
        rhs = new_args[1].realize()
        return _forward_op(ref_call, [lhs, rhs])
    if lhs_cond and not rhs_cond:
        if _analysis.check_constant(rhs):
            return QPartitionExpr(_forward_op(ref_call, [lhs, rhs]))
        lhs = new_args[0].realize()
        return _forward_op(ref_call, [lhs, rhs])
    if not lhs_cond and not rhs_cond:
        return None
    raise ValueError


class PatternTest(unittest.TestCase):
    def test_match_and_merge_composite(self):
        mod = seed001_module()
        conv_add = is_op("add")(is_op("nn.conv2d")(wildcard(), is_constant()), is_constant())
        conv_add_relu = conv_add.optional(lambda x: is_op("nn.relu")(x))
        dense = is_op("nn.dense")(wildcard(), is_constant())
        dense_add_relu = (is_op("add")(dense, is_constant()) | dense).optional(
            lambda x: is_op("nn.relu")(x))
        self.assertTrue(is_op("nn.relu")(wildcard()).match(mod["main"].body.args[0].args[0]))
        self.assertFalse(is_var("nope").match(mod["main"].body))
        table = [("conv_add_relu", conv_add_relu), ("dense_add_relu", dense_add_relu)]
        out = relay.transform.MergeComposite(table)(mod)
        text = out.astext()
        self.assertEqual(text.count('Composite="conv_add_relu"'), 1)
        self.assertEqual(text.count('Composite="dense_add_relu"'), 3)
        with self.assertRaises(tessera.DiagnosticError):
            relay.transform.MergeComposite([("x", dense, lambda e: True)])

    def test_has_attr(self):
        mod = seed001_module()
        pool = is_op("nn.max_pool2d")(wildcard()).has_attr({"pool_size": [2, 2]})
        self.assertIn('Composite="pool"', relay.transform.MergeComposite([("pool", pool)])(
            mod).astext())
        other = is_op("nn.max_pool2d")(wildcard()).has_attr({"pool_size": [3, 3]})
        self.assertNotIn("Composite", relay.transform.MergeComposite([("p", other)])(
            mod).astext())


class PartitionRulesTest(unittest.TestCase):
    def tearDown(self):
        restore_builtin_rules()
        for op_name in ("nn.dense",):
            _op.get(op_name).reset_attr("FQPartitionRewrite")

    def partition(self):
        return relay.quantize.partition()(seed001_module())["main"].astext()

    def test_reset_removes_every_region(self):
        self.assertIn("annotation.cast_hint", self.partition())
        reset_partition()
        self.assertNotIn("annotation.cast_hint", self.partition())

    def test_relu_rule_in_python(self):
        reset_partition()

        @register_partition_function("nn.relu")
        def _relu_partition(ref_call, new_args, ctx):
            return QPartitionExpr(_forward_op(ref_call, new_args))

        text = self.partition()
        # The relu's value leaves its region at the next conv2d (which has no rule now).
        self.assertIn('nn.relu(%0)', text)
        self.assertIn('annotation.cast_hint(%1, dtype="int8")', text)
        self.assertIn("annotation.stop_fusion(%2)", text)
        with self.assertRaises(tessera.DiagnosticError) as raised:
            register_partition_function("nn.relu", _relu_partition)
        self.assertEqual(raised.exception.code, "op_attr")

    def test_seed_dense_add_relu_rules(self):
        reset_partition()
        _op.get("nn.dense").reset_attr("FQPartitionRewrite")
        seen = []

        @register_partition_function("nn.dense")
        def dense_partition_function(ref_call, new_args, ctx):
            data_cond, data = partition_expr_check(new_args[0])
            kernel_cond, kernel = partition_expr_check(new_args[1])
            assert not kernel_cond
            if data_cond:
                seen.append(type(new_args[0]))
                data = new_args[0].realize()
            return QPartitionExpr(_forward_op(ref_call, [data, kernel]))

        register_partition_function("nn.relu", identity_partition_function)
        register_partition_function("nn.max_pool2d", identity_partition_function)
        register_partition_function("add", add_partition_generic)
        text = self.partition()
        self.assertEqual(seen, [QPartitionExpr, QPartitionExpr])
        self.assertEqual(text.count("nn.dense("), 3)
        self.assertGreaterEqual(text.count("annotation.cast_hint"), 3)

    def test_rule_exception_propagates(self):
        _op.get("nn.relu").reset_attr("FQPartitionRewrite")

        @register_partition_function("nn.relu")
        def failing(ref_call, new_args, ctx):
            raise KeyError("from the rule")

        with self.assertRaises(KeyError):
            self.partition()

    def test_only_python_callable_attributes(self):
        with self.assertRaises(tessera.DiagnosticError):
            tessera.ir.register_op_attr("nn.relu", "FTVMCompute", lambda *a: None)


if __name__ == "__main__":
    unittest.main()
