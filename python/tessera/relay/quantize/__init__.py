"""tessera.relay.quantize: int8 quantization (TVM's tvm.relay.quantize) over the C++ quantizer.

``with relay.quantize.qconfig(calibrate_mode="global_scale", global_scale=8.0):`` enters a
QConfig scope; ``quantize(mod, params, dataset)`` quantizes under it and the current
PassContext (whose opt level gates prerequisite_optimize, as TVM's). Partition rules written in
Python (``register_partition_function``, seed 001) are in ``_partition``.
"""
from . import quantize as _quantize_module  # noqa: F401 (tvm.relay.quantize.quantize)
from . import _partition
from .quantize import (QConfig, qconfig, current_qconfig, quantize, prerequisite_optimize,
                       partition, annotate, realize, _forward_op)
from ._partition import register_partition_function, QPartitionExpr, partition_expr_check
