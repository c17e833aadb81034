// IRVisitor, IRMutator and deepEqual, derived from the nodes' field lists: which fields they visit,
// identity kept when nothing changes, types computed again when children change.
#include "tir/functor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tir/buffer.h"

namespace tessera::tir {
namespace {

// Collects every variable the visitor reaches.
class VarCollector : public IRVisitor {
 public:
  std::vector<const VarNode*> seen;

 protected:
  void visitVar(const VarNode* op) override { seen.push_back(op); }
};

bool saw(const VarCollector& c, const Var& v) {
  for (const VarNode* x : c.seen)
    if (x == v.get()) return true;
  return false;
}

TEST(IRVisitor, VisitsOperandsRegionsAndDomainsButNotDefinitions) {
  Var n = makeVar("n"), i = makeVar("i"), lo = makeVar("lo"),
      cond = makeVar("c", DataType::boolType());
  Buffer a = makeBuffer("A", {n});
  Stmt store = bufferStore(a, floatImm(1), {PrimExpr(i)});
  Stmt loop = forLoop(i, lo, n, ForKind::kSerial, ifThenElse(cond, store));
  VarCollector c;
  c.visitStmt(loop);
  EXPECT_TRUE(saw(c, lo));    // loop min
  EXPECT_TRUE(saw(c, n));     // loop extent
  EXPECT_TRUE(saw(c, cond));  // condition
  EXPECT_TRUE(saw(c, i));     // a use in the store's index
  EXPECT_EQ(std::count(c.seen.begin(), c.seen.end(), i.get()), 1)
      << "the loop variable's definition is not a use";
}

TEST(IRVisitor, VisitsReductionSourcesConditionAndAxisDomains) {
  Var k = makeVar("k"), m = makeVar("m"), x = makeVar("x"), y = makeVar("y");
  auto sum =
      std::make_shared<CommReducer>(CommReducer{{x}, {y}, {add(x, y)}, {floatImm(0)}, "sum"});
  IterVar axis{{intImm(0), m}, k, IterVarType::kCommReduce, ""};
  PrimExpr red = std::make_shared<ReduceNode>(
      DataType::float32(), sum, std::vector<PrimExpr>{cast(DataType::float32(), k)},
      std::vector<IterVar>{axis}, boolImm(true), 0, std::vector<PrimExpr>{});
  VarCollector c;
  c.visitExpr(red);
  EXPECT_TRUE(saw(c, k));
  EXPECT_TRUE(saw(c, m)) << "reduce axis domains are operands";
  EXPECT_FALSE(saw(c, x)) << "the combiner's variables are its own";
}

class RenameVar : public IRMutator {
 public:
  RenameVar(Var from, PrimExpr to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    return op == from_.get() ? to_ : self;
  }

 private:
  Var from_;
  PrimExpr to_;
};

TEST(IRMutator, KeepsIdentityWhenNothingChanges) {
  Var i = makeVar("i"), unused = makeVar("u");
  Buffer a = makeBuffer("A", {intImm(8)});
  Stmt loop = forLoop(i, intImm(0), intImm(8), ForKind::kSerial,
                      seq({bufferStore(a, floatImm(1), {PrimExpr(i)}), evaluate(i + 1)}));
  RenameVar m(unused, intImm(0));
  EXPECT_EQ(m.visitStmt(loop), loop);
}

TEST(IRMutator, CopiesOnlyWhatChangedAndKeepsLoopFieldsAndBlockIds) {
  Var i = makeVar("i"), n = makeVar("n");
  Buffer a = makeBuffer("A", {intImm(8)});
  Stmt untouched = evaluate(intImm(7));
  auto loopNode =
      std::make_shared<ForNode>(i, intImm(0), n, ForKind::kParallel,
                                seq({bufferStore(a, floatImm(1), {PrimExpr(i)}), untouched}));
  loopNode->annotations.set("pragma_auto_unroll_max_step", AttrValue::integer(16));
  auto block = std::make_shared<BlockNode>();
  block->name = "b";
  block->body = loopNode;
  RenameVar m(n, intImm(8));
  Stmt out = m.visitStmt(block);
  ASSERT_NE(out, Stmt(block));
  const auto* b = out->as<BlockNode>();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->id, block->id) << "a rebuilt block keeps its id";
  const auto* loop = b->body->as<ForNode>();
  ASSERT_TRUE(loop);
  EXPECT_TRUE(isConstInt(loop->extent, 8));
  EXPECT_EQ(loop->loopVar, i);
  EXPECT_EQ(loop->forKind, ForKind::kParallel);
  EXPECT_TRUE(loop->annotations.has("pragma_auto_unroll_max_step"));
  EXPECT_EQ(loop->body, loopNode->body) << "the unchanged body is shared, not copied";
}

TEST(IRMutator, ComputesALoadTypeAgainWhenItsIndexBecomesAVector) {
  Var i = makeVar("i");
  Buffer a = makeBuffer("A", {intImm(64)});
  PrimExpr load = bufferLoad(a, {PrimExpr(i)});
  ASSERT_EQ(load->dtype.lanes(), 1);
  RenameVar m(i, ramp(intImm(0), intImm(1), 8));
  PrimExpr out = m.visitExpr(load);
  EXPECT_EQ(out->dtype, DataType::float32().withLanes(8));
  // A let takes its body's type, a broadcast its value's with its lanes.
  Var v = makeVar("v");
  PrimExpr l = m.visitExpr(let(v, intImm(1), load));
  EXPECT_EQ(l->dtype.lanes(), 8);
}

TEST(IRMutator, AStatementReplacedByNullLeavesTheSequence) {
  class DropEvaluate : public IRMutator {
   protected:
    Stmt visitOtherStmt(const Stmt& s) override {
      return s->kind == StmtKind::kEvaluate ? nullptr : IRMutator::visitOtherStmt(s);
    }
  };
  Buffer a = makeBuffer("A", {intImm(1)});
  Stmt keep = bufferStore(a, floatImm(1), {intImm(0)});
  Stmt out = DropEvaluate().visitStmt(seq({keep, evaluate(intImm(0))}));
  EXPECT_EQ(out, keep) << "seq() drops the null and unwraps the single statement";
}

TEST(IRMutator, ABlockRealizeWhoseBlockStopsBeingABlockIsAnInternalError) {
  class BlockToEvaluate : public IRMutator {
   protected:
    Stmt visitBlock(const BlockNode*, const Stmt&) override { return evaluate(intImm(0)); }
  };
  auto block = std::make_shared<BlockNode>();
  block->body = evaluate(intImm(1));
  Stmt realize = blockRealize({}, nullptr, block);
  EXPECT_ANY_THROW(BlockToEvaluate().visitStmt(realize));
}

TEST(DeepEqual, ComparesFieldsWithVariablesAndBuffersByIdentity) {
  Var x = makeVar("x"), y = makeVar("y");
  EXPECT_TRUE(deepEqual(x + 1, x + 1));
  EXPECT_FALSE(deepEqual(x + 1, y + 1)) << "different variables, even with equal fields";
  EXPECT_FALSE(deepEqual(x + 1, x + 2));
  EXPECT_FALSE(deepEqual(x + 1, x * 1)) << "the operator is a field";
  EXPECT_FALSE(deepEqual(cast(DataType::int64(), x), cast(DataType::float32(), x)));
  EXPECT_TRUE(deepEqual(floatImm(NAN), floatImm(NAN)));
  EXPECT_TRUE(deepEqual(ramp(x, intImm(1), 4), ramp(x, intImm(1), 4)));
  EXPECT_FALSE(deepEqual(ramp(x, intImm(1), 4), ramp(x, intImm(1), 8)));
  EXPECT_TRUE(deepEqual(call(DataType::float32(), "tir.exp", {x}),
                        call(DataType::float32(), "tir.exp", {x})));
  EXPECT_FALSE(deepEqual(call(DataType::float32(), "tir.exp", {x}),
                         call(DataType::float32(), "tir.log", {x})));
  EXPECT_FALSE(deepEqual(call(DataType::int32(), "tir.max", {x, y}),
                         call(DataType::int32(), "tir.max", {x})));
  Buffer a = makeBuffer("A", {intImm(4)}), b = makeBuffer("A", {intImm(4)});
  EXPECT_TRUE(deepEqual(bufferLoad(a, {PrimExpr(x)}), bufferLoad(a, {PrimExpr(x)})));
  EXPECT_FALSE(deepEqual(bufferLoad(a, {PrimExpr(x)}), bufferLoad(b, {PrimExpr(x)})))
      << "buffers by identity (structuralEqual compares them by their fields)";
  Var v = makeVar("v"), w = makeVar("v");
  EXPECT_TRUE(deepEqual(let(v, intImm(1), v + 1), let(v, intImm(1), v + 1)));
  EXPECT_FALSE(deepEqual(let(v, intImm(1), v + 1), let(w, intImm(1), w + 1)))
      << "bound variables by identity too (structuralEqual maps them)";
}

}  // namespace
}  // namespace tessera::tir
