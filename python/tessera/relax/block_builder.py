"""relax.BlockBuilder: the C++ relax::BlockBuilder with Python's ``with`` scopes."""
from .. import _core


class _FunctionScope:
    def __init__(self, builder):
        self._builder = builder

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


class _DataflowScope:
    def __init__(self, builder):
        self._builder = builder

    def __enter__(self):
        self._builder._bb.begin_dataflow()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self._builder._bb.end_dataflow()
        return False


class BlockBuilder:
    """Builds Relax functions binding by binding (seed 002)::

        bb = relax.BlockBuilder()
        with bb.function("main"):
            with bb.dataflow():
                C = bb.emit_te(te_matmul, A, B)
                R = bb.emit_output(C)
            bb.emit_func_output(R, params=[A, B])
        mod = bb.get()
    """

    def __init__(self, mod=None):
        self._bb = _core.BlockBuilder(mod) if mod is not None else _core.BlockBuilder()

    def function(self, name, params=None, attrs=None, pure=True, private=False):
        """Opens the function ``name``; parameters here or in emit_func_output."""
        self._bb.function(name, None if params is None else list(params), private)
        return _FunctionScope(self)

    def dataflow(self):
        """A dataflow block: bindings inside are side-effect free DataflowVars."""
        return _DataflowScope(self)

    def emit(self, expr, name_hint=""):
        """Binds ``expr`` to a new variable."""
        return self._bb.emit(expr, name_hint)

    def emit_output(self, output, name_hint=""):
        """Binds ``output`` to a variable visible after the dataflow block."""
        return self._bb.emit_output(output, name_hint)

    def emit_te(self, func, *args, primfunc_name_hint=None, **kwargs):
        """Calls the TE function ``func`` on placeholders standing for ``args``, adds the
        resulting PrimFunc to the module (named after ``func``) and emits a call_tir of it."""
        name = primfunc_name_hint or getattr(func, "__name__", "te_func")
        if name == "<lambda>":
            name = "te_func"
        # As TVM's: the Relax expressions among the positional arguments become placeholders,
        # the others (shapes, axes, flags) reach ``func`` unchanged in their places.
        exprs = [a for a in args if isinstance(a, _core.RelaxExpr)]

        def call(*tensors):
            it = iter(tensors)
            return func(*[next(it) if isinstance(a, _core.RelaxExpr) else a for a in args],
                        **kwargs)

        return self._bb.emit_te(name, call, exprs)

    def call_te(self, func, *args, **kwargs):
        """emit_te without binding (returns the call)."""
        raise NotImplementedError("call_te is not bound; use emit_te")

    def emit_func_output(self, output, params=None):
        """Finishes the open function with ``output`` (an expression or a list: a tuple)."""
        return self._bb.emit_func_output(output, None if params is None else list(params))

    def get(self):
        """The module built so far."""
        return self._bb.get()

    finalize = get
