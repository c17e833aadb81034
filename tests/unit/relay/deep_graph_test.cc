// Inputs control graph depth, so every traversal must be iterative: a 100,000-node chain goes
// through construction, inference, equality, hashing, printing, parsing, evaluation and destruction
// (run under ASan in CI, where recursion this deep would overflow the stack).
#include <gtest/gtest.h>

#include "relay/builder.h"
#include "relay/interp/interpreter.h"
#include "relay/structural_equal.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"

namespace tessera::relay {
namespace {

constexpr int kDepth = 100000;

Function deepChain(const Var& x) {
  Expr e = x;
  for (int i = 0; i < kDepth; ++i) e = callOp(i % 2 ? "copy" : "negative", {e});
  return makeFunction({x}, e);
}

TEST(DeepGraph, EveryStageHandlesAHundredThousandNodeChain) {
  Var x = var("x", {2});
  IRModule module = inferTypes(IRModule::fromExpr(deepChain(x)));
  EXPECT_TRUE(structuralEqual(module, inferTypes(IRModule::fromExpr(deepChain(var("y", {2}))))));
  EXPECT_NE(structuralHash(module.main()), 0u);

  NDArray input = NDArray::empty({2}, DataType::float32());
  input.setFloat(0, -3);
  input.setFloat(1, 5);
  Value out = Interpreter(module).run({input});
  // 50,000 negations (an even number) with copies between them: the identity.
  EXPECT_EQ(out.tensor().getFloat(0), -3);
  EXPECT_EQ(out.tensor().getFloat(1), 5);

  const std::string text = printModule(module);
  IRModule parsed = parseModule(text, "deep.relay");
  EXPECT_TRUE(structuralEqual(module, parsed));
}

TEST(DeepGraph, DestroysDeepNestingWithoutRecursion) {
  Expr e = var("x", {1});
  for (int i = 0; i < 10 * kDepth; ++i) e = makeTuple({e});
  e.reset();  // would overflow the stack if destruction recursed
  SUCCEED();
}

}  // namespace
}  // namespace tessera::relay
