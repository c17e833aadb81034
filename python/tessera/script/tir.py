"""``from tessera.script import tir as T``: ``@T.prim_func``. Every other name (``T.handle``,
``T.Buffer``, ``T.int64``, ...) is a placeholder that lets Python evaluate a definition's
annotations; the C++ parser gives them their meaning."""
from .. import _core
from ._source import Placeholder, in_class_body, source_of


def prim_func(func=None, private=False):
    """``@T.prim_func`` (or ``@T.prim_func(private=True)``): the decorated function as a
    tir.PrimFunc. Inside an ``ir_module`` class the function is left to the class decorator."""
    def wrap(f):
        if in_class_body():
            return f
        text, path = source_of(f)
        return _core.tvmscript_prim_func(text, path)

    if func is None:
        return wrap
    if in_class_body():
        return func
    text, path = source_of(func)
    return _core.tvmscript_prim_func(text, path)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Placeholder("T." + name)
