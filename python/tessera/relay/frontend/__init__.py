"""tessera.relay.frontend: model importers (TVM's tvm.relay.frontend)."""
from .onnx import from_onnx
from .pytorch import from_pytorch
