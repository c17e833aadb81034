"""tessera.contrib.graph_executor: running what relay.build made (TVM's
tvm.contrib.graph_executor) on the C++ graph executor; run() releases the GIL."""
from .. import _core
from ..relay.backend import GraphExecutorFactoryModule, GraphExecutorModule


def _as_ndarray(value):
    return value if isinstance(value, _core.NDArray) else _core.ndarray_from_numpy(value, "")


class GraphModule:
    """``GraphModule(lib["default"](dev))``: set_input, run, get_output."""

    def __init__(self, module):
        if not isinstance(module, GraphExecutorModule):
            raise TypeError("GraphModule expects lib['default'](dev) of a relay.build result")
        self.module = module
        self._executor = module.executor

    def set_input(self, key=None, value=None, **params):
        """Copies inputs in, by name or index; also ``set_input(data=x)``."""
        if key is not None:
            self._executor.set_input(key, _as_ndarray(value))
        for name, item in params.items():
            self._executor.set_input(name, _as_ndarray(item))

    def run(self, **input_dict):
        if input_dict:
            self.set_input(**input_dict)
        self._executor.run()

    def get_output(self, index, out=None):
        """Output ``index`` of the last run; it shares the executor's buffer (the next run
        overwrites it), as TVM's does. With ``out`` it is copied there."""
        result = self._executor.get_output(index)
        if out is not None:
            out.copyfrom(result)
            return out
        return result

    def get_input(self, index):
        if isinstance(index, str):
            index = self._executor.get_input_index(index)
        return self._executor.get_input(index)

    def get_input_index(self, name):
        return self._executor.get_input_index(name)

    def get_num_outputs(self):
        return self._executor.get_num_outputs()

    def get_num_inputs(self):
        return self._executor.get_num_inputs()


def create(graph_json_str, libmod, device):
    """TVM < 0.8's ``graph_executor.create(graph, lib, dev)`` for the graph and lib of one
    relay.build result (whose params the executor already holds)."""
    if not isinstance(libmod, GraphExecutorFactoryModule):
        raise TypeError("create() expects the lib returned by relay.build")
    if graph_json_str != libmod.get_graph_json():
        raise ValueError("the graph is not the one this lib was built with")
    return GraphModule(libmod["default"](device))
