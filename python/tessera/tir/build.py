"""Building PrimFuncs (TVM's tvm.build / tvm.tir.build): the module is lowered by the TIR
pipeline under the current PassContext and compiled with LLVM for the CPU; the result's functions
are called with NDArrays (or NumPy arrays, which are copied in, so outputs must be NDArrays)."""
import time

from .. import _core
from ..target import Target
from ..te_schedule import Schedule as TeSchedule


def _as_module(inputs, name="main"):
    if isinstance(inputs, _core.TirModule):
        return inputs
    if isinstance(inputs, _core.PrimFunc):
        return _core.TirModule.from_func(inputs, name)
    if isinstance(inputs, _core.Schedule):
        return inputs.mod
    if isinstance(inputs, dict):
        mod = _core.TirModule()
        for key, func in inputs.items():
            mod[key] = func
        return mod
    raise TypeError("build expects a PrimFunc, a module of PrimFuncs or a Schedule, got "
                    f"{type(inputs).__name__}")


class _TimeResult:
    def __init__(self, results):
        self.results = results
        self.mean = sum(results) / len(results)
        self.median = sorted(results)[len(results) // 2]
        self.min = min(results)
        self.max = max(results)

    def __repr__(self):
        return f"mean {self.mean * 1e3:.6f} ms over {len(self.results)} repeats"


def _time_evaluator(f, number, repeat):
    """A function calling ``f`` ``number`` times per repeat and returning the seconds per call of
    each repeat; shared by built PrimFuncs and the Relax VM."""

    def evaluate(*args):
        results = []
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(number):
                f(*args)
            results.append((time.perf_counter() - start) / number)
        return _TimeResult(results)

    return evaluate


class Module:
    """Compiled PrimFuncs: ``lib["main"](a, b, c)``, ``lib(a, b, c)`` for a single function,
    ``time_evaluator``, ``get_source()`` (LLVM IR), ``export_library``."""

    def __init__(self, lib):
        self._lib = lib

    def __getitem__(self, name):
        if not self._lib.has_function(name):
            raise AttributeError(f"the module has no function {name!r}; it has "
                                 f"{', '.join(self._lib.function_names)}")
        return lambda *args: self._lib.call(name, *args)

    def __call__(self, *args):
        return self._lib.call(self.entry_name, *args)

    @property
    def entry_name(self):
        """The function ``lib(...)`` calls (TVM's ``func.entry_name``): the only one, or the
        module's entry."""
        names = self._lib.function_names
        if len(names) == 1:
            return names[0]
        return self._lib.entry_name or "main"

    def get_function(self, name):
        """The function ``name`` as a callable."""
        return self[name]

    def get_source(self, fmt="ll"):
        """The optimized LLVM IR."""
        return self._lib.get_source()

    def export_library(self, path):
        """Writes a shared library."""
        self._lib.export_library(path)

    def time_evaluator(self, func_name, dev=None, number=10, repeat=1, min_repeat_ms=0, **kwargs):
        """A function running ``func_name`` ``number`` times per repeat and returning the
        seconds per run (``.mean``, ``.results``), timed from Python around the C++ call."""
        return _time_evaluator(self[func_name], number, repeat)


def _is_target(value):
    return isinstance(value, (str, Target))


def _from_te(inputs, args, name):
    """A legacy TE schedule (te.create_schedule) replayed on a tir.Schedule, as a module."""
    if args is None or _is_target(args):
        raise TypeError("a te.create_schedule schedule needs its argument tensors: "
                        "tvm.lower(s, [A, B, C]) / tvm.build(s, [A, B, C], target)")
    # The compiled symbol is the function's global_symbol (create_prim_func's is "main").
    func = inputs.to_tir(list(args), name).func.with_attr("global_symbol", name)
    return _core.TirModule.from_func(func, name)


def build(inputs, args=None, target=None, target_host=None, name="main", **kwargs):
    """Compiles a PrimFunc, a module of PrimFuncs (``sch.mod``), a dict of them, or a TE schedule
    with its argument tensors (``tvm.build(s, [A, B, C], "llvm")``). As in Tessera before TVM's
    ``args`` was accepted, a target in ``args``'s place is the target."""
    if _is_target(args):
        args, target = None, args
    if isinstance(inputs, TeSchedule):
        mod = _from_te(inputs, args, name)
    else:
        mod = _as_module(inputs, name)
    return Module(_core.tir_build(mod, str(target or "llvm")))


def lower(inputs, args=None, name="main", binds=None, simple_mode=False, **kwargs):
    """The module after the TIR lowering pipeline (flat loops, no blocks), of a PrimFunc, a
    module, a tir.Schedule or a TE schedule with its arguments (``tvm.lower(s, [A, B, C])``)."""
    if binds:
        raise NotImplementedError("lower(binds=) is not bound")
    if isinstance(inputs, TeSchedule):
        return _core.tir_lower(_from_te(inputs, args, name))
    return _core.tir_lower(_as_module(inputs, name))
