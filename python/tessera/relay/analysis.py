"""tessera.relay.analysis (TVM's tvm.relay.analysis)."""
from .. import _core


def free_vars(expr):
    """The free variables of ``expr`` in first-use order (post order, callee before
    arguments)."""
    return _core.free_vars(expr)


def check_constant(expr):
    """Whether ``expr`` refers to no variable (a constant or a computation on constants)."""
    return _core.check_constant(expr)
