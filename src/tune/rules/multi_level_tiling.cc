// MultiLevelTiling with TVM's CPU structure "SSRSRS": every spatial loop of a block that needs
// tiling (rule_analysis.h) is split into four sampled tiles and every reduction loop into two
// (sample_perfect_tile, innermost at most 64), and the tiles are reordered level by level
// (matmul: i0 j0 i1 j1 k0 i2 j2 k1 i3 j3). Write reuse "may" at levels 1 and 2: three variants —
// no cache; the result accumulated in a cache (cache_write "global") copied back under the last
// loop of level 1, or of level 2. When the block's only consumer is an elementwise block over
// the same iteration space (a fused epilogue), that consumer is moved there instead of a cache,
// as TVM does, so the epilogue runs on each register tile.
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_analysis.h"
#include "tune/rules/rule_analysis.h"
#include "tune/rules/schedule_rule.h"

namespace tessera::tune::rules {

namespace {

constexpr char kStructure[] = "SSRSRS";

// The single consumer when it is an elementwise block over the block's spatial space: complete,
// trivially bound, and its loop extents the block's spatial loop extents.
std::optional<tir::BlockRV> elementwiseConsumer(tir::Schedule& sch, const tir::BlockRV& block) {
  tir::Schedule probe = sch.copy();
  std::vector<tir::BlockRV> consumers = probe.getConsumers(block);
  if (consumers.size() != 1) return std::nullopt;
  const tir::BlockNode* c = probe.get(consumers[0]);
  if (!tir::isCompleteBlock(c) || !hasTrivialBinding(probe, consumers[0])) return std::nullopt;
  std::vector<int64_t> spatial;
  for (const tir::IterVar& iv : probe.get(block)->iterVars)
    if (iv.type == tir::IterVarType::kDataPar) spatial.push_back(*tir::asConstInt(iv.dom.extent));
  std::vector<int64_t> theirs;
  for (const tir::IterVar& iv : c->iterVars) theirs.push_back(*tir::asConstInt(iv.dom.extent));
  if (spatial != theirs) return std::nullopt;
  // Recorded in `sch` too, so the trace names the consumer.
  std::vector<tir::BlockRV> recorded = sch.getConsumers(block);
  return recorded[0];
}

// Tiles the block; with `level` > 0 also places the write cache (or the epilogue) under the last
// loop of that tile level.
Applicability tile(tir::Schedule& sch, const tir::BlockRV& block, int level,
                   const RuleContext& ctx) {
  const std::vector<LoopKind> kinds = loopKinds(sch, block);
  std::optional<tir::BlockRV> writeBack;
  if (level > 0) {
    writeBack = elementwiseConsumer(sch, block);
    if (!writeBack) writeBack = sch.cacheWrite(block, 0, "global");
  }
  sch.annotate(block, kTilingStructure, AttrValue::string(kStructure));
  std::vector<tir::LoopRV> loops = sch.getLoops(block);
  // tiles[p]: the loops of structure position p (S0 S1 R0 S2 R1 S3).
  std::vector<std::vector<tir::LoopRV>> tiles(sizeof(kStructure) - 1);
  for (size_t l = 0; l < loops.size(); ++l) {
    if (kinds[l] == LoopKind::kOther) return Applicability::no("a loop is neither S nor R");
    const char want = kinds[l] == LoopKind::kSpatial ? 'S' : 'R';
    std::vector<size_t> positions;
    for (size_t p = 0; p + 1 < sizeof(kStructure); ++p)
      if (kStructure[p] == want) positions.push_back(p);
    std::vector<tir::ExprRV> factors =
        sch.samplePerfectTile(loops[l], static_cast<int>(positions.size()), ctx.maxInnermostFactor);
    std::vector<tir::SplitFactor> split(factors.begin(), factors.end());
    std::vector<tir::LoopRV> parts = sch.split(loops[l], split);
    for (size_t t = 0; t < parts.size(); ++t) tiles[positions[t]].push_back(parts[t]);
  }
  std::vector<tir::LoopRV> order;
  for (const auto& level : tiles) order.insert(order.end(), level.begin(), level.end());
  sch.reorder(order);
  if (writeBack) {
    // Levels count the spatial tiles: level 1 is S0's last loop, level 2 S1's.
    const std::vector<tir::LoopRV>& at = tiles[level == 1 ? 0 : 1];
    sch.reverseComputeAt(*writeBack, at.back(), /*preserveUnitLoops=*/true);
  }
  return Applicability::yes();
}

std::vector<tir::Schedule> apply(tir::Schedule sch, const tir::BlockRV& block,
                                 const RuleContext& ctx) {
  if (!needsMultiLevelTiling(sch, block)) return unchanged(std::move(sch));
  std::vector<tir::Schedule> out;
  for (int level : {0, 1, 2}) {
    tir::Schedule variant = sch.copy();
    if (tir::attempt(variant, [&](tir::Schedule& s) { return tile(s, block, level, ctx); }))
      out.push_back(std::move(variant));
  }
  if (out.empty()) out.push_back(std::move(sch));
  return out;
}

}  // namespace

ScheduleRule multiLevelTiling() {
  return {.name = "MultiLevelTiling", .apply = apply};
}

}  // namespace tessera::tune::rules
