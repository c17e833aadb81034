// x86 schedule of the int8 depthwise conv2d (topi/depthwise_conv2d_int8.h): per channel, the
// padded (phase-split) input plane is built first, where it stays in cache; each output row is
// computed whole (up to 128 int32 columns), the window's taps unrolled around it so that the
// accumulators stay in vector registers, then written out by the output stage (the requantizing
// epilogue inlined) while the row is hot. Channels run in parallel. The window form (AVX-512
// VNNI and VBMI) computes blocks of 4 rows x 16 columns with one vpdpbusd per group of 4 taps.
#include <algorithm>

#include "tir/stmt.h"
#include "topi/depthwise_conv2d_int8.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"
#include "topi/x86/tensor_intrin.h"

namespace tessera::topi::x86 {

// Output columns whose int32 accumulators a row tile keeps in vector registers (8 of 16 lanes).
constexpr int64_t kMaxTileColumns = 128;
// Bytes of padded planes the window form builds before their products: small planes are built a
// few channels at a time, so that a plane's stores have reached the cache when its products load
// it back (a load that spans several stores still in flight waits for them: 7x7 layers spent a
// third of their time so). Larger groups evict the planes from L1 before they are read
// (MobileNetV2 on Zen 5: with 4 KiB its depthwise layers took 0.89 of their time, 8 KiB 0.85,
// 16 KiB 0.88).
constexpr int64_t kWindowPlaneGroupBytes = 8192;

Applicability scheduleDepthwiseConv2dInt8(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "depthwise_conv2d_int8";
  inlineElementwise(sch, {anchor, "pad_temp"});
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> pad = findBlock(sch, "pad_temp");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !pad || !out || sch.get(*out)->id == sch.get(*conv)->id)
    return notApplicable(anchor, "the kernel needs one padding, one conv2d and one output stage");
  if (sch.get(*conv)->iterVars.size() != 6) return notApplicable(anchor, "unexpected conv2d");
  std::vector<tir::LoopRV> outer = sch.getLoops(*out);  // n, c, h, w
  if (outer.size() != 4) return notApplicable(anchor, "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, outer[1]), rows = extentOf(sch, outer[2]);
  const std::optional<int64_t> columns = extentOf(sch, outer[3]);
  if (!channels || !rows || !columns) return notApplicable(anchor, "symbolic shape");

  // One output row at a time, in tiles of whole rows (up to 128 columns) whose accumulators stay
  // in registers across the unrolled taps: vectors of 16 lanes and a remainder, which LLVM
  // splits; the row's output stage right after it.
  sch.computeAt(*conv, outer[2], /*preserveUnitLoops=*/true);
  std::vector<tir::LoopRV> tile = innerLoops(sch, *conv, 3);  // n, c, oh, ow, ry, rx
  if (tile.size() != 6) return notApplicable(anchor, "unexpected loops below the row");
  const int64_t width =
      *columns <= kMaxTileColumns ? *columns : largestDivisorAtMost(*columns, kMaxTileColumns / 2);
  std::vector<tir::LoopRV> ow = sch.split(tile[3], {std::monostate{}, width});
  sch.reorder({ow[0], tile[4], tile[5], ow[1]});
  tir::BlockRV init = sch.decomposeReduction(*conv, tile[4]);
  sch.vectorize(sch.getLoops(init).back());
  sch.unroll(tile[4]);
  sch.unroll(tile[5]);
  sch.vectorize(ow[1]);
  sch.vectorize(outer[3]);
  // The channel's padded plane before its first row, a row of a phase per vector (the edges
  // masked).
  sch.computeAt(*pad, outer[1], /*preserveUnitLoops=*/true);
  // The phases unrolled: each phase's column mask is then a constant vector, where computed per
  // row it was most of a strided layer's time on AVX2 (57 lanes of comparisons packed to bytes).
  std::vector<tir::LoopRV> padLoops = sch.getLoops(*pad);
  sch.vectorize(padLoops.back());
  sch.unroll(padLoops[padLoops.size() - 2]);
  if (*channels * *rows * *columns >= options.minParallelWork)
    parallelTiles(sch, {outer[0], outer[1]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86

namespace tessera::topi::x86 {
namespace {

// The window form's horizontal stride, from the shapes the compute gave its stages: the padded
// row holds stride * (16 * vectors - 1) + taps bytes.
std::optional<int64_t> windowStride(tir::Schedule& sch, const tir::BlockRV& conv,
                                    const tir::BlockRV& pad) {
  const tir::BlockNode* c = sch.get(conv);
  const tir::BlockNode* p = sch.get(pad);
  if (c->iterVars.size() != 6 || p->writes.size() != 1 || p->writes[0].buffer->ndim() != 4)
    return std::nullopt;
  const int64_t* columns = tir::asConstInt(c->iterVars[3].dom.extent);
  const int64_t* taps = tir::asConstInt(c->iterVars[5].dom.extent);
  const int64_t* width = tir::asConstInt(p->writes[0].buffer->shape[3]);
  if (!columns || !taps || !width || *columns % kWindowLanes != 0) return std::nullopt;
  const int64_t span = *columns - 1;
  if ((*width - *taps) % span != 0) return std::nullopt;
  const int64_t stride = (*width - *taps) / span;
  return stride == 1 || stride == 2 ? std::optional<int64_t>(stride) : std::nullopt;
}

}  // namespace

// The window form (topi/depthwise_conv2d_int8.h, kVnniWindow): per channel, the padded plane (as
// unsigned bytes) and the kernel rows in groups of 4 first; then, for each block of 4 output rows,
// the accumulators of one vector of 16 columns in each of the 4 rows, over the whole window, the
// rows and taps unrolled so that the 4 accumulators stay in registers and each input row's
// permuted vector is loaded once for the (up to 3) rows that read it; then the block's output
// stage (the requantizing epilogue inlined), vectorized along its rows.
Applicability scheduleDepthwiseConv2dInt8Window(tir::Schedule& sch,
                                                const ScheduleOptions& options) {
  const std::string anchor = "depthwise_conv2d_int8_window";
  registerTensorIntrinsics();
  inlineElementwise(sch, {anchor, "pad_temp", "weight_window"});
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> pad = findBlock(sch, "pad_temp");
  std::optional<tir::BlockRV> window = findBlock(sch, "weight_window");
  std::optional<tir::BlockRV> compensation = findBlock(sch, "compensation");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !pad || !window || !out || sch.get(*out)->id == sch.get(*conv)->id)
    return notApplicable(anchor,
                         "the kernel needs the padding, the weight groups, the conv2d and "
                         "one output stage");
  const std::optional<int64_t> stride = windowStride(sch, *conv, *pad);
  if (!stride) return notApplicable(anchor, "unexpected conv2d");
  std::vector<tir::LoopRV> outer = sch.getLoops(*out);  // n, c, h, w
  if (outer.size() != 4) return notApplicable(anchor, "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, outer[1]), rows = extentOf(sch, outer[2]);
  const std::optional<int64_t> columns = extentOf(sch, outer[3]);
  if (!channels || !rows || !columns) return notApplicable(anchor, "symbolic shape");

  // Channels in groups whose padded planes are built together before the group's products, so
  // that a plane's stores have reached the cache when its products load it.
  const tir::Buffer& plane = sch.get(*pad)->writes[0].buffer;
  const int64_t* planeRows = tir::asConstInt(plane->shape[2]);
  const int64_t* planeColumns = tir::asConstInt(plane->shape[3]);
  if (!planeRows || !planeColumns) return notApplicable(anchor, "symbolic padded plane");
  const int64_t group = largestDivisorAtMost(
      *channels, std::max<int64_t>(1, kWindowPlaneGroupBytes / (*planeRows * *planeColumns)));
  std::vector<tir::LoopRV> c = sch.split(outer[1], {std::monostate{}, group});
  // Tiles of 4 rows x 16 columns; the last of a row or column of tiles may be partial, and its
  // output stage then stores under a mask (the accumulators cover whole tiles).
  std::vector<tir::LoopRV> h = sch.split(outer[2], {std::monostate{}, kWindowRows});
  std::vector<tir::LoopRV> w = sch.split(outer[3], {std::monostate{}, kWindowLanes});
  sch.reorder({h[0], w[0], h[1], w[1]});
  sch.computeAt(*conv, w[0], /*preserveUnitLoops=*/true);
  // Below (n, c0, c1, h0, w0): n, c, oh, ow, ry, rx.
  std::vector<tir::LoopRV> tile = innerLoops(sch, *conv, 5);
  if (tile.size() != 6) return notApplicable(anchor, "unexpected loops below the tile");
  std::vector<tir::LoopRV> rx = sch.split(tile[5], {std::monostate{}, 4});
  sch.reorder({tile[2], tile[4], rx[0], tile[3], rx[1]});
  tir::BlockRV init = sch.decomposeReduction(*conv, tile[2]);
  vectorizeTile(sch, innerLoops(sch, init, 4));
  sch.unroll(tile[2]);
  sch.unroll(tile[4]);
  sch.unroll(rx[0]);
  sch.tensorize(tile[3], vnniWindowIntrinsic(*stride));
  sch.unroll(h[1]);
  sch.vectorize(w[1]);
  // Per group of channels, before its first row block: the padded planes (a row per vector, the
  // edges masked); per channel, the weight groups and the compensation.
  sch.computeAt(*pad, c[0], /*preserveUnitLoops=*/true);
  sch.vectorize(sch.getLoops(*pad).back());
  sch.computeAt(*window, c[1], /*preserveUnitLoops=*/true);
  if (compensation) sch.computeAt(*compensation, c[1], /*preserveUnitLoops=*/true);
  if (*channels * *rows * *columns >= options.minParallelWork)
    parallelTiles(sch, {outer[0], c[0]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
