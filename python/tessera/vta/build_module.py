"""vta.build_config(), vta.lower, vta.build and running a lowered PrimFunc on the simulator."""
import numpy as np

from .. import _core
from ..transform import PassContext
from . import simulator
from .environment import _config_of


class _VtaPassContext(PassContext):
    """A PassContext with VTA's lowering passes; counts how many are entered, so vta.build and
    vta.lower know whether they run inside one (TVM checks its ``tir.add_lower_pass`` config)."""

    active = 0

    def __enter__(self):
        super().__enter__()
        _VtaPassContext.active += 1
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _VtaPassContext.active -= 1
        super().__exit__(exc_type, exc_value, traceback)


def build_config(opt_level=3, config=None, disabled_pass=None, env=None, **kwargs):
    """TVM's ``vta.build_config()``: a PassContext whose TIR lowering runs VTA's passes
    (``vta::addVtaLowerPasses``: DMA and ALU intrinsics, co-processor sync, micro-op folding, at
    their phases) and skips common-subexpression elimination. Use as ``with``."""
    if kwargs.get("debug_flag"):
        raise NotImplementedError("build_config(debug_flag=) is not bound")
    ctx = _VtaPassContext(opt_level=opt_level, config=config, disabled_pass=disabled_pass)
    _core.vta_add_lower_passes(ctx, _config_of(env))
    return ctx


def _in_vta_context(fn):
    """``fn()`` under the VTA PassContext already entered, or under a new build_config()."""
    if _VtaPassContext.active:
        return fn()
    with build_config():
        return fn()


def lower(inputs, args=None, name="main", simple_mode=False, **kwargs):
    """TVM's ``vta.lower``: ``tvm.lower`` under build_config() (unless inside one already)."""
    from ..tir.build import lower as tir_lower  # pylint: disable=import-outside-toplevel
    return _in_vta_context(lambda: tir_lower(inputs, args, name=name, simple_mode=simple_mode,
                                             **kwargs))


_SAVED = {}  # absolute path -> module saved there by this process (rpc.LocalSession loads it)


class Module:
    """What vta.build makes: the PrimFunc lowered with VTA's passes, run on the simulator
    (``f(data, kernel, res)`` fills ``res`` as TVM's does). Tessera has no object-file codegen
    for VTA: ``save`` writes the lowered TVMScript and remembers the module for this process."""

    def __init__(self, mod, name):
        self.mod = mod
        self.entry_name = name

    def __call__(self, *args):
        run(self.mod, *args)

    def __getitem__(self, name):
        if name != self.entry_name:
            raise AttributeError(f"the module has no function {name!r}; it has "
                                 f"{self.entry_name!r}")
        return self

    get_function = __getitem__

    def get_source(self, fmt="tir"):
        """The lowered program as TVMScript."""
        return self.mod.script()

    def save(self, path, fmt=""):
        """Writes the lowered TVMScript to ``path``; ``rpc.LocalSession().load_module`` of that
        file returns this module."""
        import os  # pylint: disable=import-outside-toplevel
        with open(path, "w") as f:
            f.write(self.mod.script())
        _SAVED[os.path.abspath(path)] = self

    export_library = save


def build(inputs, args=None, target=None, target_host=None, name="main", **kwargs):
    """TVM's ``vta.build(s, [data, kernel, res], target, name=)``: lowered under build_config()
    (or the one entered) into a Module run by the simulator."""
    from ..tir.build import lower as tir_lower  # pylint: disable=import-outside-toplevel
    mod = _in_vta_context(lambda: tir_lower(inputs, args, name=name))
    return Module(mod, name)


def _prim_func(func):
    if isinstance(func, _core.TirModule):
        names = func.names()
        return func["main"] if "main" in func else func[names[0]]
    if isinstance(func, _core.PrimFunc):
        return func
    raise TypeError(f"expected a lowered PrimFunc or module, got {type(func).__name__}")


def run(func, *args, queue=None):
    """Runs a PrimFunc lowered under ``build_config()`` on the simulator (``simulator.queue()``
    unless ``queue`` is given). Each argument (NDArray or NumPy array, in the PrimFunc's parameter
    order) is copied to device memory; afterwards every argument is updated in place from it, as
    TVM's ``f(data, kernel, res)`` fills ``res``. Returns the arguments' device contents as
    NDArrays."""
    queue = queue or simulator.queue()
    arrays = [a if isinstance(a, _core.NDArray) else np.ascontiguousarray(a) for a in args]
    results = queue.run(_prim_func(func), *arrays)
    for arg, result in zip(args, results):
        if isinstance(arg, _core.NDArray):
            arg.copyfrom(result)
        elif isinstance(arg, np.ndarray) and arg.flags.writeable:
            arg[...] = result.numpy()
    return results
