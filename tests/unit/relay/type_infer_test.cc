#include "relay/type_infer.h"

#include <gtest/gtest.h>

#include "relay/builder.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

AttrValue ints(std::vector<int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(AttrValue::integer(x));
  return AttrValue::array(std::move(items));
}

// Seed 003: conv2d(channels=32, kernel 3x3, stride 2, pad 1) + batch_norm + relu with untyped
// weights. Inference assigns the weight and batch-norm parameter types through the relations.
TEST(TypeInfer, AssignsUntypedWeightsThroughRelations) {
  Var data = var("data", {1, 3, 224, 224});
  Var weight = var("graph_conv_weight");
  Expr conv = callOp("nn.conv2d", {data, weight},
                     {{"strides", ints({2, 2})},
                      {"padding", ints({1, 1})},
                      {"channels", AttrValue::integer(32)},
                      {"kernel_size", ints({3, 3})}});
  Expr bn = callOp("nn.batch_norm", {conv, var("gamma"), var("beta"), var("mean"), var("var")});
  Expr relu = callOp("nn.relu", {tupleGetItem(bn, 0)});
  IRModule m = inferTypes(IRModule::fromExpr(function(relu)));
  const Function& main = m.main();
  ASSERT_EQ(main->params.size(), 6u);
  EXPECT_EQ(typeToString(main->params[1]->typeAnnotation), "Tensor[(32, 3, 3, 3), float32]");
  EXPECT_EQ(typeToString(main->params[2]->typeAnnotation), "Tensor[(32), float32]");
  EXPECT_EQ(typeToString(main->retType), "Tensor[(1, 32, 112, 112), float32]");
  EXPECT_EQ(typeToString(main->body->type()), "Tensor[(1, 32, 112, 112), float32]");
}

TEST(TypeInfer, TypesNestedFunctionsGlobalsLetAndIf) {
  IRModule m;
  Var p = var("p", {4});
  m.add("double_it", makeFunction({p}, callOp("add", {p, p})));
  Var x = var("x", {4});
  Var t = var("t");
  Expr call = makeCall(m.globalVar("double_it"), {x});
  Var q = var("q", {4});
  Expr inner = makeCall(makeFunction({q}, callOp("nn.relu", {q})), {call});
  Var c = var("c", scalarType(DataType::boolType()));
  Expr body = makeLet(t, inner, makeIf(c, t, callOp("negative", {t})));
  m.add("main", makeFunction({x, c}, body));
  IRModule typed = inferTypes(m);
  EXPECT_EQ(typeToString(typed.main()->retType), "Tensor[(4), float32]");
  EXPECT_EQ(typeToString(typed.lookup("double_it")->retType), "Tensor[(4), float32]");
  const auto* let = typed.main()->body->as<LetNode>();
  ASSERT_NE(let, nullptr);
  EXPECT_EQ(typeToString(let->var->typeAnnotation), "Tensor[(4), float32]");
}

TEST(TypeInfer, ShapeMismatchNamesOpAndShapes) {
  Var a = var("a", {2, 3});
  Var b = var("b", {4, 3});
  try {
    inferTypes(IRModule::fromExpr(function(callOp("add", {a, b}))));
    FAIL() << "expected a type error";
  } catch (const DiagnosticError& e) {
    const std::string msg = e.diagnostic().str();
    EXPECT_NE(msg.find("add"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(2, 3)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4, 3)"), std::string::npos) << msg;
  }
}

TEST(TypeInfer, ConflictingAssignmentNamesTheArgument) {
  Var data = var("data", {1, 3, 8, 8});
  Var weight = var("weight", {16, 4, 3, 3});  // wrong input channels for channels=16, kernel 3x3
  Expr conv = callOp("nn.conv2d", {data, weight},
                     {{"channels", AttrValue::integer(16)}, {"kernel_size", ints({3, 3})}});
  try {
    inferTypes(IRModule::fromExpr(function(conv)));
    FAIL() << "expected a type error";
  } catch (const DiagnosticError& e) {
    const std::string msg = e.diagnostic().str();
    EXPECT_NE(msg.find("nn.conv2d"), std::string::npos) << msg;
    EXPECT_NE(msg.find("weight"), std::string::npos) << msg;
  }
}

TEST(TypeInfer, UnknownTypesAreReported) {
  Var x = var("x");  // nothing constrains it
  try {
    inferTypes(IRModule::fromExpr(function(callOp("nn.relu", {x}))));
    FAIL() << "expected an inference error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "infer");
    EXPECT_NE(e.diagnostic().str().find("nn.relu"), std::string::npos);
  }
}

TEST(TypeInfer, ProjectionOutOfRangeAndArity) {
  Var x = var("x", {2});
  Expr bad = tupleGetItem(tuple({x, x}), 2);
  EXPECT_THROW(inferTypes(IRModule::fromExpr(function(bad))), DiagnosticError);
  Expr arity = makeCall(opByName("add"), {x});
  try {
    inferTypes(IRModule::fromExpr(function(arity)));
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "arity");
  }
  Var c = var("c", {2});
  Expr badIf = makeIf(c, x, x);
  EXPECT_THROW(inferTypes(IRModule::fromExpr(function(badIf))), DiagnosticError);
}

TEST(TypeInfer, CallsToGlobalsCheckArguments) {
  IRModule m;
  Var p = var("p", {4});
  m.add("f", makeFunction({p}, p));
  Var x = var("x", {5});
  m.add("main", makeFunction({x}, makeCall(m.globalVar("f"), {x})));
  EXPECT_THROW(inferTypes(m), DiagnosticError);
  IRModule missing;
  Var y = var("y", {4});
  missing.add("main", makeFunction({y}, makeCall(makeGlobalVar("nope"), {y})));
  try {
    inferTypes(missing);
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "unknown_global");
  }
}

}  // namespace
}  // namespace tessera::relay
