"""Seed 003 (Relay and graph optimization) with `tvm` replaced by `tessera`: the hello-world
program, a conv + batch_norm + relu block built with the Relay API, relay.build with the graph
executor, and the seed's my_optimize Sequential printed before and after.

Changes from the seed: `relay.build_config` is `tessera.transform.PassContext`, `graph_runtime`
is `contrib.graph_executor`, `_bind_params` is `relay.build_module.bind_params_by_name`, and the
image is 56x56 (the seed's 224x224 only takes longer)."""
import numpy as np

import tessera as tvm
from tessera import relay
from tessera.contrib import graph_executor

# --- Hello Relay ---------------------------------------------------------------------------
x = relay.expr.var("x", relay.scalar_type("int64"), dtype="int64")
one = relay.expr.const(1, dtype="int64")
add = relay.op.tensor.add(x, one)
func = relay.expr.Function([x], add, relay.scalar_type("int64"))
mod = relay.Module.from_expr(func)  # note this API
print("Relay module function:\n", mod.astext(show_meta_data=False))
with tvm.transform.PassContext(opt_level=3):
    graph, lib, params = tvm.relay.build(mod, "llvm", params={})
print("TVM graph:\n", graph)
print("TVM parameters:\n", params)


# --- A convolution block -------------------------------------------------------------------
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
    act = relay.nn.relu(data=bn)
    return act


data_shape = (1, 3, 56, 56)
dtype = "float32"
data = relay.var("data", shape=data_shape, dtype=dtype)
act = conv_block(data, "graph", 32, strides=(2, 2))
func = relay.Function(relay.analysis.free_vars(act), act)
mod = relay.Module.from_expr(func)
mod = relay.transform.InferType()(mod)
shape_dict = {v.name_hint: v.checked_type for v in mod["main"].params}
np.random.seed(0)
params = {}
for k, v in shape_dict.items():
    if k == "data":
        continue
    init_value = np.random.uniform(-1, 1, v.concrete_shape).astype(v.dtype)
    if k.endswith("moving_var"):  # a variance is positive (the seed's may be negative: NaNs)
        init_value = np.abs(init_value)
    params[k] = tvm.nd.array(init_value, ctx=tvm.cpu(0))

target = "llvm"
ctx = tvm.context(target, 0)
print("Relay module function:\n", mod.astext(show_meta_data=False))
print("TVM parameters:\n", params.keys())
with tvm.transform.PassContext(opt_level=3):
    graph, lib, params2 = relay.build(mod, target, params=params)
print("TVM graph:\n", graph)
print("TVM parameters:\n", params2.keys())

module = graph_executor.create(graph, lib, ctx)
data_tvm = tvm.nd.array((np.random.uniform(-1, 1, size=data_shape)).astype(dtype))
module.set_input("data", data_tvm)
module.run()
output = module.get_output(0)
reference = relay.create_executor("debug", mod=mod, params=params).evaluate()(data_tvm)
print("output", output.shape, "max |graph - interpreter|:",
      float(np.abs(output.numpy() - reference.numpy()).max()))


# --- Graph optimization with the Python API ------------------------------------------------
def my_optimize(func, params=None):
    if params:
        graph = relay.build_module.bind_params_by_name(func, params)
    optimize = relay.transform.Sequential([relay.transform.SimplifyInference(),
                                           relay.transform.FoldConstant(),
                                           relay.transform.FoldScaleAxis(),
                                           relay.transform.CanonicalizeOps(),
                                           relay.transform.FoldConstant()])
    mod = relay.Module.from_expr(graph)
    mod = optimize(mod)
    return mod["main"]


# As in the seed, outside a PassContext: at the default opt_level 2 the Sequential skips
# FoldScaleAxis (level 3), so batch_norm becomes the multiply and add the seed prints.
mod["main"] = my_optimize(mod["main"], params)
print("Relay module function:\n", mod.astext(show_meta_data=False))
optimized = relay.create_executor("debug", mod=mod).evaluate()(data_tvm)
print("max |optimized - original|:", float(np.abs(optimized.numpy() - reference.numpy()).max()))
