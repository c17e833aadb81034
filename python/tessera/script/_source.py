"""The decorators' common part: the source of a decorated object, handed to the C++ parser."""
import inspect
import sys
import textwrap

from .. import _core


def from_source(text, source_name="<tvmscript>"):
    """Parses TVMScript text: a module (``@I.ir_module`` class, or top-level ``@T.prim_func``
    and ``@R.function`` definitions) as a relax.IRModule, or a tir module when it holds PrimFuncs
    only."""
    return _core.tvmscript_module(textwrap.dedent(text), source_name)


def source_of(obj):
    """The decorated definition's source and file. The text is preceded by blank lines so that
    its line numbers, in diagnostics, are those of the file."""
    try:
        lines, first = inspect.getsourcelines(obj)
        path = inspect.getsourcefile(obj) or "<tvmscript>"
    except (OSError, TypeError) as err:
        raise TypeError(f"TVMScript needs the source of {obj!r} (define it in a file, not in an "
                        f"interactive prompt): {err}") from None
    text = textwrap.dedent("".join(lines))
    return "\n" * (first - 1) + text, path


def in_class_body(depth=2):
    """Whether the decorator is being applied inside a class body being defined: there, a
    ``@T.prim_func`` or ``@R.function`` is part of an ``ir_module`` class, which parses the whole
    class, so the decorator leaves the function as it is."""
    frame = sys._getframe(depth)  # pylint: disable=protected-access
    names = frame.f_locals
    return "__module__" in names and "__qualname__" in names and frame.f_code.co_name != "<module>"


class Placeholder:
    """What ``T.handle``, ``R.Tensor((1, "m"), "float32")`` and other annotations evaluate to
    when Python runs a decorated definition: the parser reads them from the source instead."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder(self._name + "." + name)

    def __getitem__(self, key):
        return self

    def __repr__(self):
        return self._name
