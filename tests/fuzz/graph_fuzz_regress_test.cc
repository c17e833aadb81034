// Regression tests for the graph fuzzer's findings, one per finding, named after it.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "graph_check.h"
#include "graph_gen.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::fuzz {
namespace {

// `text` parsed, its constants (written without data) given seeded random data.
relay::IRModule parseWithConstants(const std::string& text, uint64_t seed = 1) {
  const relay::IRModule parsed = relay::parseModule(text, "<regression>");
  relay::IRModule out;
  for (const auto& [name, fn] : parsed.functions()) {
    const relay::Expr rewritten = relay::rewriteBottomUp(
        fn, [&](const relay::Expr& node, const std::vector<relay::Expr>& children) {
          const auto* c = node->as<relay::ConstantNode>();
          if (!c || c->hasData()) return relay::withChildren(node, children);
          const auto* t = c->declaredType->as<TensorTypeNode>();
          return relay::Expr(relay::makeConstant(
              test::uniformTensor(*staticShape(t->shape), t->dtype, seed++, -1, 1), c->span));
        });
    out.add(name, relay::exprAs<relay::FunctionNode>(rewritten));
  }
  return relay::inferTypes(out);
}

// Every stage of the graph fuzzer's check passes on `text`.
void expectNoFinding(const std::string& text) {
  const std::optional<Finding> f = checkGraph(parseWithConstants(text), 7, {.plainBuild = true});
  EXPECT_FALSE(f) << f->str();
}

// Seeds 55, 95, 141: nn.dense of rank-1 data type-checks (dense_c1) but build() refused it: the
// x86 strategy packed its weight for a kernel that needs rank-2 data, and the generic kernel did
// not take rank 1 either.
TEST(GraphFuzzRegression, DenseOfRank1Data) {
  expectNoFinding(R"(
def @main(%x: Tensor[(3), float32], %w: Tensor[(5, 3), float32]) {
  (nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(16, 3), float32] */),
   nn.dense(%x, meta[relay.Constant][1] /* ty=Tensor[(6, 3), float32] */, units=6),
   nn.dense(%x, %w))
}
)");
}

// Seed 115: FoldScaleAxis took dense's channel axis to be axis 1 whatever the data's rank, so on
// 3-D data a scale along axis 1 (here layer_norm's gamma, after SimplifyInference, and plain
// multiplies) was folded into the weight's input axis (forward) or output axis (backward).
TEST(GraphFuzzRegression, FoldScaleAxisDenseOf3DData) {
  expectNoFinding(R"(
def @main(%p2: Tensor[(1, 4), float32], %p3: Tensor[(2), float32]) {
  %0 = reshape(%p2, newshape=[1, 2, 2]);
  %1 = nn.layer_norm(%0, %p3, meta[relay.Constant][0] /* ty=Tensor[(2), float32] */, axis=1);
  nn.dense(%1, meta[relay.Constant][1] /* ty=Tensor[(5, 2), float32] */, units=None)
}
)");
  expectNoFinding(R"(
def @main(%x: Tensor[(2, 3, 4), float32]) {
  %0 = multiply(%x, meta[relay.Constant][0] /* ty=Tensor[(3, 1), float32] */);
  %1 = nn.dense(%0, meta[relay.Constant][1] /* ty=Tensor[(5, 4), float32] */);
  %2 = nn.dense(%x, meta[relay.Constant][2] /* ty=Tensor[(3, 4), float32] */);
  (%1, multiply(%2, meta[relay.Constant][3] /* ty=Tensor[(3, 1), float32] */))
}
)");
}

// Seed 536: mean of a rank-0 tensor (a reduction over no axes) gave NaN when compiled: its
// reduction block has an init but no reduce iter var, so compute_inline took it for a complete
// block and inlined the update `red = red + x` without the init, reading uninitialized memory.
TEST(GraphFuzzRegression, MeanOfRank0Tensor) {
  expectNoFinding(R"(
def @main(%x: float32, %y: Tensor[(3), float32]) {
  (mean(%x), mean(%x, keepdims=True), sum(%x), prod(%x), max(%y, axis=[]), mean(%y, axis=[]))
}
)");
}

// Seed 2316: nn.softmax along a middle axis (axis=2 of (2, 2, 6, 3)) was wrong when build()
// compiled the plain loop nests (BuildOptions::defaultSchedules = false): outputs 54, 57, 60 and
// 63 ((1, 1, 0..3, 0)) were divided by another column's sum or by poison. The TensorIR was right
// after every lowering pass (tir::evaluate), and so was the LLVM IR before optimization: LLVM 19's
// SLP vectorizer built wrong shuffles for the fully unrolled nests, so the O3 pipeline runs without
// it (codegen/llvm/llvm_backend.cc; CodegenLowered.MiddleAxisReductionsOfUnrolledLoops).
TEST(GraphFuzzRegression, SoftmaxMiddleAxisPlainLoops) {
  const std::optional<Finding> f =
      checkGraph(parseWithConstants("def @main(%y: Tensor[(2, 2, 6, 3), float32]) {\n"
                                    "  nn.softmax(%y, axis=2)\n}\n"),
                 3, {.passes = false, .build = false, .plainBuild = true});
  EXPECT_FALSE(f) << f->str();
}

// Found by the libFuzzer target (out of memory after three minutes): ten chained reflect pads
// fuse into one kernel, and the reflected index read its input five times, so the inlined index
// grew as 5^10. topi::padMode now reflects with (n-1) - |(n-1) - |t||, reading `t` once.
TEST(GraphFuzzRegression, ChainedReflectPadsInlineLinearly) {
  std::string text =
      "def @main(%p0: Tensor[(3), int32]) {\n  %0 = nn.pad(%p0, -1, pad_width=[[2, 2]], "
      "pad_mode=\"reflect\");\n";
  for (int k = 1; k < 10; ++k)
    text += "  %" + std::to_string(k) + " = nn.pad(%" + std::to_string(k - 1) +
            ", -1, pad_width=[[2, 2]], pad_mode=\"reflect\");\n";
  text += "  %9\n}\n";
  expectNoFinding(text);
}

// Found 2026-11-30 by the `?`-extent stage, seed 447 with each input's leading extent `?`: after
// SimplifyInference a `?` broadcast against a constant 2 made the slice's input static while its
// type kept `?` for the sliced axis; the compute copied the input's extent (2) for that axis
// instead of the slice's length (1), and the VM's call failed "T_strided_slice.shape[0] has an
// unsatisfied constraint". By seed, so a generator change moves it; BuildDynamicFusion.* has the
// module itself.
TEST(GraphFuzzRegression, Seed447SizeModeSliceOfALeadingUnknown) {
  CheckOptions options;
  options.dynamic = true;
  const std::optional<Finding> f = checkSeed(447, options);
  EXPECT_FALSE(f) << f->str();
}

}  // namespace
}  // namespace tessera::fuzz
