"""tessera.frontend: PyTorch importers.

``from_pytorch(model, input_info)`` (TVM's ``relay.frontend.from_pytorch``): the model exported by
``torch.onnx.export`` into memory and imported by Tessera's C++ ONNX importer, giving a Relay
``(mod, params)``. ``from_fx(model, input_info)`` (TVM's ``relax.frontend.torch.from_fx``): a
``torch.fx.symbolic_trace`` graph walked node by node into a Relax module through the
BlockBuilder, with mapping tables users extend (``register_nn_module``, ``register_function``,
``map_param``; seed 002's structure). PyTorch (Debian's python3-torch) is imported on first use.
"""
from ..relay.frontend.pytorch import from_pytorch
from .fx import (from_fx, map_param, register_function, register_nn_module, MAP_FUNCTION,
                 MAP_NN_MODULE)

__all__ = ["from_pytorch", "from_fx", "map_param", "register_function", "register_nn_module",
           "MAP_FUNCTION", "MAP_NN_MODULE"]
