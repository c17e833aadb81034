"""``from tessera.script import ir as I``: ``I.ir_module``."""
import inspect

from .. import _core
from ._source import source_of


def ir_module(cls):
    """``@ir_module class MyModule:`` -- the class's ``@T.prim_func`` and ``@R.function``
    definitions as a module: a relax.IRModule, or a tir module when it holds PrimFuncs only
    (tir.Schedule and tessera.build take that)."""
    if not inspect.isclass(cls):
        raise TypeError("ir_module decorates a class of @T.prim_func and @R.function definitions")
    text, path = source_of(cls)
    return _core.tvmscript_module(text, path)
