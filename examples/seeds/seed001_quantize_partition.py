"""Seed 001 (quantization partitioning) with `tvm` replaced by `tessera`: the seed's PyTorch model
imported with relay.frontend.from_pytorch, prerequisite_optimize, the partition pass with the
built-in rules, with none (reset_attr), and with the seed's rules written in Python
(register_partition_function, QPartitionExpr, partition_expr_check, _forward_op); then a full
quantize with kl_divergence calibration and FuseOps on the result.

Changes from the seed: `import set_env` and `use_parser_friendly_name=` are dropped; the
built-in rules are put back at the end (`restore_builtin_rules`, not in TVM)."""
import numpy as np
import torch
from torch import nn

import tessera as tvm
from tessera import relay
from tessera.relay import analysis as _analysis
from tessera.relay.op import op as _op
from tessera.relay.quantize._partition import (
    partition_expr_check,
    QPartitionExpr,
    register_partition_function,
    restore_builtin_rules,
)
from tessera.relay.quantize.quantize import _forward_op


class Model(nn.Module):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.conv = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.conv2 = nn.Conv2d(16, 16, 3, 1, 1, bias=True)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2)
        self.dense1 = nn.Linear(64, 32, bias=False)
        self.dense2 = nn.Linear(32, 16)
        self.dense3 = nn.Linear(16, 8)

    def forward(self, x):
        x = self.conv(x)
        x = self.relu(x)
        x = self.conv2(x)
        x = self.relu(x)
        x = self.pool(x)
        x = x.flatten(1)
        x = self.dense1(x)
        x = self.relu(x)
        x = self.dense2(x)
        x = self.relu(x)
        x = self.dense3(x)
        return x


torch.manual_seed(0)
np.random.seed(0)
input_shape = (1, 3, 4, 4)
input_dtype = "float32"
data_np = np.random.rand(*input_shape).astype(input_dtype)
with torch.no_grad():
    pt_model = Model().eval().float()
    traced_model = torch.jit.trace(pt_model, torch.from_numpy(data_np)).eval()
mod, params = relay.frontend.from_pytorch(traced_model, [("data", input_shape)])
with tvm.transform.PassContext(opt_level=3):
    mod = relay.quantize.prerequisite_optimize(mod, params)
print(mod["main"])

print("== partition, built-in rules")
print(relay.quantize.partition()(mod)["main"])


def reset_partition():
    op_names = ["nn.conv2d", "nn.relu", "nn.max_pool2d", "add", "multiply", "clip",
                "nn.global_avg_pool2d"]
    for op_name in op_names:
        _op.get(op_name).reset_attr("FQPartitionRewrite")


print("== partition, no rules")
reset_partition()
print(relay.quantize.partition()(mod)["main"])

print("== partition, a relu rule")
_op.get("nn.relu").reset_attr("FQPartitionRewrite")


@register_partition_function("nn.relu")
def _relu_partition(ref_call, new_args, ctx):
    return QPartitionExpr(_forward_op(ref_call, new_args))


print(relay.quantize.partition()(mod)["main"])


def identity_partition_function(ref_call, new_args, ctx):
    cond, expr = partition_expr_check(new_args[0])
    return QPartitionExpr(_forward_op(ref_call, [expr]))


print("== partition, dense + add + relu rules")
reset_partition()
_op.get("nn.dense").reset_attr("FQPartitionRewrite")


def add_partition_generic(ref_call, new_args, ctx):
    """Rewrite function for ewise add for partition for generic devices"""
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


@register_partition_function("nn.dense")
def dense_partition_function(ref_call, new_args, ctx):
    """Rewrite function for dense for partition"""
    data_cond, data = partition_expr_check(new_args[0])
    kernel_cond, kernel = partition_expr_check(new_args[1])
    assert not kernel_cond
    if data_cond:
        print(type(new_args[0]))
        data = new_args[0].realize()
    ret = _forward_op(ref_call, [data, kernel])
    return QPartitionExpr(ret)


register_partition_function("nn.relu", identity_partition_function)
register_partition_function("nn.max_pool2d", identity_partition_function)
register_partition_function("add", add_partition_generic)
run_mod = relay.quantize.partition()(mod)
print(run_mod["main"])


def dataset():
    for _ in range(1):
        data = np.random.normal(size=(1, 3, 4, 4)).astype("float32")
        yield {"data": data}


print("== quantize (kl_divergence) and FuseOps")
with tvm.transform.PassContext(opt_level=3):
    with relay.quantize.qconfig(
        calibrate_mode="kl_divergence",
        weight_scale="max",
        skip_conv_layers=[],
        skip_dense_layer=False,
    ):
        qmod = relay.quantize.quantize(mod, params, dataset())
print(relay.transform.FuseOps()(qmod))

# Not in the seed: the quantized model against PyTorch on the calibration-like input.
x = np.random.normal(size=input_shape).astype("float32")
int8_out = relay.create_executor("graph", mod=qmod).evaluate()(x).numpy()
float_out = pt_model(torch.from_numpy(x)).detach().numpy()
print("quantized vs PyTorch, max abs difference:", float(np.abs(int8_out - float_out).max()))
restore_builtin_rules()
_op.get("nn.dense").reset_attr("FQPartitionRewrite")
