"""relax.transform: the Relax passes Tessera has."""
from .. import _core


class BindParams:
    """``BindParams("main", {"w0": nd, ...})(mod)``: replaces the named parameters of a function
    by constants, inferring symbolic dimensions from their shapes."""

    def __init__(self, func_name, params):
        self.func_name = func_name
        self.params = dict(params)

    def __call__(self, mod):
        return _core.relax_bind_params(mod, self.func_name, self.params)
