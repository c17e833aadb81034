// x86 schedules of the int8 dot-product kernels (topi/nn_int8.h) on AVX-512 VNNI or, in the pair
// form, AVX2: the output is tiled into register blocks of 16 output channels x a few pixels
// (conv2d) or rows (dense); each block's int32 accumulators stay in vector registers over the
// whole reduction, whose innermost 16 lanes x 4 bytes are tensorized into one vpdpbusd (16 lanes
// x 2 int16: two vpmaddwd; the byte form's 16 x 4 bytes on AVX2: two vpmaddubsw + vpmaddwd;
// topi/x86/tensor_intrin.h). The epilogue (the compensation,
// requantization, clip, cast) is inlined into the output stage that writes the block out. The
// data repacking (uint8 groups or int16 pairs) is a stage of its own, vectorized over 16 columns.
#include "tir/stmt.h"
#include "topi/nn_int8.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"
#include "topi/x86/tensor_intrin.h"

namespace tessera::topi::x86 {
namespace {

// Vector accumulators a tile may use: 32 zmm registers, less the weight vector, the broadcast
// data group and room for the compiler.
constexpr int64_t kMaxAccumulators = 24;

// What the kernel's form (read from its repacking stage) asks of the schedule.
struct DotForm {
  std::string repack;                // the data repacking stage
  std::string dot, sharedWeightDot;  // the intrinsics
  int64_t depth;                     // reduction elements per step
  int64_t weightBytes;               // bytes of one packed weight element
  int64_t maxTiles;                  // 16-lane accumulator tiles a register block may use
};

DotForm formOf(tir::Schedule& sch, const ScheduleOptions& options) {
  // A pair tile's 16 int32 are two ymm registers; one more holds the broadcast data pair, and
  // the weights are read as vpmaddwd's memory operand when the registers run out.
  if (findBlock(sch, kInt8PairRepackStage))
    return {kInt8PairRepackStage,
            kAvx2Dot16x2,
            kAvx2Dot16x2SharedWeight,
            kInt8PairDepth,
            2,
            (options.vectorRegisters - 2) / 2};
  // The byte form's 16 lanes are two ymm registers too, and its tiles are the pair form's: the
  // ones of its vpmaddwd are read as a memory operand when the registers run out. (Leaving them a
  // register, 6 tiles, cut the rows of ResNet-50's 14x14 and 7x7 layers to 2 and 1 columns, and
  // its 1x1 layers there ran about 10% slower.)
  if (findBlock(sch, kInt8ByteRepackStage))
    return {kInt8ByteRepackStage,
            kAvx2Dot16x4,
            kAvx2Dot16x4SharedWeight,
            kInt8Depth,
            1,
            (options.vectorRegisters - 2) / 2};
  return {kInt8RepackStage, kVnniDot16x4, kVnniDot16x4SharedWeight, kInt8Depth, 1,
          kMaxAccumulators};
}
// An image whose int32 accumulators for 16 channels fit in this many bytes (14x14) is one tile.
constexpr int64_t kSmallImageBytes = 16 * 1024;
// Weight bytes of one block of 16 channels that stay in L1 across the rows of a tile.
constexpr int64_t kL1WeightBytes = 32 * 1024;

int64_t reductionSize(const tir::BlockNode* block) {
  int64_t size = 1;
  for (const tir::IterVar& iv : block->iterVars)
    if (iv.type != tir::IterVarType::kDataPar)
      if (const int64_t* e = tir::asConstInt(iv.dom.extent)) size *= *e;
  return size;
}

// The data repacking `data_u8` (topi/nn_int8.cc): its loops end in (columns or pixels, the 4
// channels of a group), the columns whole vectors of kInt8Lanes; `rowWidth` is the output rows'
// width where the pixels are rows of it (0: unknown). Each channel of the group is
// one vector load of 16 consecutive columns (masked where they pad) and one store of every 4th
// byte (a masked store of a spread vector); a scalar loop spent about 5 instructions a byte.
void vectorizeRepack(tir::Schedule& sch, const DotForm& form, const ScheduleOptions& options,
                     int64_t rowWidth = 0) {
  std::optional<tir::BlockRV> repack = findBlock(sch, form.repack);
  if (!repack) return;
  std::vector<tir::LoopRV> loops = sch.getLoops(*repack);
  if (loops.size() < 3 || sch.get(*repack)->iterVars.size() != loops.size()) return;
  const tir::LoopRV columns = loops[loops.size() - 2], channel = loops.back();
  const std::optional<int64_t> extent = extentOf(sch, columns);
  if (!extent || *extent % kInt8Lanes != 0) return;
  const int64_t work = workOf(sch, loops);
  std::vector<tir::LoopRV> col = sch.split(columns, {std::monostate{}, kInt8Lanes});
  // Rows of whole vectors: the loop over vectors split by row, so that a vector's row and column
  // are the two loop variables, not a division and a remainder of their product (MobileNetV2's
  // stem: its 9 taps' copies spent about 25 scalar instructions per vector so; the kernel 63.5 ->
  // 56 us on Zen 5).
  if (rowWidth > 0 && rowWidth % kInt8Lanes == 0 && *extent % rowWidth == 0) {
    std::vector<tir::LoopRV> rows = sch.split(col[0], {std::monostate{}, rowWidth / kInt8Lanes});
    sch.reorder({rows[0], rows[1], channel, col[1]});
  } else {
    sch.reorder({col[0], channel, col[1]});
  }
  sch.unroll(channel);
  sch.vectorize(col[1]);
  if (work >= options.minParallelWork)
    parallelTiles(sch, {loops.begin(), loops.end() - 2}, options.numCores);
}

// A strided pointwise conv2d's copy of the pixels it reads, `data_subsampled` (n, c, y, x): each
// row one vector of strided loads (a wide load and a shuffle), channels in parallel.
void vectorizeSubsample(tir::Schedule& sch, const ScheduleOptions& options) {
  std::optional<tir::BlockRV> copy = findBlock(sch, "data_subsampled");
  if (!copy) return;
  std::vector<tir::LoopRV> loops = sch.getLoops(*copy);
  if (loops.size() != 4) return;
  sch.vectorize(loops.back());
  if (workOf(sch, loops) >= options.minParallelWork)
    parallelTiles(sch, {loops[0], loops[1]}, options.numCores);
}

}  // namespace

namespace {

// The shape facts the conv2d tilings need, read before the first transformation.
struct ConvShape {
  tir::BlockRV conv;
  std::vector<tir::LoopRV> out;  // the output's n, c, h, w loops
  int64_t channels, height, width;
  int64_t groups;     // input-channel groups of the form's depth
  int64_t window;     // KH * KW
  int64_t reduction;  // groups * depth * window
  DotForm form;
};

// A small image (14x14, 7x7) is one tile per block of output channels, with the reduction in
// chunks of 16 KiB of weights, each over every row, so the weights of a block (288 KiB at ResNet's
// 7x7 stage) are read from L2 once rather than once per row. Rows of fewer than half the
// accumulators (12 with VNNI) take two blocks of channels, so that enough independent
// accumulators hide the dot product's latency.
Applicability tileSmallImage(tir::Schedule& sch, const ConvShape& c, int64_t owb,
                             const ScheduleOptions& options) {
  const int64_t blocks = 2 * owb < c.form.maxTiles && c.channels % (2 * kInt8Lanes) == 0 ? 2 : 1;
  // A step of 16 lanes' weights is 64 bytes in either form (16 x 4 int8, 16 x 2 int16).
  const int64_t chunk = largestDivisorAtMost(c.groups, kL1WeightBytes / 2 / (c.window * 64));
  std::vector<tir::LoopRV> oc = sch.split(c.out[1], {std::monostate{}, blocks * kInt8Lanes});
  sch.computeAt(c.conv, oc[0], /*preserveUnitLoops=*/true);
  // Below (n, oc[0]): n, oc, oh, ow, lane, rc, ry, rx, rk.
  std::vector<tir::LoopRV> tile = innerLoops(sch, c.conv, 2);
  if (tile.size() != 9) return notApplicable("conv2d_nchw_int8", "unexpected loops below the tile");
  std::vector<tir::LoopRV> rc = sch.split(tile[5], {std::monostate{}, chunk});
  std::vector<tir::LoopRV> col = sch.split(tile[3], {std::monostate{}, owb});
  sch.reorder({rc[0], tile[2], col[0], rc[1], tile[6], tile[7], tile[1], col[1], tile[4], tile[8]});
  tir::BlockRV init = sch.decomposeReduction(c.conv, rc[0]);
  sch.unroll(tile[1]);
  sch.unroll(col[1]);
  sch.tensorize(tile[4], c.form.dot);
  vectorizeTile(sch, innerLoops(sch, init, 2));
  // The output stage as tileRows' (below): vectors of a row's columns, each block's 16 channels
  // unrolled, where a scalar loop spent about 20 instructions per output (MobileNetV2's 960 ->
  // 320 at 7x7: 1568 outputs per tile).
  if (c.channels % (blocks * kInt8Lanes) == 0) {
    std::vector<tir::LoopRV> lanes = sch.split(oc[1], {blocks, kInt8Lanes});
    sch.reorder({lanes[0], c.out[2], lanes[1], c.out[3]});
    sch.unroll(lanes[1]);
    sch.vectorize(c.out[3]);
  }
  if (c.channels * c.width * c.reduction >= options.minParallelWork)
    parallelTiles(sch, {c.out[0], oc[0]}, options.numCores);
  return Applicability::yes();
}

// Otherwise a tile is 16 channels x owb columns of one row, its accumulators computed over the
// whole reduction. An image stem, whose reduction is one group of input channels (3 of VNNI's 4
// bytes) over a large window, takes two blocks of 16 channels x half the columns: per step two
// weight vectors and 8 broadcasts for 16 products rather than one and 16, and an output stage of
// 8 columns. ResNet's 7x7 stride-2 stem on Zen 5: 0.47 -> 0.39 ms (0.73 -> 0.87 of oneDNN's
// speed); every other layer of ResNet-18 measured the same either way. 14 columns spill.
Applicability tileRows(tir::Schedule& sch, const ConvShape& c, int64_t owb,
                       const ScheduleOptions& options) {
  const bool stem =
      c.groups == 1 && c.form.repack == kInt8RepackStage && c.channels % (2 * kInt8Lanes) == 0;
  const int64_t blocks = stem ? 2 : 1;
  if (stem) owb = largestDivisorAtMost(c.width, c.form.maxTiles / 2);
  std::vector<tir::LoopRV> oc = sch.split(c.out[1], {std::monostate{}, blocks * kInt8Lanes});
  std::vector<tir::LoopRV> ow = sch.split(c.out[3], {std::monostate{}, owb});
  sch.reorder({oc[0], c.out[2], ow[0], oc[1], ow[1]});
  sch.computeAt(c.conv, ow[0], /*preserveUnitLoops=*/true);
  // Below the tile loops (n, oc[0], h, ow[0]): n, oc, oh, ow, lane, then rc, ry, rx, rk.
  std::vector<tir::LoopRV> tile = sch.getLoops(c.conv);
  if (tile.size() != 4 + 9)
    return notApplicable("conv2d_nchw_int8", "unexpected loops below the tile");
  const tir::LoopRV block = tile[5], column = tile[7], lane = tile[8], rk = tile[12];
  std::vector<tir::LoopRV> order{tile[9], tile[10], tile[11]};
  if (stem) order.push_back(block);
  order.insert(order.end(), {column, lane, rk});
  sch.reorder(order);
  tir::BlockRV init = sch.decomposeReduction(c.conv, tile[9]);
  sch.unroll(block);
  sch.unroll(column);
  sch.tensorize(lane, c.form.dot);
  vectorizeTile(sch, innerLoops(sch, init, 4));  // below the tile loops
  // The output stage (compensation, requantizing epilogue, cast) runs on vectors of the tile's
  // columns, contiguous in the NCHW output, where a scalar epilogue spent several instructions
  // per output. With its 16 channels unrolled, each vector reads a channel's accumulators at
  // constant offsets, and LLVM transposes the tile in registers instead of gathering from memory
  // (14x14 pointwise layers: 0.65 -> 0.78 of oneDNN's speed on Zen 5).
  sch.unroll(oc[1]);
  sch.vectorize(ow[1]);
  if (c.channels * c.width * c.reduction >= options.minParallelWork)
    parallelTiles(sch, {c.out[0], oc[0], c.out[2]}, options.numCores);
  return Applicability::yes();
}

}  // namespace

Applicability scheduleConv2dInt8(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "conv2d_nchw_int8";
  registerTensorIntrinsics();
  const DotForm form = formOf(sch, options);
  inlineElementwise(sch, {anchor, form.repack, "data_subsampled"});
  vectorizeRepack(sch, form, options);
  vectorizeSubsample(sch, options);
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !out) return notApplicable(anchor, "the kernel needs one conv2d and one output");
  const tir::BlockNode* block = sch.get(*conv);
  if (block->iterVars.size() != 9) return notApplicable(anchor, "unexpected accumulator");
  const int64_t* groups = tir::asConstInt(block->iterVars[5].dom.extent);
  ConvShape c{.conv = *conv, .out = sch.getLoops(*out), .form = form};
  c.reduction = reductionSize(block);
  c.groups = groups ? *groups : 1;
  c.window = c.reduction / std::max<int64_t>(1, c.groups * form.depth);
  if (c.out.size() != 4) return notApplicable(anchor, "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, c.out[1]);
  const std::optional<int64_t> height = extentOf(sch, c.out[2]), width = extentOf(sch, c.out[3]);
  if (!channels || !width || !height) return notApplicable(anchor, "symbolic shape");
  c.channels = *channels;
  c.height = *height;
  c.width = *width;

  const int64_t owb = largestDivisorAtMost(c.width, form.maxTiles);
  const bool small = c.height * c.width * kInt8Lanes * 4 <= kSmallImageBytes;
  // Rows narrower than 12 (with VNNI) take the small-image tile too, whatever the reduction: its
  // two blocks of channels give enough accumulators (ResNet-50's 7x7 pointwise layers: 0.70 ->
  // 0.83 of oneDNN's speed on Zen 5).
  if (small &&
      (c.reduction * kInt8Lanes * form.weightBytes > kL1WeightBytes || 2 * owb < form.maxTiles))
    return tileSmallImage(sch, c, owb, options);
  return tileRows(sch, c, owb, options);
}

namespace {

// The tile of the products over pixels: `channels` output channels x `vectors` vectors of 16
// pixels, one accumulator each. Each step of a tile loads each pixel vector once and broadcasts
// each channel's weights once, for channels x vectors dot products: 24 x 1 took 25 loads for 24
// products, 6 x 4 take 10. With VNNI the tile with the fewest loads per product among those
// whose vectors (a power of two: 7 vectors of 28x28's 49 made its epilogue's 112-lane vectors
// 20 times slower) divide the pixel vectors computed; the AVX2 forms keep one vector.
// MobileNetV2 int8 on Zen 5 at one thread, per kernel: 32 -> 16 at 112x112 42 -> 28 us,
// 16 -> 96 93 -> 82, 320 -> 1280 at 7x7 85 -> 64, 160 -> 960 at 7x7 35 -> 24.
struct PixelTile {
  int64_t channels, vectors;
};

PixelTile pixelTileOf(const DotForm& form, int64_t channels, int64_t computedPixels) {
  const int64_t pixelVectors = computedPixels / kInt8Lanes;
  PixelTile best{largestDivisorAtMost(channels, form.maxTiles), 1};
  if (form.repack != kInt8RepackStage) return best;
  // Loads per product, (c + v) / (c v), compared without division.
  auto better = [](const PixelTile& a, const PixelTile& b) {
    return (a.channels + a.vectors) * b.channels * b.vectors <
           (b.channels + b.vectors) * a.channels * a.vectors;
  };
  for (const int64_t vectors : {2, 4, 8}) {
    if (pixelVectors % vectors != 0) continue;
    const PixelTile tile{largestDivisorAtMost(channels, form.maxTiles / vectors), vectors};
    if (better(tile, best)) best = tile;
  }
  return best;
}

// The products over pixels (`anchor`: conv2d_1x1_int8, conv2d_pixels_int8), whose block is (n,
// oc, pixel) over the reduction steps ending in the 4 (or 2) elements of a dot product: tiles of
// mr output channels x some vectors of 16 pixels (pixelTileOf), one accumulator per channel and
// vector; each step loads each vector of 16 pixels' 4 bytes and multiplies it by each channel's 4
// weight bytes, broadcast.
Applicability scheduleOverPixels(tir::Schedule& sch, const ScheduleOptions& options,
                                 const std::string& anchor) {
  registerTensorIntrinsics();
  const DotForm form = formOf(sch, options);
  inlineElementwise(sch, {anchor, form.repack, "data_subsampled"});
  if (std::optional<tir::BlockRV> out = soleOutputBlock(sch)) {
    std::vector<tir::LoopRV> o = sch.getLoops(*out);
    const std::optional<int64_t> w = o.size() == 4 ? extentOf(sch, o[3]) : std::nullopt;
    vectorizeRepack(sch, form, options, w.value_or(0));
  }
  vectorizeSubsample(sch, options);
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !out) return notApplicable(anchor, "the kernel needs one conv2d and one output");
  const size_t axes = sch.get(*conv)->iterVars.size();
  if (axes < 5) return notApplicable(anchor, "unexpected conv2d");
  const int64_t reduction = reductionSize(sch.get(*conv));
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  if (loops.size() != 4) return notApplicable(anchor, "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, loops[1]);
  const std::optional<int64_t> height = extentOf(sch, loops[2]), width = extentOf(sch, loops[3]);
  if (!channels || !height || !width) return notApplicable(anchor, "symbolic shape");

  // The pixels the products compute (whole vectors of 16, the last one padded).
  const int64_t* computed = tir::asConstInt(sch.get(*conv)->iterVars[2].dom.extent);
  if (!computed || *computed % kInt8Lanes != 0)
    return notApplicable(anchor, "the products' pixels are not whole vectors");
  const PixelTile t = pixelTileOf(form, *channels, *computed);
  const int64_t mr = t.channels, pixelVectors = t.vectors;
  tir::LoopRV pixel = sch.fuse({loops[2], loops[3]});
  std::vector<tir::LoopRV> p = sch.split(pixel, {std::monostate{}, pixelVectors * kInt8Lanes});
  std::vector<tir::LoopRV> c = sch.split(loops[1], {std::monostate{}, mr});
  sch.reorder({p[0], c[0], c[1], p[1]});
  sch.computeAt(*conv, c[0], /*preserveUnitLoops=*/true);

  // Below the tile loops (n, p[0], c[0]): n, channel, pixel, then the reduction steps and the
  // dot product's elements; the steps go outside the channels and pixel vectors, the elements
  // stay innermost.
  std::vector<tir::LoopRV> tile = sch.getLoops(*conv);
  if (tile.size() != 3 + axes) return notApplicable(anchor, "unexpected loops below the tile");
  std::vector<tir::LoopRV> order(tile.begin() + 6, tile.end() - 1);
  std::vector<tir::LoopRV> pv = sch.split(tile[5], {pixelVectors, kInt8Lanes});
  order.insert(order.end(), {tile[4], pv[0], pv[1], tile.back()});
  sch.reorder(order);
  tir::BlockRV init = sch.decomposeReduction(*conv, tile[6]);
  sch.unroll(tile[4]);
  sch.unroll(pv[0]);
  sch.tensorize(pv[1], form.sharedWeightDot);
  vectorizeTile(sch, innerLoops(sch, init, 3));  // below the tile loops
  // The epilogue writes vectors of 16 pixels of each channel's row (the last one masked when
  // H*W is not a multiple of 16).
  sch.unroll(c[1]);
  sch.vectorize(p[1]);
  if (*channels * *height * *width * reduction >= options.minParallelWork)
    parallelTiles(sch, {loops[0], p[0], c[0]}, options.numCores);
  return Applicability::yes();
}

}  // namespace

Applicability scheduleConv2d1x1Int8(tir::Schedule& sch, const ScheduleOptions& options) {
  return scheduleOverPixels(sch, options, "conv2d_1x1_int8");
}

Applicability scheduleConv2dInt8OverPixels(tir::Schedule& sch, const ScheduleOptions& options) {
  return scheduleOverPixels(sch, options, "conv2d_pixels_int8");
}

Applicability scheduleDenseInt8(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "dense_int8";
  registerTensorIntrinsics();
  const DotForm form = formOf(sch, options);
  inlineElementwise(sch, {anchor, form.repack});
  std::optional<tir::BlockRV> dense = findBlock(sch, anchor);
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!dense || !out) return notApplicable(anchor, "the kernel needs one dense and one output");
  const tir::BlockNode* d = sch.get(*dense);
  if (d->iterVars.size() != 5) return notApplicable(anchor, "needs (M, K) data");
  const int64_t reduction = reductionSize(d);
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  // The output of N-D data (rows reshaped back): its leading loops are the rows.
  if (loops.size() > 2) loops = {sch.fuse({loops.begin(), loops.end() - 1}), loops.back()};
  if (loops.size() != 2) return notApplicable(anchor, "the output is not (M, N)");
  const std::optional<int64_t> rows = extentOf(sch, loops[0]), columns = extentOf(sch, loops[1]);
  if (!rows || !columns) return notApplicable(anchor, "symbolic shape");

  const int64_t mr = largestDivisorAtMost(*rows, std::min<int64_t>(8, form.maxTiles));
  std::vector<tir::LoopRV> j = sch.split(loops[1], {std::monostate{}, kInt8Lanes});
  std::vector<tir::LoopRV> i = sch.split(loops[0], {std::monostate{}, mr});
  sch.reorder({j[0], i[0], i[1], j[1]});
  sch.computeAt(*dense, i[0], /*preserveUnitLoops=*/true);

  // Below the tile loops (j[0], i[0]): m, jo, lane, then rc, rk.
  std::vector<tir::LoopRV> tile = innerLoops(sch, *dense, 2);
  if (tile.size() != 5) return notApplicable(anchor, "unexpected loops below the tile");
  sch.reorder({tile[3], tile[0], tile[1], tile[2], tile[4]});
  tir::BlockRV init = sch.decomposeReduction(*dense, tile[3]);
  sch.unroll(tile[0]);
  sch.tensorize(tile[2], form.dot);
  vectorizeTile(sch, innerLoops(sch, init, 2));

  if (*rows * *columns * reduction >= options.minParallelWork)
    parallelTiles(sch, {j[0], i[0]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
