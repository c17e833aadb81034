"""tessera.topi.nn: the neural-network TE operators bound from the C++ topi."""
from .. import _core


def dense(data, weight, bias=None, out_dtype=None):
    """data (..., K) x weight (N, K) -> (..., N)."""
    if bias is not None:
        raise NotImplementedError("topi.nn.dense(bias=) is not bound; add topi.add")
    return _core.topi_dense(data, weight, out_dtype)


def relu(x):
    """max(x, 0)."""
    return _core.topi_relu(x)


def softmax(x, axis=-1):
    """Softmax along ``axis``."""
    return _core.topi_softmax(x, axis)


def log_softmax(x, axis=-1):
    """Log of the softmax along ``axis``."""
    return _core.topi_log_softmax(x, axis)


def conv2d_nchw(Input, Filter, stride, padding, dilation, out_dtype=None):  # pylint: disable=invalid-name
    """2-D convolution, data NCHW and weight OIHW; ``padding`` an int or 2 or 4 values."""
    return _core.topi_conv2d_nchw(Input, Filter, stride, padding, dilation, 1, out_dtype)


def group_conv2d_nchw(Input, Filter, stride, padding, dilation, groups, out_dtype=None):  # pylint: disable=invalid-name
    """Grouped 2-D convolution (weight O, I / groups, KH, KW)."""
    return _core.topi_conv2d_nchw(Input, Filter, stride, padding, dilation, groups, out_dtype)


def pool2d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False, layout="NCHW",
           count_include_pad=True):
    """Max or average pooling (``pool_type`` "max" or "avg")."""
    return _core.topi_pool2d(data, pool_type, kernel, stride, dilation, padding, ceil_mode,
                             count_include_pad, layout)


def global_pool(data, pool_type, layout="NCHW"):
    """Pooling over the whole spatial extent to 1x1."""
    return _core.topi_global_pool2d(data, pool_type, layout)


def adaptive_pool(data, output_size, pool_type, layout="NCHW"):
    """Adaptive pooling to ``output_size``; only ``pool_type="avg"`` is in Tessera's TOPI."""
    if pool_type != "avg":
        from ..error import DiagnosticError
        raise DiagnosticError(f"topi.nn.adaptive_pool: pool_type '{pool_type}' is not supported "
                              "(only 'avg')", code="topi")
    return _core.topi_adaptive_avg_pool2d(data, output_size, layout)


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=None, epsilon=1e-5, center=True,
               scale=True, training=False, momentum=None):
    """Inference batch norm: (x - mean) / sqrt(var + epsilon) * gamma + beta along ``axis``
    (default 1). Returns the normalised tensor only (TVM also returns mean and var)."""
    if training:
        from ..error import DiagnosticError
        raise DiagnosticError("topi.nn.batch_norm(training=True) is not supported", code="topi")
    return _core.topi_batch_norm(data, gamma, beta, moving_mean, moving_var,
                                 1 if axis is None else axis, epsilon, center, scale)


def bias_add(data, bias, axis=1):
    """data + bias broadcast along ``axis``."""
    return _core.topi_bias_add(data, bias, axis)


def pad(data, pad_before, pad_after=None, pad_value=0.0, name="PadInput"):
    """Constant padding (``pad_after`` defaults to ``pad_before``); the stage is named ``name``
    (seed 004 schedules ``s[data_buf]``)."""
    if isinstance(pad_value, float) and pad_value.is_integer() and "float" not in data.dtype:
        pad_value = int(pad_value)  # TVM's tir.const(0.0, "int8") is an int8 zero
    return _core.topi_pad(data, list(pad_before),
                          list(pad_before if pad_after is None else pad_after), pad_value, name)


def flatten(data):
    """(N, ...) -> (N, product of the rest)."""
    rest = 1
    for d in data.shape[1:]:
        rest *= int(d)
    return _core.topi_reshape(data, [data.shape[0], rest])
