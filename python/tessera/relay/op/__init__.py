"""tessera.relay.op: one Python function per op of the C++ op registry (TVM's tvm.relay.op).

The functions are generated from the registry when the package is imported, so every registered
op is callable under its TVM path: ``add`` is ``relay.add`` (and ``relay.op.tensor.add``),
``nn.conv2d`` is ``relay.nn.conv2d``, ``image.resize2d`` is ``relay.image.resize2d``. A call
``relay.nn.conv2d(data, weight, strides=(2, 2), channels=32)`` takes the op's arguments (by
position or by their registered names) followed by its attributes (by keyword, or by position in
the attribute struct's declaration order, which follows TVM's signatures); an attribute given as
None keeps its default. Ops with several results return a TupleWrapper (``batch_norm(...)[0]``).
"""
import sys
import types

from ... import _core
from ..expr import TupleWrapper, as_expr

# Ops whose result is a tuple, with the number of fields given the call's attributes (TVM's
# wrappers return these as TupleWrapper).
_TUPLE_RESULTS = {
    "nn.batch_norm": lambda attrs: 3,
    "split": lambda attrs: (attrs["indices_or_sections"]
                            if isinstance(attrs.get("indices_or_sections"), int)
                            else len(attrs.get("indices_or_sections", ())) + 1),
    "unique": lambda attrs: 5 if attrs.get("return_counts") else 4,
}
# Ops whose TVM function returns the first field of the op's tuple result.
_FIRST_FIELD = {"nn.dropout"}


def get(op_name):
    """The Op node named ``op_name`` (DiagnosticError ``unknown_op`` when there is none)."""
    return _core.op_get(op_name)


def _make_op_function(op_name, info):
    arg_names = list(info["args"])
    attr_names = list(info["attrs"])
    short_name = op_name.rsplit(".", 1)[-1]

    def op_function(*args, **kwargs):
        if len(args) > len(arg_names) + len(attr_names):
            raise TypeError(f"{op_name} takes at most {len(arg_names) + len(attr_names)} "
                            f"arguments ({len(args)} given)")
        values = dict(zip(arg_names + attr_names, args))
        for key, value in kwargs.items():
            if key in values:
                raise TypeError(f"{op_name} got multiple values for argument '{key}'")
            values[key] = value
        missing = [name for name in arg_names if name not in values]
        if missing:
            raise TypeError(f"{op_name} missing required argument(s): {', '.join(missing)}")
        exprs = [as_expr(values.pop(name)) for name in arg_names]
        attrs = {key: value for key, value in values.items() if value is not None}
        call = _core.call_op(op_name, exprs, attrs)
        if op_name in _FIRST_FIELD:
            return _core.tuple_get_item(call, 0)
        if op_name in _TUPLE_RESULTS:
            return TupleWrapper(call, _TUPLE_RESULTS[op_name](attrs))
        return call

    op_function.__name__ = short_name
    op_function.__qualname__ = short_name
    signature = ", ".join(arg_names + [f"{a}=..." for a in attr_names])
    op_function.__doc__ = f"{op_name}({signature})\n\n{info['summary']}"
    return op_function


def _namespace(path):
    """The module object for a dotted namespace under tessera.relay (created on first use and
    entered in sys.modules, so `from tessera.relay import nn` and `import tessera.relay.nn`
    work)."""
    full = "tessera.relay." + path
    module = sys.modules.get(full)
    if module is None:
        module = types.ModuleType(full, f"Ops of the `{path}.` family (generated from the "
                                        "op registry)")
        sys.modules[full] = module
        parent_path, _, leaf = path.rpartition(".")
        parent = _namespace(parent_path) if parent_path else sys.modules["tessera.relay"]
        setattr(parent, leaf, module)
    return module


def _generate():
    """(top-level functions, {family: functions}) for every registered op."""
    top, families = {}, {}
    for op_name in _core.op_names():
        function = _make_op_function(op_name, _core.op_info(op_name))
        # TVM's quantizer registers "relay.op.annotation.simulated_quantize": its family is
        # annotation, as for the other annotation ops.
        family, _, short = op_name.removeprefix("relay.op.").rpartition(".")
        (families.setdefault(family, {}) if family else top)[short] = function
    return top, families


_TOP, _FAMILIES = _generate()
globals().update(_TOP)
__all__ = sorted(_TOP)
# TVM's relay.op.tensor / relay.op.transform / relay.op.reduce hold the top-level ops.
tensor = transform = reduce = types.SimpleNamespace(**_TOP)


def _install_families():
    """Creates relay.nn, relay.image, ... and their relay.op.* aliases; called by
    tessera.relay once the package module exists."""
    for family, functions in _FAMILIES.items():
        module = _namespace(family)
        for short, function in functions.items():
            setattr(module, short, function)
        globals()[family.split(".")[0]] = _namespace(family.split(".")[0])
