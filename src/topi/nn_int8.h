// int8 x int8 -> int32 products shaped for 4-way byte dot products (x86 AVX-512 VNNI's
// vpdpbusd: 16 int32 lanes, each += the sum of 4 uint8 x int8 products). The weight is packed
// at compile time so that 4 consecutive reduction elements of 16 output channels are 64
// contiguous bytes; the kernel repacks the data so that the same 4 reduction elements are 4
// contiguous bytes, as uint8: int8 data is shifted by +128, and the packed weight carries the
// compensation -128 * sum(w) of each output channel, the start value of its accumulators (or
// added in the output stage). The result
// is exactly the int32 sum of the plain computes (modulo 2^32, as theirs), so the reference
// interpreter stays the oracle, bit for bit.
//
// CPUs with AVX2 but no VNNI take the pair form: vpmaddwd (8 int32 lanes, each += the sum of 2
// int16 x int16 products) on int16 widenings of both operands. The weight is packed as int16 in
// groups of 16 x 2 (packInt8WeightPairs), the kernel widens the data to int16 pairs (`data_i16`),
// and no shift or compensation is needed: every int8 or uint8 product and pair sum is exact in
// int16 x int16 -> int32. vpmaddubsw's uint8 x int8 pair sums saturate int16 in general, but not
// when every data value is in [0, 127] (2 x 127 x 128 < 32768): such data (a requantized relu's
// output, proven by relay/value_range.h) takes the byte form, VNNI's weight groups without the
// compensation row, the data taken as uint8 unshifted (`data_u7`), one vpmaddubsw + vpmaddwd per
// 16 products. The computes below read the form from the packed weight: int16 is the pair form,
// int8 without the compensation row the byte form.
#pragma once

#include <functional>
#include <optional>

#include "runtime/ndarray.h"
#include "topi/nn.h"

namespace tessera::topi {

/// Output channels per packed block: one vector of 16 int32 accumulators.
inline constexpr int64_t kInt8Lanes = 16;
/// Reduction elements per dot-product step.
inline constexpr int64_t kInt8Depth = 4;
/// Reduction elements per step of the pair form (int16 weights).
inline constexpr int64_t kInt8PairDepth = 2;
/// The data repacking stage of each form, which the schedules look up: VNNI's uint8 groups of 4,
/// the pair form's int16 pairs.
inline constexpr const char* kInt8RepackStage = "data_u8";
inline constexpr const char* kInt8PairRepackStage = "data_i16";
/// The byte form's data stage: the values (all in [0, 127]) as uint8, in VNNI's groups of 4.
inline constexpr const char* kInt8ByteRepackStage = "data_u7";

/// The int32 stored as kInt8Depth little-endian bytes, `byteAt(k)` the k-th (int8): how a packed
/// weight keeps its compensation row. It is an OR of zero-extended bytes, the form LLVM folds into
/// one 32-bit load.
PrimExpr int32FromBytes(const std::function<PrimExpr(int64_t)>& byteAt);

/// The three packings of an int8 weight.
enum class Int8Form : uint8_t {
  kVnni,   ///< groups of 16 x 4 int8 and the compensation row (packInt8Weight)
  kPairs,  ///< groups of 16 x 2 int16 (packInt8WeightPairs)
  kBytes,  ///< groups of 16 x 4 int8, no compensation row (packInt8Weight(w, false))
};

/// Whether packInt8Weight and the computes below take a weight of `outChannels` rows (any count:
/// the last block of 16 is padded).
bool int8Packable(int64_t outChannels);

/// (O, I, KH, KW) int8 -> (ceil(O/16), ceil(I/4) + 1, KH, KW, 16, 4): [o, c, y, x, l, k] is
/// w[16o + l, 4c + k, y, x] (0 past O and I). The extra row c = ceil(I/4) holds at y = x = 0 the
/// compensation -128 * sum(w[16o + l]) of lane l as 4 little-endian bytes (what the products of
/// data shifted by +128 must be corrected by). A dense weight (N, K)
/// is packed as the (N, K, 1, 1) convolution weight.
/// Without `compensation` (the byte form, for data in [0, 127]) the extra row is left out.
NDArray packInt8Weight(const NDArray& weight, bool compensation = true);
/// The pair form's packing: (O, I, KH, KW) int8 -> (ceil(O/16), ceil(I/2), KH, KW, 16, 2) int16,
/// [o, c, y, x, l, k] = w[16o + l, 2c + k, y, x] (0 past O and I), with no compensation row. A
/// dense weight (N, K) is packed as the (N, K, 1, 1) convolution weight.
NDArray packInt8WeightPairs(const NDArray& weight);
/// The shape an (O, I, KH, KW) or (N, K) weight packed in `form` has.
std::vector<int64_t> packedInt8Shape(const std::vector<int64_t>& weightShape, Int8Form form);

/// conv2d NCHW (groups 1) of int8 or uint8 data over a packInt8Weight weight, int32 out (over a
/// packInt8WeightPairs weight: `data_i16` (..., 2) int16 in place of `data_u8`, no compensation;
/// over packInt8Weight(w, false), for data whose values all lie in [0, 127]: `data_u7`, the
/// values unshifted, no compensation):
/// `data_u8` (N, ceil(I/4), H + pads, W + pads, 4) uint8 (a strided 1x1 convolution repacks only
/// the pixels it reads: (N, ceil(I/4), OH, OW, 4)), `conv2d_nchw_int8` (N, O/16, OH, OW,
/// 16) and `T_conv2d_int8_unpack` (N, O, OH, OW), which subtracts the compensation.
/// `outChannels` is the real O (0: every block's 16).
Tensor conv2dNchwInt8(const Tensor& data, const Tensor& packed, const Conv2DParams& p,
                      int64_t outChannels = 0);

/// The most input channels a pointwise conv2d over pixels takes when the padding of its last
/// pixel vector exceeds an eighth of its pixels (7x7 images).
inline constexpr int64_t kMaxPaddedPixelReduction = 384;
/// Whether conv2dNchw1x1Int8 computes a conv2d (NCHW/OIHW shapes): 1x1 kernel (any stride), no
/// padding, groups 1, and a padded last pixel vector only where it pays
/// (kMaxPaddedPixelReduction).
bool conv2d1x1Int8Applies(const std::vector<int64_t>& dataShape,
                          const std::vector<int64_t>& weightShape, const Conv2DParams& p);
/// Such a conv2d as a product over pixels, 16 pixels per vector: `data_u8` (N, ceil(I/4), P, 4)
/// uint8, `conv2d_1x1_int8` (N, O, P) and `T_conv2d_1x1_int8_unpack` (N, O, OH, OW), which
/// subtracts the compensation; P is OH*OW rounded up to whole vectors of 16 (the padding pixels
/// are zeros, their sums never read). A strided one first copies the pixels it reads,
/// `data_subsampled` (N, I, OH, OW). The weight is packed by packInt8Weight as for
/// conv2dNchwInt8.
/// `bias`, an int32 addend per output channel ((O, 1, 1) or (1, O, 1, 1): the `add` after the
/// conv2d in a quantized network), starts the accumulators with the compensation, so that the
/// output stage need not add it (one vector operation per 16 outputs).
Tensor conv2dNchw1x1Int8(const Tensor& data, const Tensor& packed, const Conv2DParams& p,
                         int64_t outChannels = 0, const std::optional<Tensor>& bias = {});
/// Whether `shape` is that of such a per-channel addend for `channels` output channels.
bool isChannelAddend(const std::vector<int64_t>& shape, int64_t channels);
/// Such an addend's value for output channel `oc` (past the last channel: the last one's).
PrimExpr channelAddend(const Tensor& bias, const PrimExpr& oc);

/// The most dot-product steps (input-channel groups x kernel taps) conv2dNchwInt8OverPixels takes:
/// its data copy holds that many 4-byte groups per output pixel.
inline constexpr int64_t kMaxInt8PixelSteps = 16;
/// Whether conv2dNchwInt8OverPixels (`bias`: as conv2dNchw1x1Int8's) takes a conv2d: groups 1, a
/// kernel larger than 1x1, at most kMaxInt8PixelSteps steps (an image network's stem: 3 channels,
/// 3x3), output rows of whole vectors of 16 pixels.
bool conv2dInt8OverPixelsApplies(const std::vector<int64_t>& dataShape,
                                 const std::vector<int64_t>& weightShape, const Conv2DParams& p);
/// Such a conv2d as a product over output pixels, 16 per vector, as conv2dNchw1x1Int8 with the
/// taps as reduction steps: `data_u8` (N, ceil(I/4), KH, KW, P, 4) uint8, the input value each
/// output pixel multiplies by each tap (zero in the padding), `conv2d_pixels_int8` (N, O, P) and
/// `T_conv2d_pixels_int8_unpack` (N, O, OH, OW); P is OH*OW. The output stage writes whole pixel
/// vectors where the channel-blocked kernel transposes.
Tensor conv2dNchwInt8OverPixels(const Tensor& data, const Tensor& packed, const Conv2DParams& p,
                                int64_t outChannels = 0, const std::optional<Tensor>& bias = {});

/// dense of int8 or uint8 data (..., K) over a packed (N, K) weight, int32 out: `data_u8`
/// (..., ceil(K/4), 4), `dense_int8` (..., N/16, 16) and `T_dense_int8` (..., N).
Tensor denseInt8(const Tensor& data, const Tensor& packed, int64_t outChannels = 0);

}  // namespace tessera::topi
