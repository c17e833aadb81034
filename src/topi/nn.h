// Neural-network TOPI computes: pad, matmul/dense/batch_matmul, conv2d (NCHW, NHWC, NCHWc,
// grouped and depthwise), pooling, softmax, normalisations, bias_add. Names follow TVM's TOPI
// (spec tir_relax.md §1.5): pad_temp / conv2d_nchw, T_matmul_NT, T_softmax_*, ...
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "topi/topi_util.h"

namespace tessera::topi {

// --- pad (topi/nn_conv.cc) ---------------------------------------------------------------------

/// Constant padding: `padValue` (null: 0) outside the data; `name` "PadInput" as in TVM.
Tensor pad(const Tensor& data, const std::vector<int64_t>& before,
           const std::vector<int64_t>& after, PrimExpr padValue = nullptr,
           const std::string& name = "PadInput");
/// nn.pad with mode "constant", "edge" or "reflect" (the pad value is a 0-d tensor).
Tensor padMode(const Tensor& data, const std::vector<std::array<int64_t, 2>>& widths,
               const Tensor& padValue, const std::string& mode);

// --- convolution (topi/nn_conv.cc) -------------------------------------------------------------

struct Conv2DParams {
  std::array<int64_t, 2> strides = {1, 1};
  std::array<int64_t, 4> padding = {0, 0, 0, 0};  ///< top, left, bottom, right
  std::array<int64_t, 2> dilation = {1, 1};
  int64_t groups = 1;
  DataType outDtype = DataType::voidType();  ///< void: the data's dtype
};
/// (top, left, bottom, right) from TVM's 1-, 2- or 4-value padding forms.
std::array<int64_t, 4> padTuple(const std::vector<int64_t>& padding);

/// data NCHW, weight OIHW (O = out channels, I = in channels / groups). A depthwise weight
/// (C, multiplier, KH, KW) is accepted as the grouped (C * multiplier, 1, KH, KW).
Tensor conv2dNchw(const Tensor& data, const Tensor& weight, const Conv2DParams& p);
/// Transposed convolution: data NCHW, weight IOHW (C_in, C_out / groups, KH, KW); `p.padding`
/// and `p.dilation` as the op's attributes, `outputPadding` extends the bottom and right. As TVM's
/// conv2d_transpose_nchw: the input dilated by the strides and padded (data_dilate_pad), then a
/// stride-1 conv2dNchw with the kernel flipped and its channels swapped within each group.
Tensor conv2dTransposeNchw(const Tensor& data, const Tensor& weight, const Conv2DParams& p,
                           std::array<int64_t, 2> outputPadding);
/// 3-D convolution: data NCDHW, weight OIDHW (I = in channels / groups); `padding` is (front,
/// top, left, back, bottom, right). As TVM's conv3d_ncdhw: `pad_temp` then `conv3d_ncdhw`.
struct Conv3DParams {
  std::array<int64_t, 3> strides = {1, 1, 1};
  std::array<int64_t, 6> padding = {0, 0, 0, 0, 0, 0};
  std::array<int64_t, 3> dilation = {1, 1, 1};
  int64_t groups = 1;
  DataType outDtype = DataType::voidType();  ///< void: the data's dtype
};
Tensor conv3dNcdhw(const Tensor& data, const Tensor& weight, const Conv3DParams& p);
/// data NHWC, weight HWIO.
Tensor conv2dNhwc(const Tensor& data, const Tensor& weight, const Conv2DParams& p);
/// Depthwise: groups = channels.
Tensor depthwiseConv2dNchw(const Tensor& data, const Tensor& weight, Conv2DParams p);
/// data NCHW[x]c, weight OIHW[x]i[y]o, out NCHW[y]c (groups = 1).
Tensor conv2dNCHWc(const Tensor& data, const Tensor& weight, const Conv2DParams& p);
/// Depthwise in blocks: data NCHW[x]c, weight OIHW1i[x]o, out NCHW[x]c (groups = channels).
Tensor depthwiseConv2dNCHWc(const Tensor& data, const Tensor& weight, const Conv2DParams& p);
/// The NCHWc layout strings of a block size: ("NCHW8c", "OIHW8i8o").
std::pair<std::string, std::string> nchwcLayouts(int64_t inBlock, int64_t outBlock);

// --- dense family (topi/nn_dense.cc) -----------------------------------------------------------

/// a @ b with optional transposes; leading batch dims broadcast; name T_matmul_NN/NT/TN/TT.
Tensor matmul(const Tensor& a, const Tensor& b, bool transposeA = false, bool transposeB = false,
              DataType outDtype = DataType::voidType());
/// data (..., K) x weight (N, K) -> (..., N): matmul with transpose_b.
Tensor dense(const Tensor& data, const Tensor& weight, DataType outDtype = DataType::voidType());
/// VTA's packed dense (TVM's `dense_packed`): data (N/b, K/c, b, c) x weight (O/c', K/c, c', c)
/// -> (N/b, O/c', b, c'), `res[bo, co, bi, ci] = Σ_{ko, ki} data[bo, ko, bi, ki] · weight[co, ko,
/// ci, ki]`, operands cast to outDtype; reduce axes `ko`, `ki`. dense() dispatches here when both
/// operands are 4-D.
Tensor denseBlocked(const Tensor& data, const Tensor& weight,
                    DataType outDtype = DataType::voidType(),
                    const std::string& name = "T_dense_blocked");
/// (B, I, K) x (B, J, K) (per the transposes) -> (B, I, J); a batch of 1 broadcasts.
Tensor batchMatmul(const Tensor& a, const Tensor& b, bool transposeA, bool transposeB,
                   DataType outDtype = DataType::voidType());

// --- packed weights (topi/nn_packed.cc) -------------------------------------------------------

/// (N, K) -> (N/nr, K, nr): row j of the weight becomes lane j % nr of block j / nr (N % nr == 0).
NDArray packDenseWeight(const NDArray& weight, int64_t nr);
/// (O, I, KH, KW) -> (O/ob, I, KH, KW, ob) (O % ob == 0).
NDArray packConv2dWeight(const NDArray& weight, int64_t ob);
/// The same packings done in the weight's own memory (one block of scratch), for a caller that
/// holds the only reference to it (NDArray::soleOwner): a 400 MB classifier weight is then never
/// held twice while it is packed. Returns the packed view of that memory.
NDArray packDenseWeightInPlace(NDArray weight, int64_t nr);
NDArray packConv2dWeightInPlace(NDArray weight, int64_t ob);
/// dense over a packed weight: `T_dense_pack` (the reduction) then `T_dense` (..., N), a copy stage
/// that the schedule keeps as the output and the accumulator tile as registers.
Tensor densePacked(const Tensor& data, const Tensor& packed,
                   DataType outDtype = DataType::voidType());
/// conv2d NCHW (groups 1) over a packed weight: `pad_temp`, `conv2d_nchw_pack`
/// (N, O/ob, OH, OW, ob) and `T_conv2d_unpack` (N, O, OH, OW).
Tensor conv2dNchwPacked(const Tensor& data, const Tensor& packed, const Conv2DParams& p);

/// The column block of a packed matrix product with `columns` output columns: 32, 16 or 8 lanes,
/// or all columns when there are at most 32; 0 when none fits.
int64_t matmulBlockSize(int64_t columns);
/// a (..., M, K) x b (..., K, N) (b (..., N, K) with transposeB), batch dims broadcast, over b
/// packed inside the kernel: `T_pack_b` (..., N/nr, K, nr), `T_dense_pack`, `T_dense` — the
/// stages the dense x86 schedule tiles. N % nr == 0.
Tensor matmulPacked(const Tensor& a, const Tensor& b, bool transposeB, int64_t nr,
                    DataType outDtype = DataType::voidType());
/// Whether a conv2d (NCHW/OIHW shapes) is computed by Winograd F(2x2, 3x3): 3x3 kernel, unit
/// stride and dilation, groups 1, at least 16 input channels, output channels a multiple of 8.
bool conv2dWinogradApplies(const std::vector<int64_t>& dataShape,
                           const std::vector<int64_t>& weightShape, const Conv2DParams& p);
/// (K, C, 3, 3) -> U = G g G^T as (4, 4, K/kb, C, kb), computed in double (K % kb == 0).
NDArray winogradWeightTransform(const NDArray& weight, int64_t kb);
/// conv2d by F(2x2, 3x3) over a transformed weight: `pad_temp`, `T_winograd_input`
/// (4, 4, C, tiles), `T_dense_pack` / `T_dense` (4, 4, tiles, K), `T_winograd_output`
/// (N, K, th, tw, 2, 2) and `T_conv2d_winograd_unpack` (N, K, OH, OW).
Tensor conv2dWinogradNchw(const Tensor& data, const Tensor& transformedWeight,
                          const Conv2DParams& p);
/// Whether a conv2d (NCHW/OIHW shapes) is a pointwise product over pixels: 1x1 kernel, unit
/// stride and dilation, no padding, groups 1, and H*W a multiple of 16 or, with
/// `partialPanels`, at least 16 (the last panel of pixels is then partial).
bool conv2d1x1AsMatmul(const std::vector<int64_t>& dataShape,
                       const std::vector<int64_t>& weightShape, const Conv2DParams& p,
                       bool partialPanels = false);
/// Such a conv2d as a matrix product over pixels: `conv2d_1x1` (N, O, H*W) then
/// `T_conv2d_1x1_unpack` (N, O, H, W).
Tensor conv2d1x1Nchw(const Tensor& data, const Tensor& weight,
                     DataType outDtype = DataType::voidType());

// --- pooling (topi/nn_pool.cc) -----------------------------------------------------------------

struct Pool2DParams {
  std::array<int64_t, 2> poolSize = {1, 1};
  std::array<int64_t, 2> strides = {1, 1};
  std::array<int64_t, 2> dilation = {1, 1};
  std::array<int64_t, 4> padding = {0, 0, 0, 0};
  bool ceilMode = false;
  bool countIncludePad = false;
  std::string layout = "NCHW";
};
Tensor maxPool2d(const Tensor& data, const Pool2DParams& p);
Tensor avgPool2d(const Tensor& data, const Pool2DParams& p);
Tensor globalPool2d(const Tensor& data, bool isMax, const std::string& layout);
Tensor adaptiveAvgPool2d(const Tensor& data, std::array<int64_t, 2> outSize,
                         const std::string& layout);
/// The 3-D form (D, H and W of `layout`); TVM's global_avg_pool3d is output size (1, 1, 1).
Tensor adaptiveAvgPool3d(const Tensor& data, std::array<int64_t, 3> outSize,
                         const std::string& layout);

// --- normalisation (topi/nn_norm.cc) -----------------------------------------------------------

Tensor softmax(const Tensor& x, int64_t axis);
Tensor logSoftmax(const Tensor& x, int64_t axis);
Tensor layerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t axis,
                 double epsilon, bool center, bool scale);
/// Inference form: (x - mean) / sqrt(var + eps) * gamma + beta along `axis`.
Tensor batchNormInference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                          const Tensor& mean, const Tensor& var, int64_t axis, double epsilon,
                          bool center, bool scale);
Tensor biasAdd(const Tensor& x, const Tensor& bias, int64_t axis);
/// prelu: x > 0 ? x : alpha[c] * x.
Tensor prelu(const Tensor& x, const Tensor& alpha, int64_t axis);

}  // namespace tessera::topi
