// End to end: TE compute -> create_prim_func -> tir lower() -> LLVM, against tir::evaluate on the
// unlowered function.
#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "tir/transform/lower.h"

namespace tessera::codegen::test {
namespace {

using tessera::test::randomTensor;

void expectSameAsEvaluator(const PrimFunc& func, const std::vector<NDArray>& args) {
  PrimFunc lowered = tir::transform::lower(func);
  std::vector<NDArray> expected = deepCopy(args);
  std::vector<NDArray> actual = deepCopy(args);
  evaluate(func, expected);
  compileOne(lowered).call(symbolOf(lowered), actual);
  for (size_t i = 0; i < args.size(); ++i) {
    EXPECT_TRUE(tessera::test::allClose(actual[i], expected[i], 1e-5, 1e-5)) << "argument " << i;
  }
}

TEST(CodegenLowered, MatmulRelu) {
  te::Tensor a = te::placeholder({13, 21}, DataType::float32(), "A");
  te::Tensor b = te::placeholder({21, 9}, DataType::float32(), "B");
  IterVar k = te::reduceAxis(0, 21, "k");
  te::Tensor c = te::compute(
      {13, 9}, [&](Var i, Var j) { return te::sum(a(i, k.var) * b(k.var, j), {k}); }, "matmul");
  te::Tensor d =
      te::compute({13, 9}, [&](Var i, Var j) { return max(c(i, j), floatImm(0)); }, "relu");
  expectSameAsEvaluator(te::createPrimFunc({a, b, d}),
                        {randomTensor({13, 21}, DataType::float32(), 1),
                         randomTensor({21, 9}, DataType::float32(), 2),
                         NDArray::empty({13, 9}, DataType::float32())});
}

TEST(CodegenLowered, ExpAndIntegerIndexing) {
  te::Tensor a = te::placeholder({6, 10}, DataType::float32(), "A");
  te::Tensor e = te::compute(
      {6, 10},
      [&](Var i, Var j) {
        PrimExpr shifted =
            a(floormod(PrimExpr(i) + 5, intImm(6)), floordiv(PrimExpr(j) * 3, intImm(3)));
        return call(DataType::float32(), "tir.exp", {shifted});
      },
      "e");
  expectSameAsEvaluator(te::createPrimFunc({a, e}), {randomTensor({6, 10}, DataType::float32(), 3),
                                                     NDArray::empty({6, 10}, DataType::float32())});
}

// Softmax along axis 2 of (2, 2, 6, 3) as plain loop nests (graph fuzzer seed 2316): LLVM fully
// unrolls the four nests, and LLVM 19's SLP vectorizer then built wrong shuffles for the divisors
// of the last nest (sums gathered with repeated lanes), so four outputs were divided by the sum
// of a neighbouring column or by poison. The lowered TIR and the unoptimized LLVM IR are right;
// the O3 pipeline runs without the SLP vectorizer since (codegen/llvm/llvm_backend.cc).
TEST(CodegenLowered, MiddleAxisReductionsOfUnrolledLoops) {
  te::Tensor x = te::placeholder({2, 2, 6, 3}, DataType::float32(), "x");
  IterVar k = te::reduceAxis(0, 6, "k");
  te::Tensor m = te::compute(
      {2, 2, 3}, [&](Var a, Var b, Var c) { return te::max(x(a, b, k.var, c), {k}); }, "m");
  te::Tensor e = te::compute(
      {2, 2, 6, 3},
      [&](Var a, Var b, Var i, Var c) {
        return call(DataType::float32(), "tir.exp", {x(a, b, i, c) - m(a, b, c)});
      },
      "e");
  IterVar k2 = te::reduceAxis(0, 6, "k2");
  te::Tensor s = te::compute(
      {2, 2, 3}, [&](Var a, Var b, Var c) { return te::sum(e(a, b, k2.var, c), {k2}); }, "s");
  te::Tensor y = te::compute(
      {2, 2, 6, 3}, [&](Var a, Var b, Var i, Var c) { return truncdiv(e(a, b, i, c), s(a, b, c)); },
      "y");
  for (uint64_t seed : {1, 2, 3}) {
    expectSameAsEvaluator(te::createPrimFunc({x, y}),
                          {randomTensor({2, 2, 6, 3}, DataType::float32(), seed),
                           NDArray::empty({2, 2, 6, 3}, DataType::float32())});
  }
}

}  // namespace
}  // namespace tessera::codegen::test
