"""relay.frontend.from_pytorch: a PyTorch model through ``torch.onnx.export`` into memory and
Tessera's C++ ONNX importer (``importOnnxBytes``), TVM's signature and return value.

TVM's from_pytorch translates TorchScript itself; Tessera goes through ONNX, so what imports is
what PyTorch can export to ONNX (opset 14, inside Tessera's 11-18) and Tessera's ONNX importer
supports. The model is exported in the mode it is in (``TrainingMode.PRESERVE``), so an eval-mode
BatchNorm stays ``nn.batch_norm`` instead of being folded into the convolution by PyTorch's
exporter, as TVM's frontend keeps it.
"""
import io
import warnings

from ... import _core
from ...error import DiagnosticError
from .onnx import from_onnx

_DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")


def _bad(message):
    return DiagnosticError(f"from_pytorch: {message}", code="from_pytorch",
                           message=message, context="input_info")


def _parse_input_info(input_info):
    """[(name, shape)] or [(name, (shape, dtype))] as [(name, [dims], dtype)]."""
    if not isinstance(input_info, (list, tuple)) or not input_info:
        raise _bad("input_info must be a non-empty list of (name, shape) or "
                   "(name, (shape, dtype)) pairs")
    parsed = []
    for i, item in enumerate(input_info):
        if not isinstance(item, (list, tuple)) or len(item) != 2 or not isinstance(item[0], str):
            raise _bad(f"input_info[{i}] must be a (name, shape) pair, got {item!r}")
        name, spec = item
        dtype = "float32"
        if (isinstance(spec, (list, tuple)) and len(spec) == 2
                and isinstance(spec[0], (list, tuple)) and isinstance(spec[1], str)):
            spec, dtype = spec
        if dtype not in _DTYPES:
            raise _bad(f"input '{name}': unknown dtype '{dtype}'")
        try:
            dims = [int(d) for d in spec]
        except (TypeError, ValueError):
            raise _bad(f"input '{name}': the shape must be a list of ints, "
                       f"got {spec!r}") from None
        if any(d <= 0 for d in dims) or any(isinstance(d, bool) for d in spec):
            raise _bad(f"input '{name}': the shape must be positive ints, got {spec!r}")
        parsed.append((name, dims, dtype))
    if len({name for name, _, _ in parsed}) != len(parsed):
        raise _bad("input names must be distinct")
    return parsed


def _custom_op_type(kind):
    """The ONNX op type of the custom node for TorchScript op ``kind`` ("aten::foo" ->
    "aten_foo", in domain "tessera")."""
    return kind.replace("::", "_")


def _custom_symbolic(kind):
    """A torch.onnx symbolic exporting each ``kind`` op as one ``tessera::<kind>`` node whose
    inputs are the op's arguments (scalars become constant inputs; None arguments are left out)."""

    def symbolic(g, *args):
        import torch  # pylint: disable=import-outside-toplevel
        values = [a for a in args if isinstance(a, torch._C.Value)  # pylint: disable=W0212
                  and not a.type().kind() == "NoneType"]
        return g.op(f"{_CUSTOM_DOMAIN}::{_custom_op_type(kind)}", *values)

    return symbolic


_CUSTOM_DOMAIN = "tessera"


def _check_custom_map(custom_convert_map):
    if not isinstance(custom_convert_map, dict):
        raise _bad("custom_convert_map must be a dict {op kind: function}")
    for kind, fn in custom_convert_map.items():
        if not isinstance(kind, str) or "::" not in kind or not callable(fn):
            raise DiagnosticError(
                f"from_pytorch: custom_convert_map entries must be 'namespace::op' -> function, "
                f"got {kind!r}", code="from_pytorch", context="custom_convert_map")


def export_onnx(model, input_info, opset_version=14, custom_convert_map=None):
    """The serialized ONNX model ``torch.onnx.export`` writes for ``model`` (a torch.nn.Module or
    a traced ScriptModule) called on zeros of the shapes of ``input_info``; the ops named in
    ``custom_convert_map`` are exported as ``tessera::`` custom nodes (registered for this export
    only)."""
    import torch  # pylint: disable=import-outside-toplevel

    inputs = _parse_input_info(input_info)
    if not isinstance(model, torch.nn.Module):
        raise _bad(f"model must be a torch.nn.Module or a traced ScriptModule, "
                   f"got {type(model).__name__}")
    args = tuple(torch.zeros(dims, dtype=getattr(torch, dtype)) for _, dims, dtype in inputs)
    buffer = io.BytesIO()
    custom = list(custom_convert_map or {})
    for kind in custom:
        torch.onnx.register_custom_op_symbolic(kind, _custom_symbolic(kind), opset_version)
    try:
        with warnings.catch_warnings():
            # PRESERVE mode warns about constant folding even for an eval-mode model, and a
            # traced module has no Python signature to inspect: neither concerns the caller.
            warnings.filterwarnings("ignore", message="It is recommended that constant folding")
            warnings.filterwarnings("ignore", message="no signature found")
            # Custom nodes have no ONNX shape inference; the importer types them from f's result.
            warnings.filterwarnings("ignore", message="The shape inference of tessera::")
            torch.onnx.export(model, args, buffer, input_names=[name for name, _, _ in inputs],
                              opset_version=opset_version,
                              training=torch.onnx.TrainingMode.PRESERVE,
                              do_constant_folding=True,
                              custom_opsets={_CUSTOM_DOMAIN: 1} if custom else None)
    except Exception as exc:  # PyTorch's own errors: wrong input count, unsupported op, ...
        raise DiagnosticError(f"from_pytorch: torch.onnx.export failed: {exc}",
                              code="from_pytorch", context="torch.onnx.export") from exc
    finally:
        for kind in custom:
            torch.onnx.unregister_custom_op_symbolic(kind, opset_version)
    return buffer.getvalue(), {name: dims for name, dims, _ in inputs}


def from_pytorch(script_module, input_infos, custom_convert_map=None, default_dtype="float32",
                 use_parser_friendly_name=False, keep_quantized_weight=False,
                 export_renamed_c_graph_path=None):
    """Imports a PyTorch model (``torch.jit.trace(model, x)`` as in TVM, or the module itself).
    ``input_infos``: ``[(name, shape)]`` or ``[(name, (shape, dtype))]`` in the order of the
    model's forward arguments. Returns ``(mod, params)``; the weights are constants of ``mod``
    (``params`` is empty), as from_onnx gives them. A bad ``input_infos`` or a model PyTorch
    cannot export raises DiagnosticError with code ``from_pytorch``.

    ``custom_convert_map`` (TVM's): ``{"aten::op" or "namespace::op": f}`` with
    ``f(inputs, input_types)`` returning the Relay expression (or a list, one per output) of the
    op from its inputs (Relay expressions; scalar arguments arrive as constants, None arguments
    are left out) and their dtypes. Each such op is exported as a custom ONNX node and converted
    by ``f`` during the import; an exception ``f`` raises propagates."""
    if custom_convert_map:
        _check_custom_map(custom_convert_map)
    data, shapes = export_onnx(script_module, input_infos,
                               custom_convert_map=custom_convert_map)
    if not custom_convert_map:
        return from_onnx(data, shape=shapes, dtype=default_dtype)
    converters = {f"{_CUSTOM_DOMAIN}::{_custom_op_type(kind)}": fn
                  for kind, fn in custom_convert_map.items()}
    return _core.from_onnx_bytes(data, shapes, "model.onnx", converters), {}
