"""tessera.ir: IRModule and structural comparison (TVM's tvm.ir)."""
from . import _core

IRModule = _core.IRModule
_relay_from_expr = IRModule.from_expr


def _from_expr(expr, functions=None, type_defs=None):
    """A module whose "main" is ``expr``: a Relay module for a Relay function or expression, a
    module of PrimFuncs (tir.IRModule) for a PrimFunc."""
    if isinstance(expr, _core.PrimFunc):
        return _core.TirModule.from_func(expr, "main")
    return _relay_from_expr(expr)


IRModule.from_expr = staticmethod(_from_expr)


def _show(self, show_meta_data=False):
    """Prints the module as Relay text."""
    print(self.astext(show_meta_data) if show_meta_data else str(self))


IRModule.show = _show


def structural_equal(lhs, rhs, map_free_vars=False):
    """Structural equality of two expressions or two modules."""
    if isinstance(lhs, IRModule) and isinstance(rhs, IRModule):
        return _core.module_structural_equal(lhs, rhs)
    return _core.structural_equal(lhs, rhs, map_free_vars)


def structural_hash(node):
    """A hash consistent with structural_equal for expressions."""
    return _core.structural_hash(node)


def register_op_attr(op_name, attr_key, value=None, level=10):
    """Sets op ``op_name``'s attribute ``attr_key`` to the Python function ``value`` at
    ``level`` (a decorator when ``value`` is None). Only attributes the C++ library can call as
    Python functions exist: "FQPartitionRewrite" (the quantizer's partition rules). Setting a
    value twice at one level is a DiagnosticError (code ``op_attr``): reset it first."""

    def register(func):
        _core.op_set_attr(op_name, attr_key, func, level)
        return func

    return register(value) if value is not None else register


def _reset_attr(self, attr_name):
    """Removes the op's attribute, so that any level may set it again (TVM's Op.reset_attr)."""
    _core.op_reset_attr(self.name, attr_name)


def _has_attr(self, attr_name):
    return _core.op_has_attr(self.name, attr_name)


_core.Op.reset_attr = _reset_attr
_core.Op.has_attr = _has_attr
