// Relay's children lists: exprChildren's order, withChildren's copies (new children, no stale
// checked type, variables only where variables go) and sharing when nothing changed.
#include <gtest/gtest.h>

#include "relay/expr.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

Expr leaf(const char* name) {
  return makeVar(name);
}

TEST(ExprChildren, FollowTheChildrenListsInOrder) {
  Expr f = leaf("f"), a = leaf("a"), b = leaf("b"), c = leaf("c");
  EXPECT_EQ(exprChildren(makeCall(f, {a, b})), (std::vector<Expr>{f, a, b}));
  EXPECT_EQ(exprChildren(makeTuple({a, b, c})), (std::vector<Expr>{a, b, c}));
  EXPECT_EQ(exprChildren(makeTupleGetItem(a, 1)), std::vector<Expr>{a});
  Var v = makeVar("v");
  EXPECT_EQ(exprChildren(makeLet(v, a, b)), (std::vector<Expr>{v, a, b}));
  EXPECT_EQ(exprChildren(makeIf(a, b, c)), (std::vector<Expr>{a, b, c}));
  Var p = makeVar("p"), q = makeVar("q");
  EXPECT_EQ(exprChildren(makeFunction({p, q}, a)), (std::vector<Expr>{p, q, a}));
  EXPECT_TRUE(exprChildren(a).empty());
  EXPECT_TRUE(exprChildren(makeGlobalVar("g")).empty());
}

TEST(WithChildren, SharesTheNodeWhenNothingChanged) {
  Expr a = leaf("a"), b = leaf("b");
  Expr t = makeTupleGetItem(makeTuple({a, b}), 1);
  EXPECT_EQ(withChildren(t, exprChildren(t)), t);
  EXPECT_EQ(withChildren(a, {}), a);
}

TEST(WithChildren, CopiesWithNewChildrenKeepingFieldsAndDroppingTheCheckedType) {
  Expr a = leaf("a"), b = leaf("b"), c = leaf("c");
  Expr item = makeTupleGetItem(makeTuple({a, b}), 1,
                               Span{std::make_shared<const std::string>("x.txt"), 3, 4});
  item->checkedType = tensorType({2}, DataType::float32());
  Expr copy = withChildren(item, {makeTuple({a, c})});
  ASSERT_NE(copy, item);
  const auto* g = copy->as<TupleGetItemNode>();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->index, 1);
  EXPECT_EQ(copy->span.line, 3);
  EXPECT_EQ(copy->checkedType, nullptr) << "new children: the type is inferred again";
  EXPECT_EQ(exprChildren(g->tuple), (std::vector<Expr>{a, c}));

  Var p = makeVar("p");
  Function fn = makeFunction({p}, a, nullptr, {}, {});
  Var p2 = makeVar("p2");
  Expr fn2 = withChildren(fn, {p2, b});
  const auto* f = fn2->as<FunctionNode>();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->params.size(), 1u);
  EXPECT_EQ(f->params[0], p2);
  EXPECT_EQ(f->body, b);
}

TEST(WithChildren, AVariableSlotTakesOnlyAVariableAndTheCountMustMatch) {
  Expr a = leaf("a"), b = leaf("b");
  Var v = makeVar("v");
  Expr let = makeLet(v, a, b);
  EXPECT_ANY_THROW(withChildren(let, {makeTuple({}), a, b}));
  EXPECT_ANY_THROW(withChildren(let, {v, a}));
  EXPECT_ANY_THROW(withChildren(a, {b}));
}

}  // namespace
}  // namespace tessera::relay
