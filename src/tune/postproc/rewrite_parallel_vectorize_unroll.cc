// RewriteParallelVectorizeUnroll: the root's meta_schedule.* annotations (ParallelVectorizeUnroll)
// are removed and, for each block under the root:
//   * parallel: its leading spatial loops (serial, unannotated, constant) are taken one by one,
//     stopping right after the one that makes their product exceed the limit or whose body is
//     more than one statement; they are fused and parallelized;
//   * vectorize: its innermost loop, when spatial, directly around the block, within the limit,
//     and every access of the block is contiguous along it (stride 0, or 1 in the last
//     dimension); a single loop wanted by both is split [None, lanes] first;
//   * unroll: a reduction block's outermost loop gets pragma_auto_unroll_max_step = the sampled
//     step and pragma_unroll_explicit = 1 (nothing for a step of 0).
// TVM fuses several contiguous innermost loops for vectorize; Tessera takes the innermost one.
#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tune/postproc/postproc.h"
#include "tune/rules/rule_analysis.h"
#include "tune/rules/schedule_rule.h"

namespace tessera::tune::postproc {

namespace {

using rules::LoopKind;

struct Limits {
  int64_t parallel = 0;
  int64_t vectorize = 0;
  int64_t unroll = 0;
};

// How far `e` moves when `v` grows by one; nullopt when that is not a constant.
std::optional<int64_t> strideOf(const tir::PrimExpr& e, const tir::Var& v) {
  tir::VarMap next{{v.get(), v + 1}};
  const tir::PrimExpr diff = tir::arith::simplify(tir::substitute(e, next) - e);
  const int64_t* c = tir::asConstInt(diff);
  if (!c) return std::nullopt;
  return *c;
}

// Every access of the block is contiguous along loop `v`.
bool contiguousAlong(const tir::BlockRealizeNode* realize, const tir::Var& v) {
  tir::VarMap binding;
  const tir::BlockNode* b = realize->block.get();
  for (size_t i = 0; i < b->iterVars.size(); ++i)
    binding[b->iterVars[i].var.get()] = realize->iterValues[i];
  auto ok = [&](const tir::BufferRegion& access) {
    for (size_t d = 0; d < access.region.size(); ++d) {
      std::optional<int64_t> s = strideOf(tir::substitute(access.region[d].min, binding), v);
      const bool last = d + 1 == access.region.size();
      if (!s || (*s != 0 && !(last && *s == 1))) return false;
    }
    return true;
  };
  for (const tir::BufferRegion& r : b->reads)
    if (!ok(r)) return false;
  for (const tir::BufferRegion& w : b->writes)
    if (!ok(w)) return false;
  return true;
}

bool plainLoop(const tir::For& loop) {
  return loop->forKind == tir::ForKind::kSerial && loop->annotations.empty() &&
         tir::asConstInt(loop->extent);
}

void rewriteBlock(tir::Schedule& sch, const tir::BlockRV& block, const Limits& limits) {
  const std::vector<tir::For> loops = rules::loopsOf(sch, block);
  if (loops.empty()) return;
  const std::vector<LoopKind> kinds = rules::loopKinds(sch, block);
  const tir::StmtPath path = sch.impl().blockPath("rewrite-parallel-vectorize-unroll", block);
  const tir::BlockRealizeNode* realize = tir::Schedule::Impl::realizeOf(path);
  const bool reduction = !tir::isCompleteBlock(realize->block.get());
  // The innermost loop, when it can be vectorized.
  const size_t last = loops.size() - 1;
  const bool vectorize = limits.vectorize > 1 && kinds[last] == LoopKind::kSpatial &&
                         plainLoop(loops[last]) && loops[last]->body->as<tir::BlockRealizeNode>() &&
                         contiguousAlong(realize, loops[last]->loopVar);
  // The leading loops to parallelize.
  size_t n = 0;
  int64_t product = 1;
  while (limits.parallel > 0 && n < loops.size() && kinds[n] == LoopKind::kSpatial &&
         plainLoop(loops[n])) {
    product *= *tir::asConstInt(loops[n]->extent);
    ++n;
    if (product > limits.parallel || loops[n - 1]->body->as<tir::SeqStmtNode>()) break;
  }
  std::vector<tir::LoopRV> rvs = sch.getLoops(block);
  if (vectorize && n == loops.size() && loops.size() == 1) {
    // One loop wanted by both: parallel outer lanes, vectorized inner.
    const int64_t extent = *tir::asConstInt(loops[0]->extent);
    int64_t lanes = 1;
    for (int64_t l = 2; l <= limits.vectorize && extent % l == 0; l *= 2) lanes = l;
    if (lanes > 1 && extent / lanes > 1) {
      std::vector<tir::LoopRV> parts = sch.split(rvs[0], {std::monostate{}, lanes});
      sch.parallel(parts[0]);
      sch.vectorize(parts[1]);
      rvs = {parts[0]};
    } else {
      sch.parallel(rvs[0]);
    }
  } else {
    if (vectorize && n == loops.size()) --n;
    const bool doVectorize = vectorize && *tir::asConstInt(loops[last]->extent) <= limits.vectorize;
    if (n > 0 && product > 1) {
      std::vector<tir::LoopRV> lead(rvs.begin(), rvs.begin() + static_cast<long>(n));
      tir::LoopRV fused = n > 1 ? sch.fuse(lead) : lead[0];
      sch.parallel(fused);
      rvs.erase(rvs.begin(), rvs.begin() + static_cast<long>(n));
      rvs.insert(rvs.begin(), fused);
    }
    if (doVectorize) sch.vectorize(rvs.back());
  }
  if (limits.unroll > 0 && reduction) {
    // int64, as a trace read from JSON has them: a record replays to the same program.
    sch.annotate(rvs[0], "pragma_auto_unroll_max_step",
                 AttrValue::integer(limits.unroll, DataType::int64()));
    sch.annotate(rvs[0], "pragma_unroll_explicit", AttrValue::integer(1, DataType::int64()));
  }
}

Applicability apply(tir::Schedule& sch) {
  const tir::PrimFunc func = sch.func();
  const auto* rootRealize = func->body->as<tir::BlockRealizeNode>();
  if (!rootRealize) return Applicability::yes();
  const tir::Annotations ann = rootRealize->block->annotations;  // a copy: sch changes below
  Limits limits;
  bool any = false;
  for (auto [key, slot] : {std::pair{rules::kParallelAnn, &limits.parallel},
                           std::pair{rules::kVectorizeAnn, &limits.vectorize},
                           std::pair{rules::kUnrollExplicitAnn, &limits.unroll}}) {
    if (const AttrValue* v = ann.find(key)) {
      *slot = v->asInt();
      any = true;
    }
  }
  if (!any) return Applicability::yes();
  const std::string rootName = rootRealize->block->name;
  tir::BlockRV root = sch.getBlock(rootName);
  for (const char* key : {rules::kParallelAnn, rules::kVectorizeAnn, rules::kUnrollExplicitAnn})
    if (ann.has(key)) sch.unannotate(root, key);
  for (const tir::BlockRV& block : sch.getChildBlocks(root)) rewriteBlock(sch, block, limits);
  return Applicability::yes();
}

}  // namespace

Postproc rewriteParallelVectorizeUnroll() {
  return {.name = "RewriteParallelVectorizeUnroll", .apply = apply};
}

}  // namespace tessera::tune::postproc
