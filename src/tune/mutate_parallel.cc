// MutateParallel (TVM's, max_jobs_per_core 16, probability 0.02) for rule-made spaces: the
// trace is replayed without postprocessing; for each block under the root, the products of its
// leading spatial loops say which limits make RewriteParallelVectorizeUnroll fuse 1, 2, ...
// loops; a limit (at most the rule's 16 x num-cores) whose plan differs is drawn uniformly.
#include <set>

#include "support/diagnostic.h"
#include "tune/mutator.h"
#include "tune/rules/rule_analysis.h"

namespace tessera::tune {

namespace {

// The prefix products of each root child block's leading spatial loops (P_1, P_2, ...).
std::vector<std::vector<int64_t>> leadingProducts(tir::Schedule& sch) {
  std::vector<std::vector<int64_t>> out;
  const tir::PrimFunc func = sch.func();
  const auto* root = func->body->as<tir::BlockRealizeNode>();
  if (!root) return out;
  tir::BlockRV rootRV = sch.getBlock(root->block->name);
  for (const tir::BlockRV& block : sch.getChildBlocks(rootRV)) {
    const std::vector<tir::For> loops = rules::loopsOf(sch, block);
    const std::vector<rules::LoopKind> kinds = rules::loopKinds(sch, block);
    std::vector<int64_t> products;
    int64_t p = 1;
    for (size_t i = 0; i < loops.size() && kinds[i] == rules::LoopKind::kSpatial; ++i) {
      std::optional<int64_t> e = rules::constExtent(loops[i]);
      if (!e) break;
      products.push_back(p *= *e);
    }
    out.push_back(std::move(products));
  }
  return out;
}

// How many loops of each block the postprocessor fuses under `limit`.
std::vector<size_t> plan(const std::vector<std::vector<int64_t>>& products, int64_t limit) {
  std::vector<size_t> out;
  for (const std::vector<int64_t>& p : products) {
    size_t n = 0;
    while (n < p.size() && (n == 0 || p[n - 1] <= limit)) ++n;
    out.push_back(n);
  }
  return out;
}

}  // namespace

std::optional<Decision> mutateParallel(const DesignSpace& space, const Decisions& decisions,
                                       size_t k, std::mt19937_64& rng) {
  const Knob& knob = space.knobs.at(k);
  if (knob.kind != Knob::Kind::kParallel || !space.func) return std::nullopt;
  tir::Schedule sch(space.func, 0);
  try {
    tir::applyTrace(sch, space.materialize(decisions), {}, /*removePostproc=*/true);
  } catch (const DiagnosticError&) {
    return std::nullopt;
  }
  const std::vector<std::vector<int64_t>> products = leadingProducts(sch);
  const std::vector<size_t> current = plan(products, decisions[k][0]);
  std::set<int64_t> limits{1};
  for (const std::vector<int64_t>& p : products)
    for (int64_t v : p)
      if (v <= knob.extent) limits.insert(v);
  std::vector<int64_t> others;
  std::set<std::vector<size_t>> plans{current};
  for (int64_t v : limits)
    if (plans.insert(plan(products, v)).second) others.push_back(v);
  if (others.empty()) return std::nullopt;
  return Decision{others[std::uniform_int_distribution<size_t>(0, others.size() - 1)(rng)]};
}

}  // namespace tessera::tune
