"""tessera.te: tensor expressions (TVM's tvm.te) over Tessera's C++ TE (src/te).

``placeholder``, ``compute`` with a Python lambda over index variables, ``reduce_axis``, the
reductions ``sum``/``max``/``min`` (``max(a, b)`` and ``min(a, b)`` with two values are the
elementwise forms, as in TVM), ``var``/``size_var`` and ``create_prim_func``. The lambda runs once,
in ``compute``, on symbolic index variables: the result is an expression tree, as in TVM.
``tensor.op`` (``axis``, ``reduce_axis``, ``input_tensors``), ``tensor(*indices)``, and TVM's legacy
schedules, ``create_schedule`` and ``thread_axis`` (a facade over tir.Schedule, te_schedule.py).
"""
import inspect

from . import _core
from .error import DiagnosticError
from .te_schedule import create_schedule, thread_axis, Schedule, Stage  # pylint: disable=W0611

Tensor = _core.TeTensor
IterVar = _core.IterVar
PrimExpr = _core.PrimExpr


class Operation:
    """``tensor.op``: the placeholder or compute that makes a tensor (TVM's te.Operation)."""

    def __init__(self, tensor):
        self._tensor = tensor

    name = property(lambda self: self._tensor.op_name)
    tag = property(lambda self: self._tensor.op_tag)
    axis = property(lambda self: list(self._tensor.op_axis))
    reduce_axis = property(lambda self: list(self._tensor.op_reduce_axis))
    input_tensors = property(lambda self: list(self._tensor.op_inputs))
    num_outputs = property(lambda self: self._tensor.op_num_outputs)

    def output(self, index):
        """The ``index``-th output tensor."""
        return self._tensor.op_output(index)

    def __eq__(self, other):
        return isinstance(other, Operation) and other._tensor.op_id == self._tensor.op_id

    def __hash__(self):
        return hash(self._tensor.op_id)

    def __repr__(self):
        return f"Operation({self.name})"


Tensor.op = property(Operation)
Tensor.__call__ = lambda self, *indices: self[indices]


def _shift(name, reflected=False):
    def shift(a, b):
        if reflected:
            a, b = b, a
        dtype = a.dtype if isinstance(a, PrimExpr) else b.dtype
        return _core.tir_call(dtype, name, [a, b])
    return shift


PrimExpr.__rshift__ = _shift("tir.shift_right")
PrimExpr.__lshift__ = _shift("tir.shift_left")
PrimExpr.__rrshift__ = _shift("tir.shift_right", True)
PrimExpr.__rlshift__ = _shift("tir.shift_left", True)


def decl_tensor_intrin(*args, **kwargs):
    """TE tensor intrinsics have no TensorIR counterpart here: register the description and
    implementation PrimFuncs with ``tir.TensorIntrin.register`` and tensorize by name."""
    raise DiagnosticError("te.decl_tensor_intrin is not supported: register a "
                          "tir.TensorIntrin and pass its name to tensorize", code="te_schedule")


def _shape(shape):
    return list(shape) if isinstance(shape, (list, tuple)) else [shape]


def placeholder(shape, dtype="float32", name="placeholder"):
    """An input tensor of ``shape`` (ints or TIR expressions)."""
    return _core.te_placeholder(_shape(shape), name, dtype)


def _index_names(fcompute, rank):
    try:
        params = [p for p in inspect.signature(fcompute).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []
    has_varargs = any(p.kind == p.VAR_POSITIONAL
                      for p in inspect.signature(fcompute).parameters.values())
    if has_varargs:
        return []
    if len(params) != rank:
        raise ValueError(f"compute: the shape has {rank} dimensions but the function takes "
                         f"{len(params)} index variables")
    return [p.name for p in params]


def compute(shape, fcompute, name="compute", tag="", attrs=None):
    """``compute(shape, lambda i, j: ..., name=)``: a tensor whose element at each index is the
    lambda's expression. The index variables take the lambda's parameter names. A lambda
    returning a list makes a multi-output compute; its outputs are returned as a list."""
    shape = _shape(shape)
    outs = _core.te_compute(shape, fcompute, name, tag, dict(attrs or {}),
                            _index_names(fcompute, len(shape)))
    return outs[0] if len(outs) == 1 else outs


def reduce_axis(dom, name="rv", thread_tag="", span=None):
    """A reduction axis over ``dom = (begin, end)``."""
    begin, end = dom
    return _core.te_reduce_axis(begin, end, name)


def _axes(axis):
    return list(axis) if isinstance(axis, (list, tuple)) else [axis]


def _is_axis(axis):
    return isinstance(axis, IterVar) or (
        isinstance(axis, (list, tuple)) and axis and all(isinstance(a, IterVar) for a in axis))


def sum(expr, axis, where=None, init=None):  # pylint: disable=redefined-builtin
    """The sum of ``expr`` over the reduction axes ``axis``."""
    return _core.te_reduce("sum", expr, _axes(axis), where, init)


def max(expr, axis=None, where=None, init=None):  # pylint: disable=redefined-builtin
    """The maximum over ``axis`` (a reduction), or ``max(a, b)`` of two values."""
    if axis is not None and not _is_axis(axis):
        return _core.tir_binary("max", expr, axis)
    return _core.te_reduce("max", expr, _axes(axis), where, init)


def min(expr, axis=None, where=None, init=None):  # pylint: disable=redefined-builtin
    """The minimum over ``axis`` (a reduction), or ``min(a, b)`` of two values."""
    if axis is not None and not _is_axis(axis):
        return _core.tir_binary("min", expr, axis)
    return _core.te_reduce("min", expr, _axes(axis), where, init)


def prod(expr, axis, where=None, init=None):
    """The product over ``axis``."""
    return _core.te_reduce("prod", expr, _axes(axis), where, init)


def var(name="tindex", dtype="int32"):
    """A symbolic scalar (a shape variable)."""
    return _core.tir_var(name, dtype, False)


def size_var(name="size", dtype="int32"):
    """A symbolic size, known to be non-negative."""
    return _core.tir_var(name, dtype, True)


def create_prim_func(ops, index_dtype_override=None):
    """A TensorIR PrimFunc whose parameters are ``ops`` (inputs and outputs, in order): each
    compute becomes a block, reductions get an init statement (TVM's te.create_prim_func)."""
    return _core.te_create_prim_func(list(ops), index_dtype_override)
