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
