// Lowering what users actually produce: TOPI computes turned into PrimFuncs by createPrimFunc
// (padding with if_then_else, several reductions, int64 index types for Relax's emit_te), checked
// against tir::evaluate on the unlowered function.
#include <gtest/gtest.h>

#include "te/create_prim_func.h"
#include "tir/functor.h"
#include "tir/transform/lower.h"
#include "topi/nn.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

::testing::AssertionResult lowersFaithfully(const PrimFunc& f) {
  PrimFunc g = tf::lower(f);
  bool flat = true;
  preOrderVisit(g->body, [&](const Stmt& s) {
    flat = flat && s->kind != StmtKind::kBlock && s->kind != StmtKind::kBlockRealize;
    return true;
  });
  if (!flat) return ::testing::AssertionFailure() << "blocks remain:\n" << script(g);
  return sameResults(f, g);
}

TEST(LowerTe, PaddedConv2dOddSizes) {
  te::Tensor data = te::placeholder({1, 3, 7, 9}, DataType::float32(), "data");
  te::Tensor weight = te::placeholder({4, 3, 3, 3}, DataType::float32(), "weight");
  te::Tensor out = topi::conv2dNchw(data, weight, {.strides = {2, 1}, .padding = {1, 1, 1, 1}});
  EXPECT_TRUE(lowersFaithfully(te::createPrimFunc({data, weight, out})));
}

TEST(LowerTe, SoftmaxAndPooling) {
  te::Tensor x = te::placeholder({3, 11}, DataType::float32(), "x");
  EXPECT_TRUE(lowersFaithfully(te::createPrimFunc({x, topi::softmax(x, 1)})));
  te::Tensor img = te::placeholder({1, 2, 7, 7}, DataType::float32(), "img");
  te::Tensor pooled =
      topi::maxPool2d(img, {.poolSize = {3, 3}, .strides = {2, 2}, .padding = {1, 1, 1, 1}});
  EXPECT_TRUE(lowersFaithfully(te::createPrimFunc({img, pooled})));
}

TEST(LowerTe, Int64IndicesAreNarrowed) {
  te::Tensor a = te::placeholder({5, 6}, DataType::float32(), "A");
  te::Tensor w = te::placeholder({4, 6}, DataType::float32(), "W");
  te::Tensor y = topi::dense(a, w);
  PrimFunc f = te::createPrimFunc({a, w, y}, DataType::int64());
  EXPECT_TRUE(lowersFaithfully(f));
  PrimFunc g = tf::lower(f);
  bool wideLoop = false;
  preOrderVisit(g->body, [&](const Stmt& s) {
    if (const auto* loop = s->as<ForNode>())
      wideLoop = wideLoop || loop->loopVar->dtype.bits() == 64;
    return true;
  });
  EXPECT_FALSE(wideLoop) << script(g);
  // Flat views get narrow shapes; the parameters keep the int64 shapes of the ABI.
  EXPECT_NE(script(g).find("A_1 = T.Buffer((30,), data=A.data)"), std::string::npos) << script(g);
  EXPECT_EQ(g->paramBuffers()[0]->shape[0]->dtype, DataType::int64());
}

}  // namespace
}  // namespace tessera::test
