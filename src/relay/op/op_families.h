// One registration function per op family file; all_ops.cc lists them in a table.
#pragma once

namespace tessera::relay {

class OpRegistry;

void registerConvOps(OpRegistry& r);           // nn_conv.cc: nn.conv2d
void registerConvTransposeOps(OpRegistry& r);  // nn_conv_transpose.cc: nn.conv2d_transpose
void registerConv3dOps(OpRegistry& r);         // nn_conv3d.cc: nn.conv3d
void registerPool3dOps(OpRegistry& r);         // nn_pool3d.cc: nn.adaptive_avg_pool3d
void registerDenseOps(OpRegistry& r);          // nn_dense.cc: nn.dense, nn.batch_matmul
void registerNormOps(
    OpRegistry& r);  // nn_norm.cc: nn.batch_norm, nn.layer_norm, nn.bias_add, nn.dropout
void registerPoolOps(OpRegistry& r);  // nn_pool.cc: max/avg/global/adaptive pooling
void registerActivationOps(
    OpRegistry& r);                      // nn_activation.cc: relu, leaky_relu, softmax, log_softmax
void registerNnShapeOps(OpRegistry& r);  // nn_shape.cc: nn.pad, nn.batch_flatten
void registerUnaryOps(OpRegistry& r);    // unary.cc: exp, log, sqrt, ... , round, abs
void registerBinaryOps(OpRegistry& r);   // binary.cc: add, subtract, ..., shifts, comparisons
void registerReduceOps(OpRegistry& r);   // reduce.cc: sum, mean, max, min, prod, argmax, argmin
void registerShapeOps(OpRegistry& r);    // transform_shape.cc: reshape, transpose, expand_dims, ...
void registerSelectOps(
    OpRegistry& r);  // transform_select.cc: concatenate, split, strided_slice, take, where
void registerCastOps(OpRegistry& r);  // cast_clip.cc: cast, clip, fixed_point_multiply, annotations
void registerCreationOps(OpRegistry& r);  // creation.cc: zeros, ones, full
void registerQuantizeOps(OpRegistry& r);  // quantize.cc: relay.op.annotation.simulated_quantize
void registerArgwhereOps(OpRegistry& r);  // argwhere.cc: argwhere (data-dependent shape)
void registerUniqueOps(OpRegistry& r);    // unique.cc: unique (data-dependent shape)
void registerTopKOps(OpRegistry& r);      // topk.cc: dyn.topk (data-dependent shape)
void registerShapeOfOps(OpRegistry& r);   // shape_of.cc: shape_of (a VM builtin)
void registerScatterOps(OpRegistry& r);   // scatter_elements.cc (a VM builtin)
void registerDynSliceOps(OpRegistry& r);  // dyn_slice.cc: dyn.strided_slice (data-dependent shape)
void registerVisionOps(OpRegistry& r);    // vision_nms.cc: vision.all_class_non_max_suppression

}  // namespace tessera::relay
