// Weight pre-packing for the x86 schedules: which calls get a packed weight, the packing, and the
// packed compute (relay/strategy/packed_weights.cc).
#pragma once

#include <optional>
#include <vector>

#include "relay/expr.h"
#include "runtime/ndarray.h"
#include "te/tensor.h"

namespace tessera::relay::strategy {

/// The output-channel block of a call whose weight (argument 1) could be packed, were it constant:
/// an nn.dense, or an nn.conv2d in NCHW/OIHW with groups 1, whose weight dtype equals the data's;
/// 0 otherwise. Decided from the arguments' types (they must be type-checked).
int64_t packedBlockOf(const CallNode& call);
/// A weight packed with `block` (packedBlockOf's result): rank 2 is a dense weight, rank 4 a
/// conv2d weight.
NDArray packWeight(const NDArray& weight, int64_t block);
/// The shape packWeight gives a weight of shape `shape`.
std::vector<int64_t> packedShape(const std::vector<int64_t>& shape, int64_t block);
/// The packed compute of the call: its output tensor(s), of the call's type and layout.
std::vector<te::Tensor> packedCompute(const CallNode& call, const te::Tensor& data,
                                      const te::Tensor& packedWeight, const Type& outType);

/// For an nn.dense or nn.batch_matmul (not transposing a) whose weight is not a constant: the
/// compute that packs the weight inside the kernel (topi::matmulPacked), or nullopt when its
/// columns do not block.
std::optional<std::vector<te::Tensor>> runtimePackedCompute(const CallNode& call,
                                                            const std::vector<te::Tensor>& in,
                                                            const Type& outType);

}  // namespace tessera::relay::strategy
