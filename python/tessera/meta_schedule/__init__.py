"""tessera.meta_schedule: the auto-tuner under TVM 0.16's names (seed 002's ``ms.tune_tir``,
``ms.space_generator.ScheduleFn``, ``ms.tir_integration.compile_tir``) over Tessera's C++ tuner
(src/tune; docs/user/tuning.md). One PrimFunc is tuned per call: its design space is a Python
space function's (``ScheduleFn``, run once to trace its sampling instructions) or the target's
default schedule's; candidates are searched (evolutionary or random), built in-process and
measured in forked children, and every measurement is committed to the database, in memory or
under ``work_dir`` (the files ``tessera tune --db`` reads and writes)."""
import os
import sys
import types

from .. import _core
from ..error import DiagnosticError

Database = _core.TuneDatabase


class ScheduleFn:
    """A design space given by a function that schedules a ``tir.Schedule`` in place with
    sampling instructions (seed 002's ``stochastic_schedule_mm``)."""

    def __init__(self, sch_fn):
        if not callable(sch_fn):
            raise TypeError("ScheduleFn expects a function taking a tir.Schedule")
        self.sch_fn = sch_fn


space_generator = types.SimpleNamespace(ScheduleFn=ScheduleFn)


def _prim_func(mod):
    """The PrimFunc of a module of one function (or the PrimFunc itself)."""
    if isinstance(mod, _core.PrimFunc):
        return mod
    try:
        return mod["main"]
    except Exception:  # pylint: disable=broad-except
        raise DiagnosticError("meta_schedule: expected a PrimFunc or a module with a 'main' "
                              f"PrimFunc, got {type(mod).__name__}", code="tune") from None


def tune_tir(mod, target, work_dir=None, max_trials_global=64, *, num_trials_per_iter=64,
             database=None, cost_model="xgb", strategy="evolutionary", space=None,
             task_name="main", seed=None, verbose=True, **unsupported):
    """Tunes ``mod``'s ``main`` PrimFunc for ``target`` (``"llvm --num-cores=N"``: the core
    count is required, as in TVM) and returns the database of measurements. ``space`` is a
    ``ScheduleFn`` (or a plain function), or None / "post-order-apply" (TVM's default) for the
    rule-made spaces (post-order-apply) beside the target's default schedule's space;
    ``strategy`` is "evolutionary" or "replay-trace" (random search); ``cost_model`` "xgb" (the
    analytic model until it has 100 measurements), "analytic" or "random". The log (trial lines, TVM's task table) is printed when ``verbose`` and written to
    ``work_dir/logs/tune_tir.log``. Builder, runner and task-scheduler arguments of TVM are not
    taken (the C++ tuner's own are used)."""
    if unsupported:
        raise TypeError("tune_tir: unsupported arguments " + ", ".join(sorted(unsupported)))
    if strategy not in ("evolutionary", "replay-trace", "random"):
        raise DiagnosticError(f"tune_tir: unknown strategy '{strategy}'", code="tune")
    func = _prim_func(mod)
    if database is None:
        database = Database(work_dir) if work_dir else Database()
    fn = space.sch_fn if isinstance(space, ScheduleFn) else space
    if fn == "post-order-apply":  # TVM's default space generator, by its name
        fn = None
    if isinstance(fn, str):
        raise DiagnosticError(f"tune_tir: space '{fn}' is not supported (a ScheduleFn, "
                              "'post-order-apply' or None)", code="tune")
    name = getattr(fn, "__name__", "space") if fn is not None else "default"
    log = _core.tune_tir(func, str(target), database, int(max_trials_global),
                         int(num_trials_per_iter), fn, name, task_name, cost_model,
                         strategy == "evolutionary", 0 if seed is None else int(seed))
    if work_dir:
        os.makedirs(os.path.join(work_dir, "logs"), exist_ok=True)
        with open(os.path.join(work_dir, "logs", "tune_tir.log"), "a") as f:
            f.write(log)
    if verbose:
        sys.stdout.write(log)
        sys.stdout.flush()
    return database


def compile_tir(database, mod, target):
    """A ``tir.Schedule`` of ``mod`` whose ``mod["main"]`` is the function as the database's best
    record schedules it (TVM's compile_tir; the schedule's own trace is empty: the record's
    trace was replayed in C++). None when the database has no record for it on ``target``."""
    from ..ir import IRModule  # pylint: disable=import-outside-toplevel
    from ..tir import Schedule  # pylint: disable=import-outside-toplevel
    best = _core.compile_tir(database, _prim_func(mod), str(target))
    if best is None:
        return None
    return Schedule(IRModule.from_expr(best.with_attr("global_symbol", "main")))


tir_integration = types.SimpleNamespace(compile_tir=compile_tir)
