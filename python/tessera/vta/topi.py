"""vta.topi: the packed 2-D convolution (TVM's ``vta.top.conv2d_packed`` with seed 004's
requantize tail) as a PrimFunc, and seed 004's schedule of it (src/vta/topi/conv2d_packed.h)."""
from .. import _core
from .environment import _config_of


def conv2d_packed_func(batch=1, in_channels=256, height=14, width=14, out_channels=256, kernel=3,
                       pad=1, stride=1, shift=8, env=None):
    """create_prim_func of the layer: data (N/b, C/ci, H, W, b, ci) int8, kernel
    (O/co, C/ci, kh, kw, co, ci) int8 -> res (N/b, O/co, OH, OW, b, co) int8 =
    clip(conv >> shift, 0, 127). Parameters (data, kernel, res); the defaults are seed 004's."""
    shape = dict(batch=batch, in_channels=in_channels, height=height, width=width,
                 out_channels=out_channels, kernel=kernel, pad=pad, stride=stride, shift=shift)
    return _core.vta_conv2d_packed_func(_config_of(env), shape)


def schedule_conv2d_packed(sch, shape=None, knobs=None, tensorize=True, env=None):
    """Applies seed 004's schedule to ``sch`` (a tir.Schedule of conv2d_packed_func's PrimFunc):
    ``shape`` the layer's fields as conv2d_packed_func takes them (seed 004's by default),
    ``knobs`` {tile_b, tile_co, tile_h, tile_w, tile_ci, oc_threads, h_threads} (seed 004's
    choices when shape is None too, else TVM's fallback that fits the SRAMs)."""
    if shape is None and knobs is None:
        knobs = {}
    _core.vta_schedule_conv2d_packed(sch, _config_of(env), dict(shape or {}), knobs, tensorize)
    return sch
