"""relay.frontend.from_onnx over Tessera's C++ ONNX importer (opsets 11-18)."""
import os

from ... import _core


def from_onnx(model, shape=None, dtype="float32", opset=None, freeze_params=True,
              convert_config=None, export_node_renamed_model_path=None):
    """Imports an ONNX model (an ``onnx.ModelProto``, its serialized bytes, or a file path) with
    ``shape`` fixing input shapes by name. Returns ``(mod, params)``; initializers become
    constants of the module (TVM's freeze_params=True), so params is empty."""
    if not freeze_params:
        raise NotImplementedError("from_onnx(freeze_params=False) is not supported: "
                                  "initializers always become constants")
    shapes = {name: [int(d) for d in dims] for name, dims in (shape or {}).items()}
    if isinstance(model, (str, os.PathLike)):
        return _core.load_model(os.fspath(model), shapes), {}
    if hasattr(model, "SerializeToString"):
        model = model.SerializeToString()
    if not isinstance(model, (bytes, bytearray)):
        raise TypeError("from_onnx expects an onnx.ModelProto, bytes or a path")
    return _core.from_onnx_bytes(bytes(model), shapes, "model.onnx"), {}
