"""tessera.relay.dataflow_pattern: the dataflow pattern language (TVM's
tvm.relay.dataflow_pattern) over the C++ one (src/relay/pattern).

``is_op("nn.conv2d")(wildcard(), is_constant())``, ``a | b``,
``p.optional(lambda x: is_op("nn.relu")(x))``, ``has_attr``/``has_dtype``/``has_shape``,
``is_var``, ``is_expr``, ``is_tuple``, ``is_tuple_get_item``, ``dominates``; ``p.match(expr)``
and ``p.partition(expr)``. Patterns feed ``relay.transform.MergeComposite``.
"""
from .. import _core

DFPattern = _core.DFPattern


def wildcard():
    """Matches any expression."""
    return _core.pattern_wildcard()


def is_op(op_name):
    """Matches the operator ``op_name``; call the result with argument patterns."""
    return _core.pattern_is_op(op_name)


def is_constant():
    """Matches any constant."""
    return _core.pattern_is_constant()


def is_var(name=""):
    """Matches a variable (of that name hint when given)."""
    return _core.pattern_is_var(name)


def is_expr(expr):
    """Matches exactly ``expr``."""
    return _core.pattern_is_expr(expr)


def is_tuple(fields):
    """Matches a tuple whose fields match ``fields``."""
    return _core.pattern_is_tuple(list(fields))


def is_tuple_get_item(tuple_value, index=None):
    """Matches a projection of a tuple matching ``tuple_value`` (any index when None)."""
    return _core.pattern_is_tuple_get_item(tuple_value, -1 if index is None else index)


def dominates(parent, path, child):
    """Matches ``child`` reached from ``parent`` only through nodes matching ``path``."""
    return _core.pattern_dominates(parent, path, child)


def has_attr(attrs, pattern=None):
    """``pattern`` (default: wildcard) when the matched call has these attribute values."""
    return (pattern or wildcard()).has_attr(dict(attrs))


def has_dtype(dtype, pattern=None):
    """``pattern`` when the matched value is a tensor of ``dtype``."""
    return (pattern or wildcard()).has_dtype(dtype)


def has_shape(shape, pattern=None):
    """``pattern`` when the matched value has this static shape."""
    return (pattern or wildcard()).has_shape([int(d) for d in shape])


def has_type(ttype, pattern=None):
    """``pattern`` when the matched value's checked type is ``ttype``."""
    return (pattern or wildcard()).has_type(ttype)


def match(pattern, expr):
    """Whether ``pattern`` matches ``expr``."""
    return pattern.match(expr)


def partition(pattern, expr, attrs=None, check=None):
    """``expr`` with each match of ``pattern`` outlined into a function carrying ``attrs``."""
    if check is not None:
        raise NotImplementedError("partition(check=) is not bound")
    return pattern.partition(expr, dict(attrs or {}))
