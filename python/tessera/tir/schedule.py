"""tir.Schedule (TVM's tvm.tir.Schedule): the C++ tir::Schedule with TVM's method names and
keyword arguments; the random variables it hands out; its trace."""
import json

from .. import _core

Schedule = _core.Schedule
BlockRV = _core.BlockRV
LoopRV = _core.LoopRV
ExprRV = _core.ExprRV
Trace = _core.Trace


def _trace_show(self, *args, **kwargs):
    """Prints the trace as TVM prints it (``def apply_trace(sch)``)."""
    print(str(self))


def _trace_as_json(self, remove_postproc=False):
    """The trace as TVM's JSON value (a list: instructions and decisions)."""
    trace = self.simplified(True) if remove_postproc else self
    return json.loads(trace.json())


Trace.show = _trace_show
Trace.as_json = _trace_as_json
Trace.__repr__ = Trace.__str__


def _get(self, rv):
    """The value of a sampled ExprRV."""
    return _core.Schedule.get(self, rv)


def _show(self, *args, **kwargs):
    """Prints the scheduled module as TVMScript."""
    print(self.mod.script())


Schedule.show = _show


class TensorIntrin:
    """A tensor intrinsic for ``sch.tensorize``: a description PrimFunc (the computation matched)
    and an implementation PrimFunc (what replaces it), with matching buffer parameters."""

    def __init__(self, desc, impl):
        self.desc = desc
        self.impl = impl

    @staticmethod
    def register(name, desc, impl, override=False):
        """Registers ``name`` (DiagnosticError ``tensor_intrin`` when taken or mismatched)."""
        _core.tensor_intrin_register(name, desc, impl, override)

    @staticmethod
    def get(name, allow_missing=False):
        """The intrinsic registered as ``name``."""
        if allow_missing and name not in _core.tensor_intrin_names():
            return None
        return TensorIntrin(*_core.tensor_intrin_get(name))

    @staticmethod
    def names():
        """Every registered name (not in TVM)."""
        return _core.tensor_intrin_names()
