"""tvm.relay.op.op: op lookup and op attributes (``get(name).reset_attr(key)``,
``register_op_attr``)."""
from ... import _core
from ...ir import register_op_attr  # noqa: F401


def get(op_name):
    """The Op node named ``op_name`` (DiagnosticError ``unknown_op`` when there is none)."""
    return _core.op_get(op_name)
