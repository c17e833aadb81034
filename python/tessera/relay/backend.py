"""tessera.relay.backend: what relay.build returns (TVM's GraphExecutorFactoryModule)."""
import warnings

from .. import _core


class GraphExecutorModule:
    """A compiled model bound to a device: what ``lib["default"](dev)`` gives and
    ``graph_executor.GraphModule`` wraps."""

    def __init__(self, built, device):
        self.built = built
        self.device = device
        self.executor = built.graph_executor()


class GraphExecutorFactoryModule:
    """The result of relay.build: compiled kernels, the graph executor's program and the params.
    ``lib["default"](dev)`` makes an executor; ``export_library(dir)`` writes kernels.so,
    graph.json and params.npz to a directory (Tessera's model directory, not one .so file)."""

    def __init__(self, built, mod_name="default"):
        self.built = built
        self.mod_name = mod_name

    def __getitem__(self, name):
        if name != self.mod_name:
            raise KeyError(f"no function {name!r}; relay.build made {self.mod_name!r}")
        return lambda device: GraphExecutorModule(self.built, device)

    def get_graph_json(self):
        return self.built.get_graph_json()

    def get_params(self):
        return self.built.get_params()

    def get_lib(self):
        return self

    def export_library(self, directory):
        self.built.export_library(str(directory))

    def __iter__(self):
        # TVM < 0.8's `graph, lib, params = relay.build(...)`.
        warnings.warn("legacy graph executor behavior of producing json / lib / params will be "
                      "removed in the next release.", DeprecationWarning, 2)
        yield self.get_graph_json()
        yield self
        yield self.get_params()


def load_module(directory):
    """A model directory written by export_library (or `tessera compile`)."""
    return GraphExecutorFactoryModule(_core.load_built(str(directory)))
