"""tessera.relay.quantize: int8 quantization (TVM's tvm.relay.quantize) over the C++ quantizer.

``with relay.quantize.qconfig(calibrate_mode="global_scale", global_scale=8.0):`` enters a
QConfig scope; ``quantize(mod, params, dataset)`` quantizes under it and the current
PassContext (whose opt level gates prerequisite_optimize, as TVM's).
"""
from ... import _core


class QConfig(_core.QConfig):
    """A quantization configuration; a context manager that makes it current."""

    def __init__(self, **fields):
        super().__init__()
        for key, value in fields.items():
            if not hasattr(_core.QConfig, key):
                raise AttributeError(f"qconfig has no field {key!r}")
            setattr(self, key, value)

    def __enter__(self):
        self._enter()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._exit()


def qconfig(**kwargs):
    """A QConfig with qconfig()'s defaults (skip_conv_layers=[0], ...) and ``kwargs``."""
    return QConfig(**kwargs)


def current_qconfig():
    """The configuration in effect (the innermost ``with qconfig(...)``)."""
    return _core.current_qconfig()


def quantize(mod, params=None, dataset=None):
    """The quantized module. ``dataset`` (calibration batches: dicts of input name to array) is
    needed by the kl_divergence and percentile calibrate modes."""
    return _core.quantize(mod, params, dataset)


def prerequisite_optimize(mod, params=None):
    """Binds params, then SimplifyInference, FoldConstant, FoldScaleAxis, CanonicalizeOps,
    FoldConstant under the current PassContext."""
    return _core.prerequisite_optimize(mod, params)


def partition():
    """The partition stage as a pass."""
    return _core.quantize_stage_pass("partition")


def annotate():
    """The annotate stage as a pass."""
    return _core.quantize_stage_pass("annotate")


def realize():
    """The realize stage as a pass."""
    return _core.quantize_stage_pass("realize")


def _forward_op(ref_call, args):
    """A call of ``ref_call``'s op with its attributes and span on ``args`` (TVM's
    quantize._forward_op, used by partition rules)."""
    return _core.forward_op(ref_call, list(args))
