"""relax.frontend.torch.from_fx (TVM 0.16's path): tessera.frontend.fx under TVM's name."""
from ...frontend.fx import from_fx, map_param, register_function, register_nn_module

__all__ = ["from_fx", "map_param", "register_function", "register_nn_module"]
