"""tessera.topi: TOPI's TE operators (TVM's tvm.topi) from the C++ topi library, for
``te.create_prim_func`` and ``BlockBuilder.emit_te`` (seed 002's ``bb.emit_te(topi.nn.dense, x,
w)``). Only the operators listed here are bound."""
from .. import _core
from . import nn
from . import testing


def _binary(op):
    def f(lhs, rhs):
        return _core.topi_binary(op, lhs, rhs)

    f.__name__ = op
    f.__doc__ = f"Broadcasting elementwise {op} of two tensors."
    return f


add = _binary("add")
subtract = _binary("subtract")
multiply = _binary("multiply")
divide = _binary("divide")
maximum = _binary("maximum")
minimum = _binary("minimum")
power = _binary("power")


def matmul(a, b, transp_a=False, transp_b=False):
    """Matrix product."""
    return _core.topi_matmul(a, b, transp_a, transp_b)


def transpose(a, axes=None):
    """Axes permuted (reversed by default)."""
    return _core.topi_transpose(a, list(axes or []))


def reshape(a, newshape):
    """``a`` with a new shape."""
    return _core.topi_reshape(a, list(newshape))


def _unary(op):
    def f(x):
        return _core.topi_unary(op, x)

    f.__name__ = op
    f.__doc__ = f"Elementwise {op}."
    return f


exp = _unary("exp")
log = _unary("log")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
sigmoid = _unary("sigmoid")
tanh = _unary("tanh")
negative = _unary("negative")
abs = _unary("abs")  # pylint: disable=redefined-builtin
erf = _unary("erf")


def clip(x, a_min, a_max):
    """x limited to [a_min, a_max]."""
    return _core.topi_clip(x, float(a_min), float(a_max))


def concatenate(a_tuple, axis=0):
    """The tensors of ``a_tuple`` joined along ``axis``."""
    return _core.topi_concatenate(list(a_tuple), axis)


def _reduction(kind):
    def f(data, axis=None, keepdims=False):
        return _core.topi_reduce(kind, data, axis, keepdims)

    f.__name__ = kind
    f.__doc__ = f"The {kind} of ``data`` over ``axis`` (all axes when None)."
    return f


sum = _reduction("sum")  # pylint: disable=redefined-builtin
max = _reduction("max")  # pylint: disable=redefined-builtin
min = _reduction("min")  # pylint: disable=redefined-builtin
mean = _reduction("mean")
