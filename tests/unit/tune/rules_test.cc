// The schedule rules and PostOrderApply on small kernels: each rule's effect on the trace and the
// IR, checked structurally, and every space's points (the base and fresh samples, postprocessed)
// computing what the unscheduled kernel computes (the reference evaluator on both). Space
// generation is deterministic for a seed.
#include <gtest/gtest.h>

#include "codegen/llvm/target.h"
#include "rule_kernels.h"
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tune/mutator.h"
#include "tune/rules/post_order_apply.h"

namespace tessera::tune {
namespace {

using testing::count;

target::Target oneCore() {
  target::Target t = codegen::hostTarget();
  t.numCores = 1;
  return t;
}

std::string scriptOf(const tir::Trace& trace) {
  return trace.str();
}

// Every space's base point and a few fresh samples replay, postprocess and compute the same
// result as the unscheduled kernel.
void expectSpacesCorrect(const tir::PrimFunc& func, const std::vector<DesignSpace>& spaces) {
  std::mt19937_64 rng(11);
  for (const DesignSpace& space : spaces) {
    for (int i = 0; i < 3; ++i) {
      const Decisions d = i == 0 ? space.base : sampleDecisions(space, rng);
      tir::PrimFunc scheduled = testing::replay(func, space.materialize(d), true);
      SCOPED_TRACE(space.name + "\n" + tir::toScript(scheduled));
      tir::testing::expectSameResults(func, scheduled);
    }
  }
}

TEST(TuneRules, MatmulGetsThreeSSRSRSSpacesWithWriteCaches) {
  const tir::PrimFunc mm = testing::matmul(32, 32, 32);
  std::vector<DesignSpace> spaces = rules::ruleSpaces(mm, oneCore(), 1);
  ASSERT_EQ(spaces.size(), 3u);  // no cache, cache under level 1, under level 2 (TVM's anchor)
  for (size_t s = 0; s < spaces.size(); ++s) {
    const std::string trace = scriptOf(spaces[s].trace);
    SCOPED_TRACE(trace);
    EXPECT_EQ(count(trace, "sample_perfect_tile(loop=l"), 3u);
    EXPECT_EQ(count(trace, ", n=4, max_innermost_factor=64"), 2u);  // i and j: four S tiles
    EXPECT_EQ(count(trace, ", n=2, max_innermost_factor=64"), 1u);  // k: two R tiles
    EXPECT_NE(trace.find("ann_val=\"SSRSRS\""), std::string::npos);
    EXPECT_NE(trace.find("ann_key=\"meta_schedule.parallel\", ann_val=16"), std::string::npos);
    EXPECT_NE(trace.find("ann_key=\"meta_schedule.vectorize\", ann_val=64"), std::string::npos);
    EXPECT_NE(trace.find("candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25]"),
              std::string::npos);
    EXPECT_EQ(count(trace, "cache_write("), s == 0 ? 0u : 1u);
    EXPECT_EQ(count(trace, "reverse_compute_at("), s == 0 ? 0u : 1u);
    // Knobs: three tilings, the unroll step and the parallel limit.
    ASSERT_EQ(spaces[s].knobs.size(), 5u);
    EXPECT_EQ(spaces[s].knobs[3].kind, Knob::Kind::kParallel);
    EXPECT_EQ(spaces[s].knobs[4].kind, Knob::Kind::kCategorical);
    EXPECT_TRUE(spaces[s].postprocess);
  }
  // The tiles are reordered level by level: S0 S1 R0 S2 R1 S3 for (i, j, k).
  const std::string reorder = scriptOf(spaces[0].trace);
  EXPECT_NE(reorder.find("sch.reorder(l8, l16, l9, l17, l22, l10, l18, l23, l11, l19)"),
            std::string::npos)
      << reorder;
  // The level-2 cache is written back under the last S1 loop (j_1).
  tir::PrimFunc cached = testing::replay(mm, spaces[2].trace, false);
  const std::string text = tir::toScript(cached);
  EXPECT_NE(text.find("C_global = T.alloc_buffer((32, 32))"), std::string::npos) << text;
  EXPECT_NE(text.find("with T.block(\"C_global\")"), std::string::npos);
  expectSpacesCorrect(mm, spaces);
}

TEST(TuneRules, AnEpilogueIsTheWriteBackOfTheTiledMatmul) {
  const tir::PrimFunc mm = testing::matmul(32, 32, 32, /*relu=*/true);
  std::vector<DesignSpace> spaces = rules::ruleSpaces(mm, oneCore(), 1);
  ASSERT_EQ(spaces.size(), 3u);
  for (size_t s = 1; s < 3; ++s) {
    const std::string trace = scriptOf(spaces[s].trace);
    EXPECT_EQ(count(trace, "cache_write("), 0u) << trace;  // the ReLU is the write-back
    EXPECT_NE(trace.find("get_consumers(block=b0)"), std::string::npos) << trace;
    EXPECT_EQ(count(trace, "reverse_compute_at("), 1u) << trace;
  }
  expectSpacesCorrect(mm, spaces);
}

TEST(TuneRules, AutoInlineFoldsAnElementwiseChainIntoOneBlock) {
  const tir::PrimFunc chain = testing::elementwiseChain();
  std::vector<tir::Schedule> made =
      rules::postOrderApply(chain, {rules::autoInline()}, rules::RuleContext{}, 0);
  ASSERT_EQ(made.size(), 1u);
  const std::string text = tir::toScript(made[0].func());
  EXPECT_EQ(count(text, "with T.block(") - count(text, "# with T.block("), 1u) << text;
  EXPECT_NE(text.find("T.max((A[v_i0, v_i1] + T.float32(1.0)) * T.float32(2.0)"), std::string::npos)
      << text;
  tir::testing::expectSameResults(chain, made[0].func());
  // The whole default pipeline on it: one space (no reduction: no unroll knob).
  std::vector<DesignSpace> spaces = rules::ruleSpaces(chain, oneCore(), 0);
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces[0].trace.str().find("sample_categorical"), std::string::npos);
  expectSpacesCorrect(chain, spaces);
}

TEST(TuneRules, AutoInlineKeepsAProducerWhoseCopiesWouldPassTheSizeBound) {
  // Each stage reads the previous one twice (at i and at the next row), so inlining all twelve
  // into the last would copy the first stage's value 2^12 times: AutoInline stops inlining where
  // a consumer's value would pass kMaxInlinedValueSize, and the result is unchanged.
  using namespace te;
  const Tensor a = placeholder({16}, DataType::float32(), "A");
  Tensor t = a;
  for (int k = 0; k < 12; ++k) {
    const Tensor prev = t;
    t = compute(
        {16},
        [&](Var i) {
          return prev(i) * tir::floatImm(0.5) +
                 prev(tir::floormod(i + tir::intImm(1), tir::intImm(16)));
        },
        "T" + std::to_string(k));
  }
  const tir::PrimFunc doubling = createPrimFunc({a, t});
  std::vector<tir::Schedule> made =
      rules::postOrderApply(doubling, {rules::autoInline()}, rules::RuleContext{}, 0);
  ASSERT_EQ(made.size(), 1u);
  const std::string text = tir::toScript(made[0].func());
  EXPECT_GT(count(text, "with T.block(") - count(text, "# with T.block("), 1u) << text;
  EXPECT_LT(count(text, "with T.block(") - count(text, "# with T.block("), 12u) << text;
  tir::preOrderVisit(made[0].func()->body, [&](const tir::Stmt& st) {
    if (const auto* store = st->as<tir::BufferStoreNode>()) {
      int64_t nodes = 0;
      tir::postOrderVisitExpr(store->value, [&](const tir::PrimExpr&) { ++nodes; });
      EXPECT_LE(nodes, tir::kMaxInlinedValueSize) << store->buffer->name;
    }
    return true;
  });
  tir::testing::expectSameResults(doubling, made[0].func());
}

TEST(TuneRules, AutoInlineKeepsPaddingAndRandomComputeLocationPlacesIt) {
  const tir::PrimFunc conv = testing::conv2d();
  std::vector<DesignSpace> spaces = rules::ruleSpaces(conv, oneCore(), 2);
  ASSERT_EQ(spaces.size(), 3u);
  for (const DesignSpace& space : spaces) {
    const std::string trace = space.trace.str();
    // pad_temp reads through an if_then_else in a non-spatial function: not inlined (TVM's
    // disallow_if_then_else); it is placed by a sampled compute location instead.
    EXPECT_EQ(trace.find("compute_inline"), std::string::npos) << trace;
    EXPECT_EQ(count(trace, "sample_compute_location(block="), 1u) << trace;
    EXPECT_EQ(count(trace, "sample_perfect_tile("), 7u) << trace;  // 4 S + 3 R loops
    size_t locations = 0;
    for (const Knob& k : space.knobs) {
      if (k.kind != Knob::Kind::kComputeLocation) continue;
      ++locations;
      // inline (the primitive allows it), root, and loops of the convolution
      ASSERT_GE(k.values.size(), 3u);
      EXPECT_EQ(k.values[0], -2);
      EXPECT_EQ(k.values[1], -1);
    }
    EXPECT_EQ(locations, 1u);
  }
  expectSpacesCorrect(conv, spaces);
  // Every compute location of the padding computes the same convolution.
  const DesignSpace& space = spaces[0];
  size_t k = 0;
  while (space.knobs[k].kind != Knob::Kind::kComputeLocation) ++k;
  for (int64_t loc : space.knobs[k].values) {
    Decisions d = space.base;
    d[k] = {loc};
    tir::PrimFunc scheduled = testing::replay(conv, space.materialize(d), true);
    const std::string text = tir::toScript(scheduled);
    SCOPED_TRACE("location " + std::to_string(loc) + "\n" + text);
    tir::testing::expectSameResults(conv, scheduled);
  }
}

TEST(TuneRules, AddRFactorFactorisesAReductionWithLittleParallelism) {
  const tir::PrimFunc sum = testing::rowSum();
  std::vector<DesignSpace> spaces = rules::ruleSpaces(sum, oneCore(), 3);
  // One variant per split loop, then the unchanged reduction.
  ASSERT_EQ(spaces.size(), 3u);
  for (size_t s = 0; s < 2; ++s) {
    const std::string trace = spaces[s].trace.str();
    EXPECT_NE(
        trace.find("sch.rfactor(loop=l" + std::string(s == 0 ? "5" : "6") + ", factor_axis=1)"),
        std::string::npos)
        << trace;
    EXPECT_NE(trace.find("sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64"),
              std::string::npos);
    // The rf-block's compute location is sampled, and the marker annotation removed.
    EXPECT_NE(trace.find("sample_compute_location(block=b"), std::string::npos) << trace;
    EXPECT_NE(trace.find("unannotate(block_or_loop=b10, "
                         "ann_key=\"meta_schedule.random_compute_producer\")"),
              std::string::npos)
        << trace;
    EXPECT_NE(tir::toScript(testing::replay(sum, spaces[s].trace, false)).find("S_rf"),
              std::string::npos);
  }
  EXPECT_EQ(spaces[2].trace.str().find("rfactor"), std::string::npos);
  expectSpacesCorrect(sum, spaces);
  // A matmul with enough spatial parallelism gets no rfactor.
  for (const DesignSpace& s : rules::ruleSpaces(testing::matmul(32, 32, 32), oneCore(), 0))
    EXPECT_EQ(s.trace.str().find("rfactor"), std::string::npos);
}

TEST(TuneRules, SoftmaxSpacesAreCorrect) {
  const tir::PrimFunc softmax = testing::softmax();
  std::vector<DesignSpace> spaces = rules::ruleSpaces(softmax, oneCore(), 4);
  // Two reductions (max, sum of exp), each with two rfactor variants or none.
  EXPECT_EQ(spaces.size(), 9u);
  expectSpacesCorrect(softmax, spaces);
}

TEST(TuneRules, SpaceGenerationIsDeterministicForASeed) {
  auto jsons = [](int64_t seed) {
    std::vector<std::string> out;
    for (const DesignSpace& s : rules::ruleSpaces(testing::conv2d(), oneCore(), seed))
      out.push_back(s.trace.toJson());
    return out;
  };
  EXPECT_EQ(jsons(5), jsons(5));
  EXPECT_NE(jsons(5), jsons(6));  // the sampled decisions differ
  // The parallel limit follows the target's cores.
  target::Target two = oneCore();
  two.numCores = 2;
  const std::string trace = rules::ruleSpaces(testing::matmul(16, 16, 16), two, 0)[0].trace.str();
  EXPECT_NE(trace.find("ann_key=\"meta_schedule.parallel\", ann_val=32"), std::string::npos);
}

TEST(TuneRules, DuplicateBlockNamesAreAClearError) {
  tir::PrimFunc mm = tir::testing::matmul(8, 8, 8);
  // Two blocks named "C": a copy of the function body in sequence.
  auto twice = std::make_shared<tir::BlockNode>(*mm->body->as<tir::BlockRealizeNode>()->block);
  const tir::Stmt inner = twice->body;
  twice->body = tir::seq({inner, inner});
  tir::PrimFunc dup = tir::makePrimFunc("main", mm->paramBuffers(),
                                        tir::blockRealize({}, tir::boolImm(true), twice));
  try {
    rules::ruleSpaces(dup, oneCore());
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "two blocks are named 'C': post-order-apply needs unique block names");
  }
}

}  // namespace
}  // namespace tessera::tune
