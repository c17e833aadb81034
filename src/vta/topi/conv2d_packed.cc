// VTA's packed convolution: the TE graph of seed 004 (spec vta.md §7.1) and its schedule in
// TensorIR primitives. Each step names the TE call of the seed it replaces; TensorIR's compute_at
// moves a producer under a consumer's loop, so the stages after the convolution are attached
// from the last one backwards where TE attached them in any order.
#include "vta/topi/conv2d_packed.h"

#include "support/diagnostic.h"
#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "te/tensor.h"
#include "topi/nn.h"
#include "vta/topi/gemm_steps.h"

namespace tessera::vta {

using tir::PrimExpr;

namespace {

std::vector<PrimExpr> toExprs(const std::vector<tir::Var>& vars) {
  return {vars.begin(), vars.end()};
}

}  // namespace

std::vector<EpilogueOp> Conv2dPackedShape::epilogueOps() const {
  return epilogue ? *epilogue : defaultEpilogue(shift);
}

std::vector<EpilogueStage> epilogueStages(const Conv2dPackedShape& s) {
  return epilogueStages(s.epilogueOps());
}

tir::PrimFunc conv2dPackedFunc(const Config& c, const Conv2dPackedShape& s) {
  const int64_t b = c.batch(), ci = c.blockIn(), co = c.blockOut();
  const int64_t outH = (s.height + 2 * s.pad - s.kernel) / s.stride + 1;
  const int64_t outW = (s.width + 2 * s.pad - s.kernel) / s.stride + 1;
  const te::Tensor data = te::placeholder(
      {s.batch / b, s.inChannels / ci, s.height, s.width, b, ci}, DataType::int8(), "data");
  const te::Tensor kernel =
      te::placeholder({s.outChannels / co, s.inChannels / ci, s.kernel, s.kernel, co, ci},
                      DataType::int8(), "kernel");
  // data_buf = topi.nn.pad(data, [0, 0, pad, pad, 0, 0]); kernel_buf = a copy (the SRAM stage).
  const te::Tensor dataBuf =
      topi::pad(data, {0, 0, s.pad, s.pad, 0, 0}, {0, 0, s.pad, s.pad, 0, 0}, nullptr, "data_buf");
  const te::Tensor kernelBuf = te::compute(
      kernel.shape(), [&](const std::vector<tir::Var>& i) { return kernel(toExprs(i)); },
      "kernel_buf");
  const te::IterVar ic = te::reduceAxis(0, s.inChannels / ci, "ic");
  const te::IterVar dy = te::reduceAxis(0, s.kernel, "dy");
  const te::IterVar dx = te::reduceAxis(0, s.kernel, "dx");
  const te::IterVar icT = te::reduceAxis(0, ci, "ic_tns");
  const DataType i32 = DataType::int32();
  const std::vector<int64_t> outShape = {s.batch / b, s.outChannels / co, outH, outW, b, co};
  const te::Tensor conv = te::compute(
      outShape,
      [&](tir::Var bo, tir::Var cOut, tir::Var i, tir::Var j, tir::Var bi, tir::Var cIn) {
        PrimExpr x = dataBuf(bo, ic.var, i * tir::intImm(s.stride) + dy.var,
                             j * tir::intImm(s.stride) + dx.var, bi, icT.var);
        PrimExpr w = kernelBuf(cOut, ic.var, dy.var, dx.var, cIn, icT.var);
        return te::sum(tir::cast(i32, x) * tir::cast(i32, w), {ic, dy, dx, icT});
      },
      "res_conv");
  // The epilogue: one stage per operation; per-channel operands are loaded into the accumulator.
  std::vector<te::Tensor> params = {data, kernel};
  const te::Tensor res = appendEpilogue(
      conv, outShape, epilogueStages(s), {s.outChannels / co, 1, 1, b, co},
      [](const std::vector<tir::Var>& i) -> std::vector<PrimExpr> {
        return {i[1], tir::intImm(0), tir::intImm(0), i[4], i[5]};
      },
      params);
  params.push_back(res);
  return te::createPrimFunc(params);
}

namespace {

using tir::BlockRV;
using tir::LoopRV;
constexpr std::monostate kRest{};

// The loops a block owns after compute_at: the last `rank` of its loops.
std::vector<LoopRV> ownLoops(tir::Schedule& sch, const BlockRV& block, size_t rank) {
  std::vector<LoopRV> all = sch.getLoops(block);
  return {all.end() - static_cast<std::ptrdiff_t>(rank), all.end()};
}

// VTA moves whole tiles: a knob that does not divide its extent would need a predicate on DMA
// and GEMM work, which the accelerator has no form for.
void checkTiles(const Config& c, const Conv2dPackedShape& s, const Conv2dPackedKnobs& k) {
  const int64_t outH = (s.height + 2 * s.pad - s.kernel) / s.stride + 1;
  const int64_t outW = (s.width + 2 * s.pad - s.kernel) / s.stride + 1;
  auto divides = [](const char* knob, int64_t value, const char* what, int64_t extent) {
    if (value <= 0 || extent % value != 0)
      throwDiagnostic("vta_schedule", std::string("conv2d_packed: ") + knob + "=" +
                                          std::to_string(value) + " does not divide the " + what +
                                          " (" + std::to_string(extent) + ")");
  };
  if (s.batch % c.batch() || s.inChannels % c.blockIn() || s.outChannels % c.blockOut())
    throwDiagnostic("vta_schedule",
                    "conv2d_packed: batch " + std::to_string(s.batch) + ", channels " +
                        std::to_string(s.inChannels) + " -> " + std::to_string(s.outChannels) +
                        " are not whole VTA blocks (" + std::to_string(c.batch()) + ", " +
                        std::to_string(c.blockIn()) + ", " + std::to_string(c.blockOut()) + ")");
  divides("tile_b", k.tileB, "batch blocks", s.batch / c.batch());
  divides("tile_co", k.tileCo, "output-channel blocks", s.outChannels / c.blockOut());
  divides("tile_h", k.tileH, "output rows", outH);
  divides("tile_w", k.tileW, "output columns", outW);
  divides("tile_ci", k.tileCi, "input-channel blocks", s.inChannels / c.blockIn());
  divides("oc_nthread", k.ocThreads, "output-channel tiles",
          s.outChannels / c.blockOut() / k.tileCo);
  divides("h_nthread", k.hThreads, "row tiles", outH / k.tileH);
}

void pragma(tir::Schedule& sch, const LoopRV& loop, const char* name) {
  sch.annotate(loop, std::string("pragma_") + name, AttrValue::integer(1));
}

}  // namespace

Conv2dPackedKnobs defaultConv2dPackedKnobs(const Config& c, const Conv2dPackedShape& s) {
  const int64_t outH = (s.height + 2 * s.pad - s.kernel) / s.stride + 1;
  const int64_t outW = (s.width + 2 * s.pad - s.kernel) / s.stride + 1;
  const int64_t ocBlocks = s.outChannels / c.blockOut();
  Conv2dPackedKnobs k;
  k.tileW = outW;
  k.tileCi = 1;
  k.hThreads = 1;
  k.ocThreads = ocBlocks % 2 == 0 ? 2 : 1;
  const int64_t threads = k.ocThreads;
  const int64_t inCols = (outW - 1) * s.stride + s.kernel;
  int64_t best = 0;
  for (int64_t h = 1; h <= outH; ++h) {
    if (outH % h) continue;
    const int64_t inRows = (h - 1) * s.stride + s.kernel;
    if (inRows * inCols * threads > c.inpBuffDepth()) continue;
    for (int64_t co = 1; co <= ocBlocks / threads; ++co) {
      if ((ocBlocks / threads) % co) continue;
      if (co * h * outW * threads > c.accBuffDepth()) continue;
      if (co * s.kernel * s.kernel * threads > c.wgtBuffDepth()) continue;
      if (co * h > best) best = co * h, k.tileH = h, k.tileCo = co;
    }
  }
  if (!best)
    throwDiagnostic("vta_schedule", "conv2d_packed: not even one output row of " +
                                        std::to_string(outW) + " columns fits VTA's SRAMs");
  return k;
}

void scheduleConv2dPacked(tir::Schedule& sch, const Config& config, const Conv2dPackedShape& s,
                          const Conv2dPackedKnobs& k, bool tensorize) {
  checkTiles(config, s, k);
  const BlockRV res = sch.getBlock("res");
  // b, oc, y, x, b_tns, oc_tns = s[res].op.axis; split each by its tile; reorder.
  const std::vector<LoopRV> axes = sch.getLoops(res);
  const std::vector<LoopRV> b = sch.split(axes[0], {kRest, k.tileB});
  const std::vector<LoopRV> oc = sch.split(axes[1], {kRest, k.tileCo});
  const std::vector<LoopRV> y = sch.split(axes[2], {kRest, k.tileH});
  const std::vector<LoopRV> x = sch.split(axes[3], {kRest, k.tileW});
  sch.reorder({b[0], oc[0], y[0], x[0], b[1], oc[1], y[1], x[1], axes[4], axes[5]});
  // Virtual threads: split the outer channel (row) tile, move the thread part outermost and bind
  // it to cthread (`s[res].bind(tx, te.thread_axis("cthread"))`).
  for (auto [loop, threads] : {std::pair{oc[0], k.ocThreads}, std::pair{y[0], k.hThreads}}) {
    if (threads <= 1) continue;
    const std::vector<LoopRV> t = sch.split(loop, {kRest, threads});
    sch.reorder({t[1], b[0]});
    sch.bind(t[1], "cthread");
  }
  // s[res_conv|res_shr|res_max|res_min].compute_at(s[res], x_out), consumers first; per-channel
  // operands are loaded for each output tile.
  const std::vector<EpilogueStage> stages = epilogueStages(s);
  attachEpilogue(sch, stages, x[0]);
  sch.computeAt(sch.getBlock("res_conv"), x[0], /*preserveUnitLoops=*/true);
  // The channel reduction in tiles of tileCi blocks, then the seed's conv loop order.
  const BlockRV conv = sch.getBlock("res_conv");
  const std::vector<LoopRV> c = ownLoops(sch, conv, 10);  // 6 spatial, ic, dy, dx, ic_tns
  const std::vector<LoopRV> ic = sch.split(c[6], {kRest, k.tileCi});
  sch.reorder({ic[0], c[0], c[1], c[2], ic[1], c[7], c[8], c[3], c[4], c[5], c[9]});
  // SRAM scopes of every stage.
  sch.setScope(sch.getBlock("data_buf"), 0, "local.inp_buffer");
  sch.setScope(sch.getBlock("kernel_buf"), 0, "local.wgt_buffer");
  sch.setScope(sch.getBlock("res_conv"), 0, "local.acc_buffer");
  pragma(sch, axes[4], "dma_copy");  // s[res].pragma(s[res].op.axis[4], env.dma_copy)
  // The data and kernel tiles loaded per reduction step, by DMA; reset GEMMs; tensorize(b_tns).
  scheduleGemmCore(sch, config, conv, {"data_buf", "kernel_buf"}, ic[0], /*operandRank=*/6, c[4],
                   tensorize);
  annotateEpilogue(sch, stages, /*outRank=*/6, /*operandRank=*/5);
}

}  // namespace tessera::vta
