// The mutators on rule-made spaces: MutateTileSize keeps perfect tilings, MutateComputeLocation
// picks another valid location (found by replaying up to it), MutateParallel a limit with
// another parallel plan, MutateUnroll another step; every mutated point replays, postprocesses
// and computes what the unscheduled kernel computes.
#include <gtest/gtest.h>

#include "codegen/llvm/target.h"
#include "rule_kernels.h"
#include "tune/mutator.h"
#include "tune/rules/post_order_apply.h"

namespace tessera::tune {
namespace {

target::Target oneCore() {
  target::Target t = codegen::hostTarget();
  t.numCores = 1;
  return t;
}

size_t knobOf(const DesignSpace& space, Knob::Kind kind) {
  for (size_t k = 0; k < space.knobs.size(); ++k)
    if (space.knobs[k].kind == kind) return k;
  ADD_FAILURE() << "no knob of that kind";
  return 0;
}

TEST(TuneMutator, ComputeLocationMovesToAnotherValidLocation) {
  const tir::PrimFunc conv = testing::conv2d();
  const DesignSpace space = rules::ruleSpaces(conv, oneCore(), 2)[1];
  const size_t k = knobOf(space, Knob::Kind::kComputeLocation);
  std::mt19937_64 rng(4);
  std::set<int64_t> seen;
  Decisions d = space.base;
  for (int i = 0; i < 12; ++i) {
    std::optional<Decision> m = mutateComputeLocation(space, d, k, rng);
    ASSERT_TRUE(m);
    EXPECT_NE((*m)[0], d[k][0]);
    const std::optional<std::vector<int64_t>> valid =
        computeLocationsAt(conv, space.materialize(d), space.knobs[k].inst);
    ASSERT_TRUE(valid);
    EXPECT_NE(std::find(valid->begin(), valid->end(), (*m)[0]), valid->end());
    d[k] = *m;
    seen.insert((*m)[0]);
  }
  EXPECT_GE(seen.size(), 2u);
  tir::PrimFunc scheduled = testing::replay(conv, space.materialize(d), true);
  tir::testing::expectSameResults(conv, scheduled);
}

TEST(TuneMutator, ParallelPicksALimitWithAnotherPlan) {
  const tir::PrimFunc mm = testing::matmul(32, 32, 32);
  DesignSpace space = rules::ruleSpaces(mm, oneCore(), 0)[0];
  space.base[0] = {2, 4, 1, 4};  // i: S0 2, S1 4
  space.base[1] = {2, 2, 2, 4};  // j: S0 2, S1 2
  const size_t k = knobOf(space, Knob::Kind::kParallel);
  EXPECT_EQ(space.base[k], Decision{16});
  auto parallelLoop = [&](const Decisions& d) {
    const std::string text = tir::toScript(testing::replay(mm, space.materialize(d), true));
    const size_t at = text.find("in T.parallel(");
    EXPECT_NE(at, std::string::npos) << text;
    return text.substr(0, at).substr(text.rfind("for ", at));
  };
  // 16: i_0 (2) x j_0 (2) x i_1 (4) = 16, then j_1 makes 32 > 16: four loops.
  EXPECT_EQ(parallelLoop(space.base), "for i_0_j_0_i_1_j_1_fused ");
  std::mt19937_64 rng(1);
  std::set<int64_t> limits;
  for (int i = 0; i < 20; ++i) {
    std::optional<Decision> m = mutateParallel(space, space.base, k, rng);
    ASSERT_TRUE(m);
    limits.insert((*m)[0]);
    Decisions d = space.base;
    d[k] = *m;
    EXPECT_NE(parallelLoop(d), "for i_0_j_0_i_1_j_1_fused ");
    tir::testing::expectSameResults(mm, testing::replay(mm, space.materialize(d), true));
  }
  // Limits 1, 2 and 4 fuse one, two and three loops.
  EXPECT_EQ(limits, (std::set<int64_t>{1, 2, 4}));
}

TEST(TuneMutator, EveryMutationOfARuleSpaceReplaysAndComputesTheSameResult) {
  const tir::PrimFunc mm = testing::matmul(16, 16, 16, /*relu=*/true);
  std::mt19937_64 rng(8);
  for (const DesignSpace& space : rules::ruleSpaces(mm, oneCore(), 3)) {
    Decisions d = space.base;
    std::map<Knob::Kind, int> changed;
    for (int i = 0; i < 40; ++i) {
      std::optional<Decisions> m = mutate(space, d, rng);
      ASSERT_TRUE(m);
      for (size_t k = 0; k < d.size(); ++k)
        if ((*m)[k] != d[k]) ++changed[space.knobs[k].kind];
      d = *m;
      for (size_t k = 0; k < space.knobs.size(); ++k) {
        if (space.knobs[k].kind != Knob::Kind::kTile) continue;
        int64_t product = 1;
        for (int64_t f : d[k]) product *= f;
        EXPECT_EQ(product, space.knobs[k].extent);
        EXPECT_LE(d[k].back(), 64);
      }
      if (i % 8 == 0)
        tir::testing::expectSameResults(mm, testing::replay(mm, space.materialize(d), true));
    }
    // MutateTileSize (0.90) dominates.
    EXPECT_GT(changed[Knob::Kind::kTile], 30);
  }
}

TEST(TuneMutator, UnrollDrawsAnotherStep) {
  const DesignSpace space = rules::ruleSpaces(testing::matmul(16, 16, 16), oneCore(), 0)[0];
  const size_t k = knobOf(space, Knob::Kind::kCategorical);
  EXPECT_EQ(space.knobs[k].choices, 4);
  // Only the unroll knob can change: a space of it alone.
  DesignSpace only = space;
  only.knobs = {space.knobs[k]};
  only.base = {space.base[k]};
  std::mt19937_64 rng(2);
  std::set<int64_t> seen;
  for (int i = 0; i < 40; ++i) {
    std::optional<Decisions> m = mutate(only, only.base, rng);
    ASSERT_TRUE(m);
    EXPECT_NE((*m)[0], only.base[0]);
    seen.insert((*m)[0][0]);
  }
  EXPECT_EQ(seen.size(), 3u);
}

}  // namespace
}  // namespace tessera::tune
