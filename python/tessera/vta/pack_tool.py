"""graph_pack and WithVTAFunctionTransform: seed 000's ``vta_utils.pack_tool`` (and TVM's
``vta.top.graph_pack``), over src/vta/graph."""
from .. import _core


def graph_pack(expr, bfactor, cfactor, weight_bits, start_name=None, stop_name=None,
               start_name_idx=None, stop_name_idx=None, count_meta=False, device_annot=False,
               annot_start_name=None, annot_end_name=None, pack_dense=True):
    """Packs a quantized NCHW function (or expression) for VTA and returns a relay Function.

    With no start/stop name or index, seed 000's variant: every integer convolution is packed and
    the result stays packed. With them, TVM's: packing starts after the start call and stops
    before the stop call, which gets its inputs unpacked. Requantized int8 dense layers are packed
    too unless ``pack_dense=False`` (a Tessera extension; TVM's graph_pack packs no dense)."""
    if device_annot or annot_start_name or annot_end_name:
        raise NotImplementedError("graph_pack(device_annot=...) is not bound: Tessera has no "
                                  "heterogeneous device annotation")
    return _core.vta_graph_pack(expr, int(bfactor), int(cfactor), int(weight_bits), start_name,
                                stop_name, start_name_idx, stop_name_idx, bool(count_meta),
                                bool(pack_dense))


def WithVTAFunctionTransform():  # pylint: disable=invalid-name
    """A pass: each ``vta_conv2d`` composite gains ``ConvAttrs`` and every composite called from
    @main becomes a global function ``@<Composite>__<k>``, as seed 000 prints the module."""
    return _core.vta_with_function_transform()


def prepare_transform():
    """Seed 000's whole sequence (InferType, FoldConstant, MergeComposite(vta pattern table),
    WithVTAFunctionTransform, InferType) as one C++ pass."""
    return _core.vta_composite_pass()
