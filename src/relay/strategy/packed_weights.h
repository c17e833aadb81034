// Weight pre-packing for the x86 schedules: which calls get a packed weight, the packing, and the
// packed compute (relay/strategy/packed_weights.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "relay/expr.h"
#include "runtime/ndarray.h"
#include "target/target.h"
#include "te/tensor.h"

namespace tessera::relay::strategy {

/// How a constant weight is repacked for its call's x86 schedule.
enum class PackKind : uint8_t {
  kNone,
  kDense,        ///< (N, K) -> (N/nr, K, nr)
  kConv2d,       ///< (O, I, KH, KW) -> (O/ob, I, KH, KW, ob)
  kWinograd,     ///< (O, I, 3, 3) -> G g G^T as (4, 4, O/ob, I, ob)
  kInt8,         ///< int8 (O, I, KH, KW) or (N, K) -> topi::packInt8Weight's groups of 16 x 4
  kInt8Pairs,    ///< int8 (O, I, KH, KW) or (N, K) -> topi::packInt8WeightPairs' 16 x 2 int16
  kInt8Bytes,    ///< int8 (O, I, KH, KW) or (N, K) -> groups of 16 x 4, no compensation row
  kInt8Amx,      ///< int8 (O, I, KH, KW) -> topi::packInt8WeightAmx's 16 x 64 tiles
  kInt8BatchNN,  ///< int8 batch_matmul B (batch, K, N) -> topi::packInt8BatchWeight
  kInt8BatchNT,  ///< int8 batch_matmul B (batch, N, K) -> topi::packInt8BatchWeight
};

struct WeightPacking {
  PackKind kind = PackKind::kNone;
  int64_t block = 0;  ///< output channels per packed block (the vector lanes)
  explicit operator bool() const { return kind != PackKind::kNone; }
  bool operator==(const WeightPacking&) const = default;
};

/// uint8 data with an int8 weight: the one pair of different operand dtypes the packed products
/// take (they cast both operands to the output dtype).
bool mixedInt8(DataType data, DataType weight);

/// How the weight (argument 1) of a call would be packed, were it constant: an nn.dense, or an
/// nn.conv2d in NCHW/OIHW with groups 1 (Winograd for 3x3 stride-1 ones with enough channels),
/// whose weight dtype equals the data's; kNone otherwise. Decided from the arguments' types (they
/// must be type-checked) and, for the block of a conv2d's channels, the target's vector width.
WeightPacking packingOf(const CallNode& call, const target::Target& target);
/// Whether `target`'s pointwise conv2d takes pixel counts that are not whole 16-pixel panels
/// (topi::conv2d1x1AsMatmul's partialPanels). With 16 vector registers (AVX2) the packed conv2d's
/// tile over a 7- or 14-column row holds 7 accumulators against the pixel product's 12, and
/// ResNet-50's 1x1 layers at 14x14 and 7x7 ran 1.1-1.5x slower packed; with 32 (AVX-512) the
/// packed tile holds 14 at full lanes, and those layers stay packed.
bool pointwisePartialPanels(const target::Target& target);
/// The weight repacked as `packing` says.
NDArray packWeight(const NDArray& weight, const WeightPacking& packing);
/// packWeight of a weight the caller gives up: dense and conv2d packings rewrite it in place when
/// nothing else uses its memory (NDArray::soleOwner), the others (Winograd, int8) copy.
NDArray packWeightConsuming(NDArray weight, const WeightPacking& packing);
/// The shape packWeight gives a weight of shape `shape`.
std::vector<int64_t> packedShape(const std::vector<int64_t>& shape, const WeightPacking& packing);
/// The dtype packWeight gives a weight of dtype `dtype` (int16 for kInt8Pairs, else `dtype`).
DataType packedDtype(DataType dtype, const WeightPacking& packing);
/// The packed compute of the call: its output tensor(s), of the call's type and layout.
std::vector<te::Tensor> packedCompute(const CallNode& call, const WeightPacking& packing,
                                      const te::Tensor& data, const te::Tensor& packedWeight,
                                      const Type& outType);

/// For an nn.dense or nn.batch_matmul (not transposing a) whose weight is not a constant: the
/// compute that packs the weight inside the kernel (topi::matmulPacked), or nullopt when its
/// columns do not block.
std::optional<std::vector<te::Tensor>> runtimePackedCompute(const CallNode& call,
                                                            const std::vector<te::Tensor>& in,
                                                            const Type& outType);

}  // namespace tessera::relay::strategy
