"""tessera.topi: TOPI's TE operators (TVM's tvm.topi) from the C++ topi library, for
``te.create_prim_func`` and ``BlockBuilder.emit_te`` (seed 002's ``bb.emit_te(topi.nn.dense, x,
w)``). Only the operators listed here are bound."""
from .. import _core
from . import nn


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
