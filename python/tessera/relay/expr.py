"""tessera.relay.expr: graph-IR expressions (TVM's tvm.relay.expr).

The node classes are the extension's; this module adds TVM's constructor functions, arithmetic
operators on expressions and TupleWrapper.
"""
import numpy as _np

from .. import _core
from ..ndarray import NDArray

Expr = _core.Expr
Var = _core.Var
GlobalVar = _core.GlobalVar
Constant = _core.Constant
Call = _core.Call
Tuple = _core.Tuple
TupleGetItem = _core.TupleGetItem
Let = _core.Let
If = _core.If
Function = _core.Function
Type = _core.Type
TensorType = _core.TensorType
TupleType = _core.TupleType
FuncType = _core.FuncType
IncompleteType = _core.IncompleteType
scalar_type = _core.scalar_type


def var(name_hint, type_annotation=None, shape=None, dtype="float32"):
    """A variable; ``shape``/``dtype`` give it a tensor type, ``type_annotation`` any type (or a
    dtype string for a scalar)."""
    if type_annotation is not None and shape is not None:
        raise ValueError("give either type_annotation or shape, not both")
    if shape is not None:
        type_annotation = TensorType([int(d) for d in shape], dtype)
    elif isinstance(type_annotation, str):
        type_annotation = TensorType([], type_annotation)
    return Var(name_hint, type_annotation)


def const(value, dtype=None):
    """A constant: Python scalars become float32/int32 (as in TVM), NumPy arrays keep their
    dtype unless ``dtype`` is given; an NDArray is used as is."""
    if isinstance(value, NDArray):
        return Constant(value)
    if dtype is None and isinstance(value, bool):
        dtype = "bool"
    elif dtype is None and isinstance(value, int):
        dtype = "int32"
    elif dtype is None and isinstance(value, float):
        dtype = "float32"
    array = _np.asarray(value, dtype=dtype)
    return Constant(_core.ndarray_from_numpy(array, ""))


def as_expr(value):
    """An expression for an argument: expressions as they are, lists and tuples as relay
    Tuples, numbers and arrays as constants."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, TupleWrapper):
        return value.astuple()
    if isinstance(value, (list, tuple)):
        return Tuple([as_expr(v) for v in value])
    return const(value)


class TupleWrapper:
    """A tuple-valued expression (``relay.nn.batch_norm(...)``) indexable without a Tuple node:
    ``[i]`` is a TupleGetItem."""

    def __init__(self, tuple_value, size):
        self.tuple_value = tuple_value
        self.size = size

    def astuple(self):
        return self.tuple_value

    def astext(self, show_meta_data=True):
        return self.tuple_value.astext(show_meta_data)

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError("Tuple index out of range")
        return TupleGetItem(self.tuple_value, index)

    def __len__(self):
        return self.size

    def __repr__(self):
        return f"TupleWrapper({self.tuple_value!r}, {self.size})"


def _binary(op_name, reverse=False):
    def apply(self, other):
        lhs, rhs = (as_expr(other), self) if reverse else (self, as_expr(other))
        return _core.call_op(op_name, [lhs, rhs], {})

    return apply


# TVM's ExprWithOp: arithmetic and comparisons build op calls. `==` stays identity, as in TVM.
for _name, _op in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                   ("truediv", "divide"), ("floordiv", "floor_divide")]:
    setattr(Expr, f"__{_name}__", _binary(_op))
    setattr(Expr, f"__r{_name}__", _binary(_op, reverse=True))
for _name, _op in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                   ("ge", "greater_equal")]:
    setattr(Expr, f"__{_name}__", _binary(_op))
Expr.__neg__ = lambda self: _core.call_op("negative", [self], {})
Expr.astype = lambda self, dtype: _core.call_op("cast", [self], {"dtype": dtype})
Tuple.__getitem__ = lambda self, index: _core.tuple_get_item(self, index)
