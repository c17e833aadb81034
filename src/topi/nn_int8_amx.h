// int8 x int8 -> int32 convolutions shaped for x86 AMX tile products (TDPBSSD / TDPBSUD: a 16 x 16
// int32 tile += a 16 x 64 int8 tile times a 16 x 64 tile of byte quadruples). The convolution is a
// product over "flat" pixels: the data is repacked once per call into channel quadruples of a
// padded image whose rows are laid end to end, so that tap (ky, kx) of output pixel m reads input
// pixel m + ky * pitch + kx, for every m. 16 consecutive output pixels are then one tile row's
// worth of data, read with one stride, whatever rows they straddle; the pixels of the padding
// columns are computed and never read back. The weight is packed at compile time into one 16 x 64
// tile per block of 16 output channels and reduction step (64 input channels of one tap). Signed
// weights and signed or unsigned data multiply as they are (no shift, no compensation), so the
// result is exactly the int32 sum of the plain compute (modulo 2^32), and the reference
// interpreter stays the oracle, bit for bit.
#pragma once

#include <functional>
#include <optional>

#include "ir/attr_value.h"
#include "runtime/ndarray.h"
#include "topi/nn.h"

namespace tessera::topi {

/// Input channels of one reduction step, and output channels / pixels of one tile.
inline constexpr int64_t kAmxStepChannels = 64;
inline constexpr int64_t kAmxTileRows = 16;
/// Output channels and pixels a schedule's tile unit covers (2 x 2 tiles).
inline constexpr int64_t kAmxUnit = 32;

/// The sizes of one AMX convolution, fixed by the shapes. A stride-2 convolution reads its padded
/// image as 4 phase images (even/odd rows x even/odd columns, each `pitch` wide), so that it too
/// reads pixel m + offset(ky, kx) for output pixel m: tap (ky, kx) is pixel (ky / 2, kx / 2) of
/// phase (ky % 2, kx % 2).
struct AmxConvGeometry {
  int64_t kh = 1, kw = 1;
  int64_t stride = 1;        ///< of the products: 1, or 2 (phase images)
  int64_t pitch = 0;         ///< pixels per row of the repacked (phase) image
  int64_t imageRows = 0;     ///< rows of the repacked image (with padding; of the padded image at
                             ///< stride 2)
  int64_t imageColumns = 0;  ///< columns of the padded image (at stride 1, the pitch)
  int64_t outHeight = 0, outWidth = 0;
  int64_t groups = 0;       ///< input-channel quadruples, a multiple of 16
  int64_t steps = 0;        ///< reduction steps: groups / 16 * kh * kw
  int64_t blocks = 0;       ///< blocks of 16 output channels, even
  int64_t pixels = 0;       ///< accumulator pixels: those the output reads, to a multiple of 32
  int64_t reach = 0;        ///< the farthest tap's offset within its (phase) image
  int64_t phasePixels = 0;  ///< pixels of one (phase) image: pixels + reach, to whole rows
  int64_t dataPixels = 0;   ///< repacked pixels: phasePixels times the phases (1 or 4)
  bool subsample = false;   ///< a strided 1x1 convolution: only the pixels it reads are repacked
  /// A convolution of few input channels (the 3-channel stem) computed as a 1x1 convolution over
  /// the output pixels whose channels are (channel, ky, kx): the kernel's window (0: not folded).
  int64_t windowH = 0, windowW = 0;

  /// The offset of tap (ky, kx) in the repacked pixels.
  int64_t tapOffset(int64_t ky, int64_t kx) const;
};

/// Whether a convolution of `channels` input channels and a kh x kw kernel folds its window into
/// its channels (amxConvGeometry and packInt8WeightAmx decide the same way).
bool amxFoldsWindow(int64_t channels, int64_t kh, int64_t kw);

/// The geometry as the annotation the accumulator block carries to the schedule, and back.
AttrValue amxGeometryAttr(const AmxConvGeometry& g);
std::optional<AmxConvGeometry> amxGeometryOf(const AttrValue* attr);
inline constexpr const char* kAmxGeometryAnnotation = "amx_geometry";

/// The geometry of a conv2d (NCHW data, OIHW weight shapes) the AMX compute takes: groups 1, unit
/// dilation, stride 1 or 2 (or a strided unpadded 1x1), at least 32 input channels, output
/// channels a multiple of 32 and at least 16 output pixels; nullopt otherwise.
std::optional<AmxConvGeometry> amxConvGeometry(const std::vector<int64_t>& dataShape,
                                               const std::vector<int64_t>& weightShape,
                                               const Conv2DParams& p);

/// (O, I, KH, KW) int8 -> (blocks, steps, 16, 64): [b, s, l, 4g + k] is w[16b + l, 64c + 4g + k,
/// ky, kx] with s = (c * KH + ky) * KW + kx (0 past O and I); a folded window packs as the 1x1
/// weight (O, I * KH * KW, 1, 1).
NDArray packInt8WeightAmx(const NDArray& weight);

/// conv2d of int8 or uint8 NCHW data over a packInt8WeightAmx weight, int32 out: `data_amx` (N,
/// groups, dataPixels) int32, each the 4 bytes of a channel quadruple (little-endian),
/// `conv2d_int8_amx` (N, blocks, 16, pixels) and `T_conv2d_int8_amx_unpack` (N, O, OH, OW). `g` is
/// the amxConvGeometry of the data, the unpacked weight and `p`.
Tensor conv2dNchwInt8Amx(const Tensor& data, const Tensor& packed, const AmxConvGeometry& g,
                         const Conv2DParams& p, int64_t outChannels);

/// Reads one element of an operand at the given indices (a tensor access or a buffer load).
using AmxOperand = std::function<PrimExpr(const std::vector<PrimExpr>&)>;
/// The iteration of one product: output block, lane and pixel; reduction step's channel block c,
/// tap (ky, kx; null for a 1x1 kernel) and channel quadruple.
struct AmxConvIndex {
  PrimExpr block, lane, pixel, c, ky, kx, group;
};
/// The accumulator's update, shared by the compute and the tensor intrinsic's description so that
/// tensorize finds them equal: the sum over k < 4 of int32(w[b, s, lane, 4g + k]) * int32(byte k
/// of d[16c + g, m + offset(ky, kx)]) with s = (c * KH + ky) * KW + kx; `d` holds 4 bytes of
/// `dataDtype` per int32. (The 4 bytes are terms, not a reduction axis: a byte's shift would then
/// be an expression of an iter var, which blockize rewrites.)
PrimExpr amxConvProduct(const AmxConvGeometry& g, DataType dataDtype, const AmxOperand& w,
                        const AmxOperand& d, const AmxConvIndex& at);

}  // namespace tessera::topi
