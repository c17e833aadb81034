"""relay.build and relay.create_executor (TVM's tvm.relay.build_module) over driver::build, the
graph executor, the VM and the reference interpreter."""
from .. import _core
from ..ir import IRModule
from ..target import _target_string
from ..transform import PassContext
from .backend import GraphExecutorFactoryModule
from .expr import Function

bind_params_by_name = _core.bind_params_by_name


def _as_module(mod):
    if isinstance(mod, Function):
        return IRModule.from_expr(mod)
    if not isinstance(mod, IRModule):
        raise TypeError(f"expected an IRModule or a relay.Function, got {type(mod).__name__}")
    return mod


def build(ir_mod, target=None, target_host=None, executor=None, runtime=None,
          workspace_memory_pools=None, constant_memory_pools=None, params=None,
          mod_name="default"):
    """Compiles ``ir_mod`` for ``target`` (default "llvm", the host CPU) at the current
    PassContext's opt level, binding ``params`` into @main first. Returns a factory:
    ``graph_executor.GraphModule(lib["default"](dev))`` runs it. The GIL is released while it
    compiles."""
    params = {name: value if isinstance(value, _core.NDArray)
              else _core.ndarray_from_numpy(value, "") for name, value in (params or {}).items()}
    built = _core.build(_as_module(ir_mod), _target_string(target), params, False)
    return GraphExecutorFactoryModule(built, mod_name)


def build_config(opt_level=2, required_pass=None, disabled_pass=None, **kwargs):
    """TVM < 0.7's name for a PassContext (seed 003's ``with relay.build_config(opt_level=3)``)."""
    return PassContext(opt_level=opt_level, required_pass=required_pass,
                       disabled_pass=disabled_pass, **kwargs)


class Executor:
    """What create_executor returns: ``evaluate()`` gives a function of @main's inputs."""

    def __init__(self, kind, mod, target, params):
        self.kind = kind
        self.mod = mod
        self.target = target
        self.params = params or {}

    def _bound_module(self):
        if not self.params:
            return self.mod
        mod = self.mod.copy()
        mod["main"] = _core.bind_params_by_name(mod["main"], self.params)
        return mod

    def evaluate(self, expr=None, binds=None):
        if binds:
            raise NotImplementedError("evaluate(binds=...) is not supported")
        if expr is not None:
            self.mod = _as_module(expr)
        mod = self._bound_module()
        if self.kind == "debug":
            return lambda *args: _core.interpret(mod, "main", *args)
        if self.kind == "vm":
            vm = _core.build(mod, self.target, {}, True).virtual_machine()
            return lambda *args: vm.invoke("main", *args)
        executor = _core.build(mod, self.target, {}, False).graph_executor()

        def run(*args):
            for index, value in enumerate(args):
                executor.set_input(index, value if isinstance(value, _core.NDArray)
                                   else _core.ndarray_from_numpy(value, ""))
            executor.run()
            outputs = [executor.get_output(i).copy() for i in range(executor.get_num_outputs())]
            return outputs[0] if len(outputs) == 1 else tuple(outputs)

        return run


def create_executor(kind="debug", mod=None, device=None, target="llvm", params=None):
    """An executor for ``mod``: "debug" runs the reference interpreter, "graph" compiles for the
    graph executor, "vm" for the VM (control flow)."""
    if kind not in ("debug", "graph", "vm"):
        raise ValueError(f"unknown executor kind {kind!r}; expected debug, graph or vm")
    return Executor(kind, _as_module(mod) if mod is not None else IRModule(),
                    _target_string(target), params)
