"""vta.build_config() and running a lowered PrimFunc on the simulator."""
import numpy as np

from .. import _core
from ..transform import PassContext
from . import simulator
from .environment import _config_of


def build_config(opt_level=3, config=None, disabled_pass=None, env=None, **kwargs):
    """TVM's ``vta.build_config()``: a PassContext whose TIR lowering runs VTA's passes
    (``vta::addVtaLowerPasses``: DMA and ALU intrinsics, co-processor sync, micro-op folding, at
    their phases) and skips common-subexpression elimination. Use as ``with``."""
    if kwargs.get("debug_flag"):
        raise NotImplementedError("build_config(debug_flag=) is not bound")
    ctx = PassContext(opt_level=opt_level, config=config, disabled_pass=disabled_pass)
    _core.vta_add_lower_passes(ctx, _config_of(env))
    return ctx


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
