"""Tessera for Python: the C++ compiler under TVM 0.16's names.

``import tessera`` is a thin binding (``tessera._core``, pybind11) over Tessera's C++ library, laid
out as TVM's Python package: ``tessera.relay`` (graph IR, ops, passes, build, quantize),
``tessera.transform`` (PassContext, Sequential), ``tessera.nd`` (NDArray, DLPack),
``tessera.contrib.graph_executor``, ``tessera.register_func``, ``tessera.te``, ``tessera.tir``
(Schedule, build), ``tessera.relax`` (BlockBuilder, VM), ``tessera.vta`` (graph packing, VTA
lowering, simulator), ``tessera.script`` (TVMScript in: ``ir_module``, ``T.prim_func``,
``R.function``), ``tessera.frontend`` (PyTorch: ``from_pytorch``, ``from_fx``),
``tessera.meta_schedule`` (``tune_tir``, ``compile_tir``). A TVM script runs after replacing
``tvm`` with ``tessera``. What is bound and how: docs/design/python-package.md.
"""
from . import _ffi
from .error import DiagnosticError, InternalError, TesseraError, TVMError
from .runtime import Device, cpu, device, context, ext_dev
from . import runtime
from . import ndarray as nd
from ._ffi import register_func, get_global_func, list_global_func_names, remove_global_func
from . import ir
from .ir import IRModule, structural_equal, structural_hash
from . import target
from . import transform
from . import relay
from . import parser
from . import contrib
from . import te
from . import topi
from . import tir
from . import relax
from . import vta
from . import script
from . import frontend
from . import meta_schedule
from . import rpc
from . import testing
from .tir.build import build, lower

__version__ = "0.1.0"
