"""tessera.relax: Relax (TVM's tvm.relax) over Tessera's C++ Relax (src/relax).

``Var``/``DataflowVar``, ``TensorStructInfo``, ``const``, ``call_tir``, ``call_dps_packed``, the
ops ``relax.op.add/multiply/matmul/permute_dims`` and ``relax.op.nn.relu``, ``BlockBuilder``
(``function`` and ``dataflow`` scopes, ``emit``, ``emit_te``, ``emit_output``,
``emit_func_output``, ``get``), ``transform.BindParams``, ``build`` and ``VirtualMachine``. The VM
calls PrimFuncs of the module and functions registered with ``tessera.register_func`` by name.
"""
from .. import _core
from . import op
from . import transform
from .block_builder import BlockBuilder
from .vm import build, VirtualMachine, Executable

Expr = _core.RelaxExpr
DataflowVar = _core.RelaxDataflowVar
StructInfo = _core.StructInfo
Function = _core.RelaxFunction
IRModule = _core.RelaxModule


class _VarMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.RelaxVar)


class Var(metaclass=_VarMeta):  # pylint: disable=function-redefined
    """``relax.Var(name, struct_info)``: a function parameter (or a bound variable)."""

    def __new__(cls, name_hint, struct_info=None):
        return _core.relax_var(name_hint, struct_info, False)


def TensorStructInfo(shape=None, dtype="float32", ndim=-1):  # pylint: disable=invalid-name
    """A tensor's struct info: ``shape`` of ints, TIR int64 variables or names (each name a
    fresh variable), and ``dtype``."""
    return _core.relax_tensor_sinfo(None if shape is None else list(shape), dtype, ndim)


def TupleStructInfo(fields):  # pylint: disable=invalid-name
    """A tuple's struct info."""
    return _core.relax_tuple_sinfo(list(fields))


def ObjectStructInfo():  # pylint: disable=invalid-name
    """Any value."""
    return _core.relax_object_sinfo()


def const(value, struct_info=None):
    """A constant tensor (an NDArray or anything NumPy can read, copied)."""
    if struct_info is not None and not hasattr(value, "numpy"):
        import numpy as np
        value = np.asarray(value, dtype=struct_info.dtype)
    return _core.relax_const(value)


def Tuple(fields):  # pylint: disable=invalid-name
    """A tuple of expressions."""
    return _core.relax_tuple(list(fields))


def TupleGetItem(tup, index):  # pylint: disable=invalid-name
    """Field ``index`` of a tuple."""
    return _core.relax_tuple_get_item(tup, index)


def _callee_name(func):
    if isinstance(func, str):
        return func
    if hasattr(func, "name_hint"):
        return func.name_hint
    raise TypeError("expected a function name (str) or a GlobalVar")


def call_tir(gvar, args, out_sinfo, tir_vars=None):
    """``R.call_tir(cls.f, (x, w), out_sinfo)``: calls the module's PrimFunc ``gvar`` in
    destination-passing style; the VM allocates the output."""
    if tir_vars is not None:
        raise NotImplementedError("call_tir with tir_vars is not supported by Tessera's Relax")
    return _core.relax_call_tir(_callee_name(gvar), args, out_sinfo)


def call_dps_packed(func, args, out_sinfo):
    """``R.call_dps_packed("env.linear", (x, w, b), out_sinfo)``: calls a registered function
    (or a compiled PrimFunc) by name with the inputs and an output the VM allocates."""
    return _core.relax_call_dps_packed(_callee_name(func), args, out_sinfo)


class GlobalVar:
    """A reference to a module function by name (``mod.get_global_var(name)``)."""

    def __init__(self, name_hint):
        self.name_hint = name_hint

    def __repr__(self):
        return f"I.GlobalVar({self.name_hint!r})"


_core_script = IRModule.script


def _script(self, show_meta=False, **kwargs):
    """The module as TVMScript; constants print as ``metadata["relax.expr.Constant"][i]``."""
    if show_meta:
        raise NotImplementedError("script(show_meta=True): Tessera's Relax printer has no "
                                  "metadata section")
    return _core_script(self)


def _show(self, show_meta=False, **kwargs):
    print(self.script(show_meta))


def _get_global_var(self, name):
    if name not in self:
        raise ValueError(f"no function named {name!r} in the module")
    return GlobalVar(name)


_core_update_func = IRModule.update_func
_core_getitem = IRModule.__getitem__


def _update_func(self, gvar, func):
    _core_update_func(self, _callee_name(gvar), func)


def _getitem(self, key):
    return _core_getitem(self, _callee_name(key))


IRModule.script = _script
IRModule.show = _show
IRModule.get_global_var = _get_global_var
IRModule.update_func = _update_func
IRModule.__getitem__ = _getitem
Function.show = lambda self, *a, **k: print(self.script())
