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
