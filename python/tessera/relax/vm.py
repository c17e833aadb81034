"""relax.build and relax.VirtualMachine (TVM 0.16's names)."""

from .. import _core
from ..tir.build import _time_evaluator

Executable = _core.RelaxExecutable


def build(mod, target="llvm", params=None, exec_mode="bytecode"):
    """Compiles a Relax module for the VM (relax::compile under the current PassContext):
    high-level ops are legalized, PrimFuncs lowered and compiled with LLVM."""
    if params:
        raise NotImplementedError("relax.build(params=) is not bound; use "
                                  "relax.transform.BindParams")
    return _core.relax_build(mod)


class VirtualMachine:
    """``vm = relax.VirtualMachine(ex, tessera.cpu()); vm["main"](x, w)``. call_dps_packed names
    are resolved when the VM is made: register Python functions before."""

    def __init__(self, rt_mod, device=None, memory_cfg=None, profile=False):
        self._vm = _core.relax_vm(rt_mod)
        self.module = self

    def __getitem__(self, name):
        return lambda *args: self._vm.invoke(name, *args)

    def invoke_closure(self, name, *args):
        """Calls function ``name``."""
        return self._vm.invoke(name, *args)

    def time_evaluator(self, func_name, dev=None, number=10, repeat=1, **kwargs):
        """Seconds per call of ``func_name``, timed from Python."""
        return _time_evaluator(self[func_name], number, repeat)
