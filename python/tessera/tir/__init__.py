"""tessera.tir: TensorIR (TVM's tvm.tir) over Tessera's C++ TIR (src/tir).

Expressions (``Var``, ``const``, ``max``, ``min``, ``if_then_else``, ``Select``, ``Cast``,
``floordiv``, ``floormod``), ``PrimFunc`` (``script()``, ``show()``, ``with_attr``), the module of
PrimFuncs (``tessera.IRModule.from_expr(prim_func)`` or ``IRModule({"main": f})``), ``Schedule``
with every primitive of ``tir::Schedule`` and its ``trace``, and ``build`` (lower + LLVM).
"""
from .. import _core
from .schedule import Schedule, BlockRV, LoopRV, ExprRV, Trace, TensorIntrin
from .build import build, lower, Module

PrimExpr = _core.PrimExpr
PrimFunc = _core.PrimFunc
IRModule = _core.TirModule
IterVar = _core.IterVar


def _show(self, *args, **kwargs):
    """Prints the TVMScript text."""
    print(self.script())


PrimFunc.show = _show
IRModule.show = _show


def Var(name, dtype="int32"):  # pylint: disable=invalid-name
    """A scalar variable."""
    return _core.tir_var(name, dtype, False)


def SizeVar(name, dtype="int32"):  # pylint: disable=invalid-name
    """A non-negative scalar variable."""
    return _core.tir_var(name, dtype, True)


def const(value, dtype="int32"):
    """A constant of ``dtype``."""
    return _core.tir_const(value, dtype)


def IntImm(dtype, value):  # pylint: disable=invalid-name
    """An integer immediate."""
    return _core.tir_const(value, dtype)


def FloatImm(dtype, value):  # pylint: disable=invalid-name
    """A floating-point immediate."""
    return _core.tir_const(value, dtype)


def max(a, b):  # pylint: disable=redefined-builtin
    """Elementwise maximum of two expressions."""
    return _core.tir_binary("max", a, b)


def min(a, b):  # pylint: disable=redefined-builtin
    """Elementwise minimum of two expressions."""
    return _core.tir_binary("min", a, b)


def floordiv(a, b):
    """Division rounding towards minus infinity."""
    return _core.tir_binary("floordiv", a, b)


def floormod(a, b):
    """The remainder of floordiv."""
    return _core.tir_binary("floormod", a, b)


def indexdiv(a, b):
    """Index division (TVM's ``tir.indexdiv``: floor division of non-negative indices)."""
    return _core.tir_binary("floordiv", a, b)


def indexmod(a, b):
    """The remainder of indexdiv."""
    return _core.tir_binary("floormod", a, b)


def truncdiv(a, b):
    """C division (rounding towards zero)."""
    return _core.tir_binary("truncdiv", a, b)


def truncmod(a, b):
    """The remainder of truncdiv."""
    return _core.tir_binary("truncmod", a, b)


def all(*conds):  # pylint: disable=redefined-builtin
    """The conjunction of the conditions."""
    out = conds[0]
    for c in conds[1:]:
        out = _core.tir_binary("and", out, c)
    return out


def any(*conds):  # pylint: disable=redefined-builtin
    """The disjunction of the conditions."""
    out = conds[0]
    for c in conds[1:]:
        out = _core.tir_binary("or", out, c)
    return out


def if_then_else(cond, t, f):
    """``cond ? t : f``, evaluating only the chosen side."""
    return _core.tir_select(cond, t, f, True)


def Select(cond, t, f):  # pylint: disable=invalid-name
    """``cond ? t : f``, evaluating both sides."""
    return _core.tir_select(cond, t, f, False)


def Cast(dtype, value):  # pylint: disable=invalid-name
    """``value`` converted to ``dtype``."""
    return _core.tir_cast(dtype, value)


def call_intrin(dtype, op, *args):
    """A call of the intrinsic ``op`` (``"tir.exp"``, ...)."""
    return _core.tir_call(dtype, op, list(args))


def exp(x):
    """e to the power ``x``."""
    return _core.tir_call(x.dtype, "tir.exp", [x])


def sqrt(x):
    """The square root of ``x``."""
    return _core.tir_call(x.dtype, "tir.sqrt", [x])
