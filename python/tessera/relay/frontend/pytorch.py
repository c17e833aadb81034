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


def export_onnx(model, input_info, opset_version=14):
    """The serialized ONNX model ``torch.onnx.export`` writes for ``model`` (a torch.nn.Module or
    a traced ScriptModule) called on zeros of the shapes of ``input_info``."""
    import torch  # pylint: disable=import-outside-toplevel

    inputs = _parse_input_info(input_info)
    if not isinstance(model, torch.nn.Module):
        raise _bad(f"model must be a torch.nn.Module or a traced ScriptModule, "
                   f"got {type(model).__name__}")
    args = tuple(torch.zeros(dims, dtype=getattr(torch, dtype)) for _, dims, dtype in inputs)
    buffer = io.BytesIO()
    try:
        with warnings.catch_warnings():
            # PRESERVE mode warns about constant folding even for an eval-mode model, and a
            # traced module has no Python signature to inspect: neither concerns the caller.
            warnings.filterwarnings("ignore", message="It is recommended that constant folding")
            warnings.filterwarnings("ignore", message="no signature found")
            torch.onnx.export(model, args, buffer, input_names=[name for name, _, _ in inputs],
                              opset_version=opset_version,
                              training=torch.onnx.TrainingMode.PRESERVE,
                              do_constant_folding=True)
    except Exception as exc:  # PyTorch's own errors: wrong input count, unsupported op, ...
        raise DiagnosticError(f"from_pytorch: torch.onnx.export failed: {exc}",
                              code="from_pytorch", context="torch.onnx.export") from exc
    return buffer.getvalue(), {name: dims for name, dims, _ in inputs}


def from_pytorch(script_module, input_infos, custom_convert_map=None, default_dtype="float32",
                 use_parser_friendly_name=False, keep_quantized_weight=False,
                 export_renamed_c_graph_path=None):
    """Imports a PyTorch model (``torch.jit.trace(model, x)`` as in TVM, or the module itself).
    ``input_infos``: ``[(name, shape)]`` or ``[(name, (shape, dtype))]`` in the order of the
    model's forward arguments. Returns ``(mod, params)``; the weights are constants of ``mod``
    (``params`` is empty), as from_onnx gives them. A bad ``input_infos`` or a model PyTorch
    cannot export raises DiagnosticError with code ``from_pytorch``."""
    if custom_convert_map:
        raise NotImplementedError("from_pytorch(custom_convert_map=) is not supported: the "
                                  "model goes through ONNX (use tessera.frontend.from_fx and "
                                  "its mapping tables for custom conversions)")
    data, shapes = export_onnx(script_module, input_infos)
    return from_onnx(data, shape=shapes, dtype=default_dtype)
