"""``from tessera.script import relax as R``: ``@R.function``. Every other name (``R.Tensor``,
``R.dataflow``, ``R.call_dps_packed``, ...) is a placeholder that lets Python evaluate a
definition's annotations; the C++ parser gives them their meaning."""
from .. import _core
from ._source import Placeholder, in_class_body, source_of


def function(func=None, private=False):
    """``@R.function`` (or ``@R.function(private=True)``): the decorated function as a
    relax.Function. Inside an ``ir_module`` class the function is left to the class decorator
    (it may call the module's PrimFuncs through ``cls``)."""
    def parse(f):
        text, path = source_of(f)
        _, parsed = _core.tvmscript_relax_function(text, path)
        return parsed

    def wrap(f):
        if in_class_body():
            return f
        return parse(f)

    if func is None:
        return wrap
    if in_class_body():
        return func
    return parse(func)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Placeholder("R." + name)
