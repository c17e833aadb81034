// VTA's packed dense layer: TVM's dense_packed compute (topi::denseBlocked between the SRAM copies
// and the requantize epilogue) and its default schedule (vta_dense.py's schedule_dense_packed) in
// TensorIR primitives. Each step names the TE call it replaces. Where TE attaches stages to the
// output-channel tile and then splits it for virtual threads, TensorIR splits first and attaches
// to the tile loop that remains, so each thread owns a tile_b x tile_co accumulator tile.
#include "vta/topi/dense_packed.h"

#include "support/diagnostic.h"
#include "te/create_prim_func.h"
#include "te/tensor.h"
#include "topi/nn.h"
#include "vta/topi/gemm_steps.h"

namespace tessera::vta {

using tir::BlockRV;
using tir::LoopRV;
using tir::PrimExpr;

namespace {

constexpr std::monostate kRest{};

std::vector<PrimExpr> toExprs(const std::vector<tir::Var>& vars) {
  return {vars.begin(), vars.end()};
}

std::vector<LoopRV> ownLoops(tir::Schedule& sch, const BlockRV& block, size_t rank) {
  std::vector<LoopRV> all = sch.getLoops(block);
  return {all.end() - static_cast<std::ptrdiff_t>(rank), all.end()};
}

void pragma(tir::Schedule& sch, const LoopRV& loop, const char* name) {
  sch.annotate(loop, std::string("pragma_") + name, AttrValue::integer(1));
}

// VTA moves whole blocks: rows in BATCH, features in BLOCK_IN / BLOCK_OUT (graph packing pads
// the features; a batch that does not divide is the caller's to split).
void checkBlocks(const Config& c, const DensePackedShape& s) {
  if (s.batch > 0 && s.inFeatures > 0 && s.outFeatures > 0 && s.batch % c.batch() == 0 &&
      s.inFeatures % c.blockIn() == 0 && s.outFeatures % c.blockOut() == 0)
    return;
  throwDiagnostic("vta_schedule",
                  "dense_packed: batch " + std::to_string(s.batch) + ", features " +
                      std::to_string(s.inFeatures) + " -> " + std::to_string(s.outFeatures) +
                      " are not whole VTA blocks (" + std::to_string(c.batch()) + ", " +
                      std::to_string(c.blockIn()) + ", " + std::to_string(c.blockOut()) + ")");
}

// A knob that does not divide its extent would need predicated DMA and GEMM work, which VTA has
// no form for.
void checkTiles(const Config& c, const DensePackedShape& s, const DensePackedKnobs& k) {
  checkBlocks(c, s);
  auto divides = [](const char* knob, int64_t value, const char* what, int64_t extent) {
    if (value <= 0 || extent % value != 0)
      throwDiagnostic("vta_schedule", std::string("dense_packed: ") + knob + "=" +
                                          std::to_string(value) + " does not divide the " + what +
                                          " (" + std::to_string(extent) + ")");
  };
  const int64_t outBlocks = s.outFeatures / c.blockOut();
  divides("tile_b", k.tileB, "batch blocks", s.batch / c.batch());
  divides("tile_co", k.tileCo, "output-channel blocks", outBlocks);
  divides("tile_ci", k.tileCi, "input-feature blocks", s.inFeatures / c.blockIn());
  divides("oc_nthread", k.ocThreads, "output-channel tiles", outBlocks / k.tileCo);
}

std::vector<int64_t> divisorsDescending(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = n; d >= 1; --d)
    if (n % d == 0) out.push_back(d);
  return out;
}

}  // namespace

std::vector<EpilogueOp> DensePackedShape::epilogueOps() const {
  return epilogue ? *epilogue : defaultEpilogue(shift);
}

DensePackedKnobs defaultDensePackedKnobs(const Config& c, const DensePackedShape& s) {
  checkBlocks(c, s);
  const int64_t batchBlocks = s.batch / c.batch(), inBlocks = s.inFeatures / c.blockIn();
  const int64_t outBlocks = s.outFeatures / c.blockOut();
  int64_t operands = 0;
  for (const EpilogueOp& op : s.epilogueOps()) operands += op.kind == EpilogueOp::Kind::kAddChannel;
  DensePackedKnobs k;
  k.ocThreads = outBlocks % 2 == 0 ? 2 : 1;
  const int64_t t = k.ocThreads;
  // Lexicographically largest (tile_co, tile_b, tile_ci) that fits: the first found. tile_co sets
  // how often the data is re-read, tile_b how often the weights are, tile_ci only the DMA count.
  for (int64_t co : divisorsDescending(outBlocks / t))
    for (int64_t b : divisorsDescending(batchBlocks))
      for (int64_t ci : divisorsDescending(inBlocks)) {
        if (t * co * ci > c.wgtBuffDepth() || t * b * ci > c.inpBuffDepth() ||
            t * co * (b + operands) > c.accBuffDepth())
          continue;
        k.tileCo = co, k.tileCi = ci, k.tileB = b;
        return k;
      }
  throwDiagnostic("vta_schedule", "dense_packed: not even one block of " +
                                      std::to_string(operands + 1) +
                                      " accumulator tiles per thread fits VTA's SRAMs");
}

tir::PrimFunc densePackedFunc(const Config& c, const DensePackedShape& s) {
  checkBlocks(c, s);
  const int64_t b = c.batch(), ci = c.blockIn(), co = c.blockOut();
  const te::Tensor data =
      te::placeholder({s.batch / b, s.inFeatures / ci, b, ci}, DataType::int8(), "data");
  const te::Tensor weight =
      te::placeholder({s.outFeatures / co, s.inFeatures / ci, co, ci}, DataType::int8(), "weight");
  // cache_read(data, inp_scope) and cache_read(weight, wgt_scope): the SRAM copies.
  const te::Tensor dataBuf = te::compute(
      data.shape(), [&](const std::vector<tir::Var>& i) { return data(toExprs(i)); }, "data_buf");
  const te::Tensor weightBuf = te::compute(
      weight.shape(), [&](const std::vector<tir::Var>& i) { return weight(toExprs(i)); },
      "weight_buf");
  const te::Tensor gemm = topi::denseBlocked(dataBuf, weightBuf, DataType::int32(), "res_gemm");
  std::vector<te::Tensor> params = {data, weight};
  const te::Tensor res = appendEpilogue(
      gemm, {s.batch / b, s.outFeatures / co, b, co}, epilogueStages(s.epilogueOps()),
      {s.outFeatures / co, b, co},
      [](const std::vector<tir::Var>& i) -> std::vector<PrimExpr> {
        return {i[1], i[2], i[3]};
      },
      params);
  params.push_back(res);
  return te::createPrimFunc(params);
}

void scheduleDensePacked(tir::Schedule& sch, const Config& config, const DensePackedShape& s,
                         const DensePackedKnobs& k, bool tensorize) {
  checkTiles(config, s, k);
  const BlockRV res = sch.getBlock("res");
  // x_b, x_c, _, _ = s[output].op.axis; tile_b and tile_co splits; reorder(bo0, co0, bo1, co1).
  const std::vector<LoopRV> axes = sch.getLoops(res);
  const std::vector<LoopRV> b = sch.split(axes[0], {kRest, k.tileB});
  const std::vector<LoopRV> co = sch.split(axes[1], {kRest, k.tileCo});
  sch.reorder({b[0], co[0], b[1], co[1], axes[2], axes[3]});
  // Virtual threads: the output-channel tiles split by oc_nthread, the thread part outermost and
  // bound to cthread; the stages attach to the channel tile that remains.
  LoopRV storePoint = co[0];
  if (k.ocThreads > 1) {
    const std::vector<LoopRV> t = sch.split(co[0], {kRest, k.ocThreads});
    sch.reorder({t[1], b[0], t[0]});
    sch.bind(t[1], "cthread");
    storePoint = t[0];
  }
  // s[ewise].compute_at(s[output], store_pt), consumers first; per-channel operands per tile.
  const std::vector<EpilogueStage> stages = epilogueStages(s.epilogueOps());
  attachEpilogue(sch, stages, storePoint);
  const BlockRV gemm = sch.getBlock("res_gemm");
  sch.computeAt(gemm, storePoint, /*preserveUnitLoops=*/true);
  // k_o split by tile_ci; TVM's reorder(x_bo, k_o, x_co) with the outer k_o first: TVM keeps the
  // batch tile outside the reduction, so with tile_b > 1 a GEMM micro-op kernel would depend on
  // the row and capture two values (the row and the thread), which VTA's runtime refuses (spec
  // §5.4). Reducing outermost, as conv2d_packed does, folds the rows into a hardware loop and
  // loads each weight tile once per tile_b rows. With tile_b = 1 (TVM's fallback) the two agree.
  const std::vector<LoopRV> g = ownLoops(sch, gemm, 6);  // b1, co1, bi, ci, ko, ki
  const std::vector<LoopRV> ko = sch.split(g[4], {kRest, k.tileCi});
  sch.reorder({ko[0], g[0], ko[1], g[1], g[2], g[3], g[5]});
  sch.setScope(sch.getBlock("data_buf"), 0, "local.inp_buffer");
  sch.setScope(sch.getBlock("weight_buf"), 0, "local.wgt_buffer");
  sch.setScope(gemm, 0, "local.acc_buffer");
  pragma(sch, co[1], "dma_copy");  // s[output].pragma(x_ci, env.dma_copy)
  // The data and weight tiles loaded per reduction step, by DMA; reset GEMMs; tensorize(x_bi).
  scheduleGemmCore(sch, config, gemm, {"data_buf", "weight_buf"}, ko[0], /*operandRank=*/4, g[2],
                   tensorize);
  annotateEpilogue(sch, stages, /*outRank=*/4, /*operandRank=*/3);
}

}  // namespace tessera::vta
