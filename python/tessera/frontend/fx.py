"""from_fx: a ``torch.fx.symbolic_trace`` graph walked node by node into a Relax module through
the BlockBuilder, the structure seed 002 teaches. Each node kind has its mapping:

* ``placeholder``: a function parameter of ``input_info``'s shape and dtype;
* ``get_attr``: ``map_param(tensor)``, a constant;
* ``call_module``: ``map_nn_module[type(module)](bb, node_map, node, module)``;
* ``call_function`` / ``call_method``: ``map_function[target](bb, node_map, node)`` (a method is
  keyed by its name: ``"flatten"``, ``"view"``);
* ``output``: the function's result (a tuple for several outputs).

The tables are dictionaries users extend: ``register_nn_module(nn.GELU)(fn)`` and
``register_function(torch.tanh)(fn)`` for every later import, or ``from_fx(...,
map_nn_module={...}, map_function={...})`` for one. A converter returns the Relax expression of
its node, usually ``bb.emit_te(topi_function, *inputs, **attrs)``; ``arg(node_map, a)`` resolves
an argument (a node to its expression, anything else unchanged). torch is imported on first use.
"""
import operator

import numpy as np

from .. import relax, topi
from ..error import DiagnosticError

MAP_NN_MODULE = {}
MAP_FUNCTION = {}
_DEFAULTS_LOADED = []


def register_nn_module(module_type):
    """Decorator: ``fn(bb, node_map, node, module)`` converts ``call_module`` nodes of
    ``module_type`` (replacing a converter already there)."""
    def register(fn):
        _defaults()
        MAP_NN_MODULE[module_type] = fn
        return fn
    return register


def register_function(*targets):
    """Decorator: ``fn(bb, node_map, node)`` converts ``call_function`` nodes of each target (a
    function such as ``torch.relu`` or ``operator.add``) and ``call_method`` nodes of each target
    that is a method name (``"relu"``)."""
    def register(fn):
        _defaults()
        for t in targets:
            MAP_FUNCTION[t] = fn
        return fn
    return register


def map_param(param, dtype=None):
    """A PyTorch tensor or parameter as a Relax constant (its data copied)."""
    data = param.detach().cpu().numpy()
    if dtype is not None:
        data = data.astype(dtype)
    return relax.const(data, relax.TensorStructInfo(list(data.shape), str(data.dtype)))


def arg(node_map, value):
    """An fx argument as the importer sees it: a node's expression, lists element by element."""
    if isinstance(value, (list, tuple)):
        return type(value)(arg(node_map, v) for v in value)
    return node_map.get(value, value) if _is_node(value) else value


def _is_node(value):
    import torch.fx  # pylint: disable=import-outside-toplevel
    return isinstance(value, torch.fx.Node)


def _fail(node, message):
    return DiagnosticError(f"from_fx: node '{node.name}' ({node.op} {node.target}): {message}",
                           code="from_fx", message=message, context=node.name)


def _shape(expr):
    return [int(d) for d in expr.struct_info.shape]


def _node_arg(node, i, name, default=None):
    if len(node.args) > i:
        return node.args[i]
    return node.kwargs.get(name, default)


def _as_tensor(bb, value, like):
    """A Python number as a 0-d constant of ``like``'s dtype; expressions unchanged."""
    if isinstance(value, (int, float, bool)):
        dtype = like.struct_info.dtype
        return relax.const(np.array(value, dtype), relax.TensorStructInfo([], dtype))
    return value


def _binary(name):
    def convert(bb, node_map, node):
        lhs, rhs = (arg(node_map, a) for a in node.args[:2])
        if not isinstance(lhs, relax.Expr):
            if not isinstance(rhs, relax.Expr):
                raise _fail(node, "both operands are Python numbers")
            lhs = _as_tensor(bb, lhs, rhs)
        rhs = _as_tensor(bb, rhs, lhs)
        return bb.emit_te(getattr(topi, name), lhs, rhs, primfunc_name_hint=name)
    return convert


def _unary(fn, name):
    def convert(bb, node_map, node):
        return bb.emit_te(fn, arg(node_map, node.args[0]), primfunc_name_hint=name)
    return convert


def _flatten(bb, node_map, node):
    x = arg(node_map, node.args[0])
    start = _node_arg(node, 1, "start_dim", 0)
    end = _node_arg(node, 2, "end_dim", -1)
    return _emit_flatten(bb, x, start, end)


def _emit_flatten(bb, x, start, end):
    shape = _shape(x)
    start %= len(shape)
    end %= len(shape)
    new = shape[:start] + [int(np.prod(shape[start:end + 1]))] + shape[end + 1:]
    return bb.emit_te(topi.reshape, x, new, primfunc_name_hint="flatten")


def _reshape(bb, node_map, node):
    x = arg(node_map, node.args[0])
    dims = arg(node_map, node.args[1:])
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    size = int(np.prod(_shape(x)))
    known = int(np.prod([d for d in dims if d != -1]))
    new = [size // known if d == -1 else int(d) for d in dims]
    return bb.emit_te(topi.reshape, x, new, primfunc_name_hint="reshape")


def _size(bb, node_map, node):  # pylint: disable=unused-argument
    shape = _shape(arg(node_map, node.args[0]))
    dim = _node_arg(node, 1, "dim")
    return tuple(shape) if dim is None else shape[dim]


def _matmul(bb, node_map, node):
    a, b = (arg(node_map, x) for x in node.args[:2])
    return bb.emit_te(topi.matmul, a, b, primfunc_name_hint="matmul")


def _linear(bb, x, weight, bias):
    y = bb.emit_te(topi.nn.dense, x, weight, primfunc_name_hint="dense")
    return y if bias is None else bb.emit_te(topi.add, y, bias, primfunc_name_hint="add")


def _cat(bb, node_map, node):
    tensors = arg(node_map, node.args[0])
    axis = _node_arg(node, 1, "dim", 0)
    return bb.emit_te(lambda *ts: topi.concatenate(ts, axis), *tensors,
                      primfunc_name_hint="concatenate")


def _softmax(bb, node_map, node):
    x = arg(node_map, node.args[0])
    return bb.emit_te(topi.nn.softmax, x, _node_arg(node, 1, "dim", -1),
                      primfunc_name_hint="softmax")


def _identity(bb, node_map, node, module=None):  # pylint: disable=unused-argument
    return arg(node_map, node.args[0])


def _adaptive_avg(bb, x, output_size):
    size = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * 2
    shape = _shape(x)
    size = [shape[2 + i] if s is None else s for i, s in enumerate(size)]
    return bb.emit_te(topi.nn.adaptive_pool, x, size, "avg",
                      primfunc_name_hint="adaptive_avg_pool2d")


def _pool_attrs(kernel, stride, padding, dilation):
    return dict(kernel=kernel, stride=kernel if stride in (None, []) else stride,
                padding=padding, dilation=dilation)


def _max_pool(bb, x, kernel, stride, padding, dilation, ceil_mode):
    attrs = _pool_attrs(kernel, stride, padding, dilation)
    return bb.emit_te(topi.nn.pool2d, x, pool_type="max", ceil_mode=ceil_mode,
                      primfunc_name_hint="max_pool2d", **attrs)


# --- nn.Module converters -------------------------------------------------------------------

def _nn_linear(bb, node_map, node, module):
    return _linear(bb, arg(node_map, node.args[0]), map_param(module.weight),
                   None if module.bias is None else map_param(module.bias))


def _nn_conv2d(bb, node_map, node, module):
    if module.padding_mode != "zeros" or isinstance(module.padding, str):
        raise _fail(node, f"Conv2d padding={module.padding!r}, padding_mode="
                          f"'{module.padding_mode}' is not supported (zeros and ints only)")
    x = arg(node_map, node.args[0])
    y = bb.emit_te(topi.nn.group_conv2d_nchw, x, map_param(module.weight),
                   stride=list(module.stride), padding=list(module.padding),
                   dilation=list(module.dilation), groups=module.groups,
                   primfunc_name_hint="conv2d")
    if module.bias is None:
        return y
    return bb.emit_te(topi.nn.bias_add, y, map_param(module.bias), axis=1,
                      primfunc_name_hint="bias_add")


def _nn_batch_norm(bb, node_map, node, module):
    if module.training or module.running_mean is None:
        raise _fail(node, "BatchNorm is converted in eval mode with running statistics only "
                          "(call model.eval() before tracing)")
    import torch  # pylint: disable=import-outside-toplevel
    channels = module.num_features
    gamma = module.weight if module.affine else torch.ones(channels)
    beta = module.bias if module.affine else torch.zeros(channels)
    x = arg(node_map, node.args[0])
    return bb.emit_te(topi.nn.batch_norm, x, map_param(gamma), map_param(beta),
                      map_param(module.running_mean), map_param(module.running_var), axis=1,
                      epsilon=float(module.eps), primfunc_name_hint="batch_norm")


def _nn_max_pool2d(bb, node_map, node, module):
    return _max_pool(bb, arg(node_map, node.args[0]), module.kernel_size, module.stride,
                     module.padding, module.dilation, module.ceil_mode)


def _nn_avg_pool2d(bb, node_map, node, module):
    attrs = _pool_attrs(module.kernel_size, module.stride, module.padding, 1)
    return bb.emit_te(topi.nn.pool2d, arg(node_map, node.args[0]), pool_type="avg",
                      ceil_mode=module.ceil_mode, count_include_pad=module.count_include_pad,
                      primfunc_name_hint="avg_pool2d", **attrs)


def _nn_adaptive_avg_pool2d(bb, node_map, node, module):
    return _adaptive_avg(bb, arg(node_map, node.args[0]), module.output_size)


def _nn_flatten(bb, node_map, node, module):
    return _emit_flatten(bb, arg(node_map, node.args[0]), module.start_dim, module.end_dim)


def _nn_unary(fn, name):
    def convert(bb, node_map, node, module):  # pylint: disable=unused-argument
        return bb.emit_te(fn, arg(node_map, node.args[0]), primfunc_name_hint=name)
    return convert


def _nn_softmax(bb, node_map, node, module):
    return bb.emit_te(topi.nn.softmax, arg(node_map, node.args[0]),
                      -1 if module.dim is None else module.dim, primfunc_name_hint="softmax")


# --- functional converters with attributes ------------------------------------------------

def _f_linear(bb, node_map, node):
    x, w = (arg(node_map, a) for a in node.args[:2])
    return _linear(bb, x, w, arg(node_map, _node_arg(node, 2, "bias")))


def _f_adaptive_avg_pool2d(bb, node_map, node):
    return _adaptive_avg(bb, arg(node_map, node.args[0]), _node_arg(node, 1, "output_size"))


def _f_max_pool2d(bb, node_map, node):
    return _max_pool(bb, arg(node_map, node.args[0]), _node_arg(node, 1, "kernel_size"),
                     _node_arg(node, 2, "stride"), _node_arg(node, 3, "padding", 0),
                     _node_arg(node, 4, "dilation", 1), _node_arg(node, 5, "ceil_mode", False))


def _defaults():
    """Fills the tables with the built-in converters (once, on first use: needs torch)."""
    if _DEFAULTS_LOADED:
        return
    _DEFAULTS_LOADED.append(True)
    import torch  # pylint: disable=import-outside-toplevel
    from torch import nn  # pylint: disable=import-outside-toplevel
    functional = torch.nn.functional
    relu = _unary(topi.nn.relu, "relu")
    MAP_NN_MODULE.update({
        nn.Linear: _nn_linear, nn.Conv2d: _nn_conv2d, nn.BatchNorm2d: _nn_batch_norm,
        nn.MaxPool2d: _nn_max_pool2d, nn.AvgPool2d: _nn_avg_pool2d,
        nn.AdaptiveAvgPool2d: _nn_adaptive_avg_pool2d, nn.Flatten: _nn_flatten,
        nn.ReLU: _nn_unary(topi.nn.relu, "relu"), nn.Sigmoid: _nn_unary(topi.sigmoid, "sigmoid"),
        nn.Tanh: _nn_unary(topi.tanh, "tanh"), nn.Softmax: _nn_softmax,
        nn.Identity: _identity, nn.Dropout: _identity,
    })
    table = {
        (operator.add, operator.iadd, torch.add, "add"): _binary("add"),
        (operator.sub, torch.sub, "sub"): _binary("subtract"),
        (operator.mul, torch.mul, "mul"): _binary("multiply"),
        (operator.truediv, torch.div, "div"): _binary("divide"),
        (operator.matmul, torch.matmul, "matmul"): _matmul,
        (torch.relu, functional.relu, "relu"): relu,
        (torch.sigmoid, "sigmoid"): _unary(topi.sigmoid, "sigmoid"),
        (torch.tanh, "tanh"): _unary(topi.tanh, "tanh"),
        (torch.exp, "exp"): _unary(topi.exp, "exp"),
        (torch.flatten, "flatten"): _flatten,
        ("view", "reshape", torch.reshape): _reshape,
        ("size",): _size,
        (torch.cat,): _cat,
        (torch.softmax, functional.softmax, "softmax"): _softmax,
        (functional.linear,): _f_linear,
        (functional.adaptive_avg_pool2d,): _f_adaptive_avg_pool2d,
        (functional.max_pool2d,): _f_max_pool2d,
        (operator.getitem,): _getitem,
        ("contiguous",): _identity,
    }
    for targets, fn in table.items():
        for t in targets:
            MAP_FUNCTION[t] = fn


def _getitem(bb, node_map, node):  # pylint: disable=unused-argument
    value, index = (arg(node_map, a) for a in node.args[:2])
    if isinstance(value, (tuple, list)):
        return value[index]
    raise _fail(node, "indexing a tensor is not supported")


def _fetch_attr(module, target):
    value = module
    for i, atom in enumerate(target.split(".")):
        if not hasattr(value, atom):
            raise DiagnosticError(f"from_fx: get_attr of a missing attribute "
                                  f"'{'.'.join(target.split('.')[:i + 1])}'", code="from_fx")
        value = getattr(value, atom)
    return value


def _input_vars(graph, input_info):
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if not isinstance(input_info, (list, tuple)) or len(input_info) != len(placeholders):
        raise DiagnosticError(f"from_fx: the model has {len(placeholders)} inputs, input_info "
                              f"gives {len(input_info) if isinstance(input_info, (list, tuple)) else 'none'}",
                              code="from_fx", context="input_info")
    out = {}
    for node, info in zip(placeholders, input_info):
        shape, dtype = info, "float32"
        if (isinstance(info, (list, tuple)) and len(info) == 2
                and isinstance(info[0], (list, tuple)) and isinstance(info[1], str)):
            shape, dtype = info
        try:
            dims = [int(d) for d in shape]
        except (TypeError, ValueError):
            raise DiagnosticError(f"from_fx: input '{node.target}': the shape must be a list "
                                  f"of ints, got {shape!r}", code="from_fx",
                                  context="input_info") from None
        out[node] = relax.Var(node.target, relax.TensorStructInfo(dims, dtype))
    return out


def from_fx(model, input_info, *, map_nn_module=None, map_function=None, map_param=map_param,
            keep_params_as_input=False, unwrap_unit_return_tuple=False,
            no_bind_return_tuple=False):  # pylint: disable=redefined-outer-name,unused-argument
    """Imports ``model`` (a ``torch.fx.GraphModule``, or an ``nn.Module`` traced here with
    ``torch.fx.symbolic_trace``) as a Relax module whose ``main`` takes ``input_info``'s tensors
    (``[(shape, dtype)]`` as TVM's from_fx, or bare shapes for float32). ``map_nn_module`` and
    ``map_function`` add to (or override) the registered converters for this import,
    ``map_param`` converts ``get_attr`` tensors. A node with no converter raises DiagnosticError
    (code ``from_fx``) naming it."""
    if keep_params_as_input:
        raise NotImplementedError("from_fx(keep_params_as_input=True) is not supported: "
                                  "parameters become constants")
    import torch.fx  # pylint: disable=import-outside-toplevel
    _defaults()
    if not isinstance(model, torch.fx.GraphModule):
        model = torch.fx.symbolic_trace(model)
    modules = {**MAP_NN_MODULE, **(map_nn_module or {})}
    functions = {**MAP_FUNCTION, **(map_function or {})}
    named_modules = dict(model.named_modules())
    node_map = _input_vars(model.graph, input_info)
    inputs = list(node_map.values())
    bb = relax.BlockBuilder()
    with bb.function("main"):
        with bb.dataflow():
            for node in model.graph.nodes:
                if node.op == "placeholder":
                    continue
                if node.op == "get_attr":
                    node_map[node] = map_param(_fetch_attr(model, node.target))
                elif node.op == "call_module":
                    module = named_modules[node.target]
                    convert = modules.get(type(module))
                    if convert is None:
                        raise _fail(node, f"no converter for module type "
                                          f"{type(module).__name__} (register_nn_module)")
                    node_map[node] = convert(bb, node_map, node, module)
                elif node.op in ("call_function", "call_method"):
                    convert = functions.get(node.target)
                    if convert is None:
                        raise _fail(node, "no converter for this function (register_function)")
                    node_map[node] = convert(bb, node_map, node)
                elif node.op == "output":
                    result = arg(node_map, node.args[0])
                    if isinstance(result, (list, tuple)):
                        result = [bb.emit_output(r) for r in result]
                        if unwrap_unit_return_tuple and len(result) == 1:
                            result = result[0]
                    else:
                        result = bb.emit_output(result)
        bb.emit_func_output(result, inputs)
    return bb.get()

