"""tessera.topi.testing: NumPy references TVM's tutorials check against."""
import numpy as np


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d_nchw_python(a_np, w_np, stride, padding, groups=1):
    """2-D convolution, NCHW data and OIHW weights, in NumPy (TVM's reference's signature; one
    group only). ``padding`` is an int, (pad_h, pad_w) or (top, left, bottom, right)."""
    if groups != 1:
        raise NotImplementedError("conv2d_nchw_python: groups > 1")
    sh, sw = _pair(stride)
    pad = _pair(padding) if isinstance(padding, int) or len(padding) == 2 else tuple(padding)
    top, left, bottom, right = pad * 2 if len(pad) == 2 else pad
    batch, _, height, width = a_np.shape
    out_c, _, kh, kw = w_np.shape
    a = np.pad(a_np, ((0, 0), (0, 0), (top, bottom), (left, right)))
    out_h = (height + top + bottom - kh) // sh + 1
    out_w = (width + left + right - kw) // sw + 1
    out = np.zeros((batch, out_c, out_h, out_w), dtype=np.result_type(a_np, w_np))
    for dy in range(kh):
        for dx in range(kw):
            window = a[:, :, dy:dy + sh * out_h:sh, dx:dx + sw * out_w:sw]
            out += np.einsum("nchw,oc->nohw", window, w_np[:, :, dy, dx], optimize=True)
    return out
