// Weights and memory in build(): a weight handed over (the module moved in, nothing else sharing
// its memory) is packed in its own memory; one the caller still shares is copied and left intact.
// Either way the compiled module computes what the interpreter does.
#include <gtest/gtest.h>

#include "build_test_util.h"
#include "relay/transform/passes.h"
#include "topi/nn.h"

namespace tessera::driver::test {
namespace {

// A conv (packed OIHW -> OIHW{ob}o) and a dense (packed (N, K) -> (N/nr, K, nr)) over constant
// weights (bound from seeded random values).
relay::IRModule convDense(uint64_t seed) {
  const relay::IRModule m = parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w: Tensor[(32, 8, 1, 1), float32], %d: Tensor[(64, 1152), float32]) {
  %0 = nn.conv2d(%x, %w, channels=32, kernel_size=[1, 1]);
  %1 = nn.relu(%0);
  %2 = reshape(%1, newshape=[1, 1152]);
  nn.dense(%2, %d, units=64)
})");
  std::map<std::string, NDArray> weights = {
      {"w", tessera::test::randomTensor({32, 8, 1, 1}, DataType::float32(), seed, -1, 1)},
      {"d", tessera::test::randomTensor({64, 1152}, DataType::float32(), seed + 1, -1, 1)}};
  return relay::inferTypes(relay::bindParams(m, weights));
}

// Every constant's data as a fresh copy, so the module is the only owner of its weights.
relay::IRModule withOwnCopies(const relay::IRModule& module) {
  relay::IRModule out;
  for (const auto& [name, fn] : module.functions()) {
    relay::Expr rewritten = relay::rewriteBottomUp(
        fn, [&](const relay::Expr& node, const std::vector<relay::Expr>& children) {
          const auto* c = node->as<relay::ConstantNode>();
          if (!c) return relay::withChildren(node, children);
          return relay::Expr(relay::makeConstant(c->data.copy(), c->span));
        });
    out.add(name, relay::exprAs<relay::FunctionNode>(rewritten));
  }
  return relay::inferTypes(out);
}

std::vector<const void*> constantBuffers(const relay::IRModule& module) {
  std::vector<const void*> out;
  relay::postOrderVisit(module.main(), [&](const relay::Expr& e) {
    if (const auto* c = e->as<relay::ConstantNode>(); c && c->hasData())
      out.push_back(c->data.data());
  });
  return out;
}

std::vector<NDArray> run(const Built& built, const NDArray& x) {
  GraphExecutor executor(built.model());
  executor.setInput("x", x);
  executor.run();
  return {executor.getOutput(0)};
}

TEST(BuildWeightMemory, HandedOverWeightsArePackedInTheirOwnMemory) {
  const relay::IRModule reference = convDense(7);
  const NDArray x = tessera::test::randomTensor({1, 8, 6, 6}, DataType::float32(), 3, -1, 1);
  const std::vector<NDArray> expected =
      flatten(relay::Interpreter(reference).run({relay::Value(x)}));

  relay::IRModule owned = withOwnCopies(reference);
  const std::vector<const void*> buffers = constantBuffers(owned);
  ASSERT_EQ(buffers.size(), 2u);
  const Built built = build(std::move(owned), codegen::hostTarget());
  // Both packed weights live where the module's weights were: nothing was copied.
  int reused = 0;
  for (const auto& [name, param] : built.params)
    for (const void* b : buffers) reused += param.data() == b && param.ndim() > 2;
  EXPECT_EQ(reused, 2);
  EXPECT_TRUE(tessera::test::allClose(run(built, x)[0], expected[0], 1e-4, 1e-5));
}

TEST(BuildWeightMemory, SharedWeightsAreCopiedAndLeftIntact) {
  const relay::IRModule module = convDense(8);
  const relay::IRModule snapshot = withOwnCopies(module);
  const Built built = build(module, codegen::hostTarget());
  // The caller's module still holds the unpacked weights, bit for bit.
  std::vector<NDArray> mine, before;
  relay::postOrderVisit(module.main(), [&](const relay::Expr& e) {
    if (const auto* c = e->as<relay::ConstantNode>()) mine.push_back(c->data);
  });
  relay::postOrderVisit(snapshot.main(), [&](const relay::Expr& e) {
    if (const auto* c = e->as<relay::ConstantNode>()) before.push_back(c->data);
  });
  ASSERT_EQ(mine.size(), before.size());
  for (size_t i = 0; i < mine.size(); ++i) EXPECT_TRUE(mine[i].bitwiseEqual(before[i]));
  EXPECT_TRUE(matchesInterpreter(module, 9));
}

TEST(BuildWeightMemory, InPlacePackingEqualsCopyingPacking) {
  for (int64_t block : {8, 16}) {
    const NDArray dense = tessera::test::randomTensor({32, 40}, DataType::float32(), 1, -1, 1);
    const NDArray conv = tessera::test::randomTensor({32, 5, 3, 3}, DataType::float32(), 2, -1, 1);
    const NDArray packedDense = topi::packDenseWeight(dense, block);
    const NDArray packedConv = topi::packConv2dWeight(conv, block);
    EXPECT_TRUE(topi::packDenseWeightInPlace(dense.copy(), block).bitwiseEqual(packedDense));
    EXPECT_TRUE(topi::packConv2dWeightInPlace(conv.copy(), block).bitwiseEqual(packedConv));
  }
  // Only the sole owner may be rewritten.
  const NDArray shared = tessera::test::randomTensor({16, 4}, DataType::float32(), 3, -1, 1);
  const NDArray alias = shared;
  EXPECT_FALSE(shared.soleOwner());
  EXPECT_THROW((void)topi::packDenseWeightInPlace(shared, 8), std::exception);
}

}  // namespace
}  // namespace tessera::driver::test
