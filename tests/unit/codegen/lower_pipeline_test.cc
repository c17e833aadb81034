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
  PrimFunc lowered = transform::lower(func);
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

}  // namespace
}  // namespace tessera::codegen::test
