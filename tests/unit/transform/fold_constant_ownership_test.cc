// FoldConstant on a module handed over by value frees each weight it replaces as it goes
// (rewriteBottomUpOwned), and never a weight that the result or anyone else still uses. A probe
// NDArray sharing the weight's memory tells: it is the sole owner once the constant let go.
#include <functional>

#include <gtest/gtest.h>

#include "relay/builder.h"
#include "relay/transform/pass.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

NDArray weight() {
  return test::randomTensor({4, 3}, DataType::float32(), 7);
}

// add(%x, multiply(w, 2f)): the multiply folds into a new constant.
IRModule scaledWeight(const NDArray& w) {
  return IRModule::fromExpr(function(add(var("x", {4, 3}), multiply(constant(w), scalar(2)))));
}

IRModule foldHandedOver(IRModule module) {
  PassContext ctx;
  return (*foldConstantPass())(std::move(module), ctx);
}

// FoldConstant, then a pass that records whether `probe` alone holds its memory: the module the
// fold was given is gone by then only if the Sequential handed it on.
IRModule foldAndProbe(IRModule module, const NDArray& probe, bool* soleOwnerAfterFold) {
  Pass probePass = makeModulePass(PassInfo{"Probe", 0, {}}, [&](IRModule m, PassContext&) {
    *soleOwnerAfterFold = probe.soleOwner();
    return m;
  });
  PassContext ctx;
  return (*sequential({inferTypePass(), foldConstantPass(), probePass}))(std::move(module), ctx);
}

// The module `make` builds around a weight, folded when handed over: the weight must survive
// (the result still uses it) and the result must compute what the module did.
void expectWeightKept(const std::function<IRModule(const NDArray&)>& make) {
  const NDArray w = weight();
  const IRModule reference = make(w.copy());
  const IRModule after = foldHandedOver(make(w));
  EXPECT_FALSE(w.soleOwner());
  EXPECT_TRUE(test::sameBehaviour(reference, after));
}

TEST(FoldConstantOwnership, ReplacedWeightIsFreedWhileTheRewriteRuns) {
  // rewriteBottomUpOwned itself: by the time the root is rebuilt, the constant below the folded
  // call has let go of its memory.
  const NDArray w = weight();
  Expr scaled = multiply(constant(w), scalar(2));
  Expr root = add(var("x", {4, 3}), scaled);
  const ExprNode* rootNode = root.get();
  const ExprNode* scaledNode = scaled.get();
  scaled = nullptr;
  bool freedBeforeRoot = false;
  Expr result = rewriteBottomUpOwned(
      std::move(root),
      [&](const Expr& node, const std::vector<Expr>& children) -> Expr {
        if (node.get() == rootNode) freedBeforeRoot = w.soleOwner();
        if (node.get() == scaledNode)  // stands for a fold: a new constant
          return constant(test::randomTensor({4, 3}, DataType::float32(), 9));
        return withChildren(node, children);
      },
      [](const ConstantNode& c) { c.releaseData(); });
  EXPECT_TRUE(freedBeforeRoot);
  ASSERT_TRUE(result);
}

TEST(FoldConstantOwnership, HandedOverModuleFreesTheWeightsItReplaces) {
  const NDArray w = weight();
  const IRModule reference = scaledWeight(w.copy());
  bool soleOwner = false;
  const IRModule after = foldAndProbe(scaledWeight(w), w, &soleOwner);
  EXPECT_TRUE(soleOwner);
  EXPECT_TRUE(test::sameBehaviour(reference, after));
}

TEST(FoldConstantOwnership, KeptModuleKeepsItsWeights) {
  const NDArray w = weight();
  const IRModule module = scaledWeight(w);
  PassContext ctx;
  const IRModule after = (*foldConstantPass())(module, ctx);
  EXPECT_FALSE(w.soleOwner());
  EXPECT_TRUE(test::sameBehaviour(module, after));  // the caller's module still runs
}

TEST(FoldConstantOwnership, WeightAlsoUsedUnfoldedIsKept) {
  // add(%x, w) is kept as it was, so the result still reaches w through the old node.
  auto make = [](const NDArray& w) {
    Var x = var("x", {4, 3});
    return IRModule::fromExpr(function(add(add(x, constant(w)), multiply(constant(w), scalar(2)))));
  };
  expectWeightKept(make);
}

TEST(FoldConstantOwnership, SharedWeightNodeUsedByAKeptCallIsKept) {
  // One constant node with two parents: one folds, the other is kept.
  auto make = [](const NDArray& w) {
    Var x = var("x", {4, 3});
    Expr c = constant(w);
    return IRModule::fromExpr(function(add(add(x, c), multiply(c, scalar(2)))));
  };
  expectWeightKept(make);
}

TEST(FoldConstantOwnership, WeightReachedThroughAFoldedProjectionIsKept) {
  // (w, 1f + 2f, %x).0 folds to w itself: the rebuilt tuple and the result hold it.
  auto make = [](const NDArray& w) {
    Var x = var("x", {4, 3});
    Expr t = tuple({constant(w), add(scalar(1), scalar(2)), x});
    return IRModule::fromExpr(function(add(tupleGetItem(t, 0), x)));
  };
  expectWeightKept(make);
}

TEST(FoldConstantOwnership, ChainsFoldWithEveryWeightFreed) {
  // Two weights through a chain of folds (each intermediate result also dies early).
  auto make = [](const NDArray& a, const NDArray& b) {
    Expr folded = multiply(add(constant(a), constant(b)), scalar(3));
    return IRModule::fromExpr(function(add(var("x", {4, 3}), negative(folded))));
  };
  const NDArray a = weight(), b = test::randomTensor({4, 3}, DataType::float32(), 8);
  const IRModule reference = make(a.copy(), b.copy());
  bool soleOwner = false;
  const IRModule after = foldAndProbe(make(a, b), a, &soleOwner);
  EXPECT_TRUE(soleOwner);
  EXPECT_TRUE(test::sameBehaviour(reference, after));
}

}  // namespace
}  // namespace tessera::relay
