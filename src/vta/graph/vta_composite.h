// Seed 000's follow-up to graph packing: the pattern table of its `vta_utils.vta_pattern`, the
// `WithVTAFunctionTransform` pass, and the sequence the seed runs after graph_pack
// (InferType, FoldConstant, MergeComposite, WithVTAFunctionTransform, InferType).
#pragma once

#include "relay/transform/merge_composite.h"
#include "relay/transform/pass.h"

namespace tessera::vta {

/// The four composites, in table order (spec vta.md §8.3):
///  - vta_preprocessing:     multiply(x, const) -> round -> clip -> cast
///  - vta_reshape_transpose: [nn.pad ->] reshape -> transpose [-> broadcast_to]
///  - vta_conv2d:            nn.conv2d -> [add] -> [fixed_point_multiply -> cast -> add] ->
///                           [nn.relu] -> [requantize] -> cast -> [annotation.stop_fusion],
///                           requantize being cast -> fixed_point_multiply -> clip -> cast
///                           (TVM 0.16, the seed) or [add const] -> right_shift -> clip
///                           (power-of-two scales)
///  - vta_output:            cast -> multiply(x, const)
/// The bracketed parts are optional; the longest form is tried first, so seed 000's chain
/// matches whole, as its PartitionedFromPattern string shows.
relay::PatternTable vtaPatternTable();

/// WithVTAFunctionTransform: each `vta_conv2d` composite gains `ConvAttrs` (its convolution's
/// attributes), and every composite called from @main is lifted to a global function
/// `@<Composite>__<k>` (k counts in order of appearance), as the seed prints the module.
relay::Pass withVtaFunctionTransformPass();

/// The seed's `prepare_transform` sequence.
relay::Pass vtaCompositePass();

}  // namespace tessera::vta
