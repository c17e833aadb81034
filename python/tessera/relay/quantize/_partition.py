"""Partition rules in Python (TVM's tvm.relay.quantize._partition): a rule registered for an op
replaces the C++ rule under the op attribute "FQPartitionRewrite" (levels and ``reset_attr`` as
for any op attribute) and is called by the C++ partition pass, with the GIL taken back, as
``rule(ref_call, new_args, ctx)``: ``new_args`` hold a ``QPartitionExpr`` for each value inside an
integer region; the rule returns a ``QPartitionExpr``, an expression, or None (no change)."""
from ... import _core
from ...ir import register_op_attr

QPartitionExpr = _core.QPartitionExpr
# Printed as TVM prints it (seed 001 prints type(new_args[0])), under this module.
QPartitionExpr.__module__ = __name__


def register_partition_function(op_name, frewrite=None, level=10):
    """Registers ``frewrite`` as ``op_name``'s partition rule (as a decorator without it)."""
    return register_op_attr(op_name, "FQPartitionRewrite", frewrite, level)


def partition_expr_check(expr):
    """``(True, inner)`` for a QPartitionExpr, ``(False, expr)`` otherwise."""
    if isinstance(expr, QPartitionExpr):
        return True, expr.expr
    return False, expr


def restore_builtin_rules():
    """Puts Tessera's seven built-in partition rules back (not in TVM; for tests and notebooks
    that replaced them)."""
    _core.restore_builtin_partition_rules()
