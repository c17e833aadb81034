#include "relay/structural_equal.h"

#include <gtest/gtest.h>

#include "relay/builder.h"

namespace tessera::relay {
namespace {

Expr addOne(const Expr& x) {
  return callOp("add", {x, scalar(1.0)});
}

TEST(StructuralEqual, AlphaEquivalentFunctionsAreEqual) {
  Var x = var("x", {2, 2});
  Var y = var("y", {2, 2});
  Function f = makeFunction({x}, addOne(x));
  Function g = makeFunction({y}, addOne(y));
  EXPECT_TRUE(structuralEqual(f, g));
  EXPECT_EQ(structuralHash(f), structuralHash(g));
}

TEST(StructuralEqual, DetectsDifferences) {
  Var x = var("x", {2, 2});
  Function f = makeFunction({x}, addOne(x));
  Function differentConstant = makeFunction({x}, callOp("add", {x, scalar(2.0)}));
  Function differentOp = makeFunction({x}, callOp("multiply", {x, scalar(1.0)}));
  Var x3 = var("x", {3, 2});
  Function differentType = makeFunction({x3}, addOne(x3));
  EXPECT_FALSE(structuralEqual(f, differentConstant));
  EXPECT_FALSE(structuralEqual(f, differentOp));
  EXPECT_FALSE(structuralEqual(f, differentType));
  EXPECT_NE(explainDifference(f, differentOp), "");
  EXPECT_NE(structuralHash(f), structuralHash(differentConstant));
}

TEST(StructuralEqual, ComparesAttributesAndFunctionAttrs) {
  Var x = var("x", {1, 4});
  Expr c1 =
      callOp("clip", {x}, {{"a_min", AttrValue::floating(-1)}, {"a_max", AttrValue::floating(1)}});
  Expr c2 =
      callOp("clip", {x}, {{"a_min", AttrValue::floating(-1)}, {"a_max", AttrValue::floating(2)}});
  EXPECT_FALSE(structuralEqual(makeFunction({x}, c1), makeFunction({x}, c2)));
  DictAttrs primitive;
  primitive.set("Primitive", AttrValue::integer(1));
  EXPECT_FALSE(structuralEqual(makeFunction({x}, c1, nullptr, primitive), makeFunction({x}, c1)));
  EXPECT_TRUE(structuralEqual(makeFunction({x}, c1, nullptr, primitive),
                              makeFunction({x}, c1, nullptr, primitive)));
}

TEST(StructuralEqual, FreeVariablesNeedIdentityUnlessMapped) {
  Var a = var("a", {2});
  Var b = var("a", {2});
  EXPECT_FALSE(structuralEqual(addOne(a), addOne(b)));
  EXPECT_TRUE(structuralEqual(addOne(a), addOne(b), /*mapFreeVars=*/true));
}

TEST(StructuralEqual, LetBindingsAreMatchedByPosition) {
  Var x = var("x", {2});
  Var t1 = var("t", {2});
  Var t2 = var("u", {2});
  Expr l1 = makeLet(t1, addOne(x), addOne(t1));
  Expr l2 = makeLet(t2, addOne(x), addOne(t2));
  EXPECT_TRUE(structuralEqual(l1, l2));
  Expr l3 = makeLet(t2, addOne(x), addOne(x));
  EXPECT_FALSE(structuralEqual(l1, l3));
}

TEST(StructuralEqual, ConstantsCompareBytes) {
  NDArray a = NDArray::empty({2}, DataType::float32());
  NDArray b = a.copy();
  EXPECT_TRUE(structuralEqual(makeConstant(a), makeConstant(b)));
  b.setFloat(1, 1.0);
  EXPECT_FALSE(structuralEqual(makeConstant(a), makeConstant(b)));
  EXPECT_FALSE(structuralEqual(makeConstant(a),
                               makeConstantWithoutData(tensorType({2}, DataType::float32()))));
}

TEST(StructuralEqual, SymbolicDimsMatchByPosition) {
  auto sym = [](const char* name) { return Dim::var(std::make_shared<SymVarNode>(SymVarNode{name})); };
  Dim n = sym("n"), m = sym("m"), k = sym("k");
  Var a = var("a", tensorType(Shape{Dim(1), n}, DataType::float32()));
  Var b = var("b", tensorType(Shape{Dim(1), m}, DataType::float32()));
  Function f = makeFunction({a}, addOne(a));
  Function g = makeFunction({b}, addOne(b));
  EXPECT_TRUE(structuralEqual(f, g));  // a re-parsed "n" is a new object: it must still match
  EXPECT_EQ(structuralHash(f), structuralHash(g));
  // One dim used twice on one side but two different dims on the other is a real difference.
  Var x = var("x", tensorType(Shape{n, n}, DataType::float32()));
  Var y = var("y", tensorType(Shape{m, k}, DataType::float32()));
  EXPECT_FALSE(structuralEqual(makeFunction({x}, x), makeFunction({y}, y)));
}

TEST(StructuralEqual, ModulesCompareFunctionByFunction) {
  Var x = var("x", {2});
  IRModule m1 = IRModule::fromExpr(makeFunction({x}, addOne(x)));
  IRModule m2 = IRModule::fromExpr(makeFunction({x}, addOne(x)));
  EXPECT_TRUE(structuralEqual(m1, m2));
  m2.add("helper", makeFunction({x}, x));
  EXPECT_FALSE(structuralEqual(m1, m2));
}

}  // namespace
}  // namespace tessera::relay
