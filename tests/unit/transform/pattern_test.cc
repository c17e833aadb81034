// Unit tests of the dataflow pattern language: each pattern kind, captures, alternatives,
// dominators, the rewriter and the partitioner.
#include <gtest/gtest.h>

#include "relay/op_registry.h"
#include "relay/pattern/matcher.h"
#include "relay/pattern/partition.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"

namespace tessera::relay {
namespace {

// The body of a typed function parsed from text.
Expr bodyOf(const char* text) {
  const auto fn = exprAs<FunctionNode>(inferExprTypes(parseExpr(text)));
  return fn->body;
}

const char* kConvRelu =
    R"(fn (%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = add(%0, 1f);
  nn.relu(%1)
})";

TEST(Pattern, OpCallWildcardAndConstant) {
  const Expr body = bodyOf(kConvRelu);
  const Pattern conv = isOp("nn.conv2d")({wildcard(), wildcard()});
  const Pattern add = isOp("add")({conv, isConstant()});
  const Pattern relu = isOp("nn.relu")({add});
  EXPECT_TRUE(matches(relu, body));
  EXPECT_FALSE(matches(isOp("nn.relu")({isOp("multiply")({wildcard(), wildcard()})}), body));
  EXPECT_FALSE(matches(isOp("add")({conv, isVar()}), exprAs<CallNode>(body)->args[0]));
  const auto m = matchCaptures(relu, body);
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)[conv], exprAs<CallNode>(exprAs<CallNode>(body)->args[0])->args[0]);
}

TEST(Pattern, CommutativeOperandsMatchSwapped) {
  const Expr body = bodyOf(kConvRelu);
  const Expr addExpr = exprAs<CallNode>(body)->args[0];
  EXPECT_TRUE(matches(isOp("add")({isConstant(), wildcard()}), addExpr));
}

TEST(Pattern, VarByName) {
  const Expr body = bodyOf(kConvRelu);
  const Pattern conv = isOp("nn.conv2d")({isVar("x"), isVar()});
  const Expr convExpr = exprAs<CallNode>(exprAs<CallNode>(body)->args[0])->args[0];
  EXPECT_TRUE(matches(conv, convExpr));
  EXPECT_FALSE(matches(isOp("nn.conv2d")({isVar("w"), isVar()}), convExpr));
}

TEST(Pattern, AttrTypeDtypeShape) {
  const Expr body = bodyOf(kConvRelu);
  const Expr convExpr = exprAs<CallNode>(exprAs<CallNode>(body)->args[0])->args[0];
  const Pattern conv = isOp("nn.conv2d")({wildcard(), wildcard()});
  const AttrValue pad = AttrValue::array(
      {AttrValue::integer(1), AttrValue::integer(1), AttrValue::integer(1), AttrValue::integer(1)});
  EXPECT_TRUE(matches(conv.hasAttr({{"padding", pad}}), convExpr));
  EXPECT_FALSE(matches(conv.hasAttr({{"groups", AttrValue::integer(2)}}), convExpr));
  EXPECT_TRUE(matches(conv.hasDtype(DataType::float32()), convExpr));
  EXPECT_FALSE(matches(conv.hasDtype(DataType::int8()), convExpr));
  EXPECT_TRUE(matches(conv.hasShape({1, 4, 8, 8}), convExpr));
  EXPECT_FALSE(matches(conv.hasShape({1, 4, 8}), convExpr));
  EXPECT_TRUE(matches(conv.hasType(tensorType({1, 4, 8, 8}, DataType::float32())), convExpr));
}

TEST(Pattern, OpFusionKindAttribute) {
  const Expr body = bodyOf(kConvRelu);
  const AttrValue elemwise = AttrValue::integer(static_cast<int64_t>(OpPattern::kElemWise));
  const Pattern anyElemwise = wildcard().hasAttr({{"TOpPattern", elemwise}})({wildcard()});
  EXPECT_TRUE(matches(anyElemwise, body));
  EXPECT_FALSE(matches(anyElemwise, exprAs<CallNode>(exprAs<CallNode>(body)->args[0])->args[0]));
}

TEST(Pattern, AlternativesAndOptional) {
  const Expr body = bodyOf(kConvRelu);
  const Pattern conv = isOp("nn.conv2d")({wildcard(), wildcard()});
  const Pattern biased = isOp("add")({conv, wildcard()});
  const Pattern convOrBiased = biased | conv;
  EXPECT_TRUE(matches(isOp("nn.relu")({convOrBiased}), body));
  // optional: relu after the add may or may not be there.
  const Pattern withRelu = biased.optional([](const Pattern& p) { return isOp("nn.relu")({p}); });
  EXPECT_TRUE(matches(withRelu, body));
  EXPECT_TRUE(matches(withRelu, exprAs<CallNode>(body)->args[0]));
  // A failed left alternative leaves no captures behind.
  const Pattern x = wildcard();
  const Pattern alt = isOp("nn.relu")({isOp("multiply")({x, x})}) | isOp("nn.relu")({x});
  const auto m = matchCaptures(alt, body);
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)[x], exprAs<CallNode>(body)->args[0]);
}

TEST(Pattern, SharedWildcardNeedsTheSameExpression) {
  const Expr body = bodyOf(R"(fn (%a: float32, %b: float32) { %0 = add(%a, %a); add(%0, %b) })");
  const Pattern x = wildcard();
  EXPECT_FALSE(matches(isOp("add")({x, x}), body));
  EXPECT_TRUE(matches(isOp("add")({x, x}), exprAs<CallNode>(body)->args[0]));
}

TEST(Pattern, TupleAndTupleGetItem) {
  const Expr body =
      bodyOf(R"(fn (%a: float32, %b: float32) { %0 = (%a, %b); %1 = %0.1; add(%1, %a) })");
  const Pattern tuple = isTuple({wildcard(), wildcard()});
  EXPECT_TRUE(matches(isOp("add")({isTupleGetItem(tuple, 1), wildcard()}), body));
  EXPECT_TRUE(matches(isOp("add")({isTupleGetItem(tuple), wildcard()}), body));
  EXPECT_FALSE(matches(isOp("add")({isTupleGetItem(tuple, 0), wildcard()}), body));
  EXPECT_FALSE(matches(isOp("add")({isTupleGetItem(isTuple({wildcard()})), wildcard()}), body));
}

// TVM's diamond: conv2d feeding elementwise ops that all end in one add.
const char* kDiamond =
    R"(fn (%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(3, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.relu(%1);
  %3 = add(%1, %2);
  add(%0, %3)
})";

TEST(Pattern, DominatorDiamond) {
  const Expr body = bodyOf(kDiamond);
  const Pattern parent = isOp("nn.conv2d")({wildcard(), wildcard()});
  const Pattern path = isOp("nn.relu")({wildcard()}) | isOp("add")({wildcard(), wildcard()});
  const Pattern child = isOp("add")({wildcard(), wildcard()});
  const auto m = matchCaptures(dominates(parent, path, child), body);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->pathNodes.size(), 3u);
  // Without add on the path the inner add blocks the walk.
  EXPECT_FALSE(matches(dominates(parent, isOp("nn.relu")({wildcard()}), child), body));
}

TEST(Pattern, DominatorFailsWhenAPathNodeEscapes) {
  const Expr body = bodyOf(R"(fn (%x: float32) {
  %0 = nn.relu(%x);
  %1 = negative(%0);
  %2 = add(%1, 1f);
  (%2, %1)
})");
  const Expr tupleField = exprAs<TupleNode>(body)->fields[0];
  const Pattern dom = dominates(isOp("nn.relu")({wildcard()}), isOp("negative")({wildcard()}),
                                isOp("add")({wildcard(), wildcard()}));
  // Matched inside the whole graph, `negative` is also used by the tuple.
  PatternMatcher matcher(body);
  EXPECT_FALSE(matcher.match(dom, tupleField));
  EXPECT_TRUE(matches(dom, tupleField));
}

TEST(Rewrite, CallbacksRunToAFixedPoint) {
  const Expr body = bodyOf(R"(fn (%x: float32) { %0 = negative(%x); %1 = negative(%0);
    %2 = negative(%1); negative(%2) })");
  const Pattern x = wildcard();
  // negative(negative(x)) -> x
  const RewriteCallback cancel{
      isOp("negative")({isOp("negative")({x})}),
      [&](const Expr&, const Expr&, const PatternMatch& m) { return m[x]; }};
  const Expr out = rewrite({cancel}, body);
  EXPECT_EQ(out->kind, ExprKind::kVar);
}

TEST(Partition, OutlinesMatchesWithParametersInPatternOrder) {
  const Expr body = bodyOf(kConvRelu);
  const Pattern pattern =
      isOp("nn.relu")({isOp("add")({isOp("nn.conv2d")({wildcard(), wildcard()}), isConstant()})});
  DictAttrs attrs;
  attrs.set("Composite", AttrValue::string("conv_add_relu"));
  const Expr out = partition(pattern, body, attrs);
  const auto call = exprAs<CallNode>(out);
  ASSERT_TRUE(call);
  const auto fn = exprAs<FunctionNode>(call->op);
  ASSERT_TRUE(fn);
  ASSERT_EQ(fn->params.size(), 2u);
  EXPECT_EQ(fn->params[0]->nameHint, "FunctionVar_0_0");
  EXPECT_EQ(fn->params[1]->nameHint, "FunctionVar_0_1");
  EXPECT_EQ(fn->attrs.find("PartitionedFromPattern")->asString(), "nn.conv2d_add_nn.relu_");
  EXPECT_EQ(fn->attrs.entries()[1].first, "Composite");
  EXPECT_EQ(call->args[0]->kind, ExprKind::kVar);
}

TEST(Partition, SkipsMatchesWhoseInnerNodesAreUsedOutside) {
  const Expr body = bodyOf(R"(fn (%x: float32) { %0 = nn.relu(%x); %1 = negative(%0); (%1, %0) })");
  const Pattern pattern = isOp("negative")({isOp("nn.relu")({wildcard()})});
  EXPECT_EQ(partition(pattern, body), body);
}

}  // namespace
}  // namespace tessera::relay
