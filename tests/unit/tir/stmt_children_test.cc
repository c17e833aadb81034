// Generic child access of TIR statements and the path search the schedule primitives share.
#include "tir/stmt_children.h"

#include <gtest/gtest.h>

#include <vector>

#include "tir/schedule/schedule_state.h"
#include "tir_examples.h"

namespace tessera::tir {
namespace {

Stmt leaf() {
  return evaluate(intImm(0));
}

TEST(StmtChildren, ListsDirectChildrenInFieldOrder) {
  Stmt a = leaf(), b = leaf(), c = leaf();
  EXPECT_TRUE(stmtChildren(a).empty());
  EXPECT_TRUE(stmtChildren(nullptr).empty());
  EXPECT_EQ(stmtChildren(forLoop(makeVar("i"), intImm(0), intImm(4), ForKind::kSerial, a)),
            std::vector<Stmt>{a});
  EXPECT_EQ(stmtChildren(seq({a, b, c})), (std::vector<Stmt>{a, b, c}));
  EXPECT_EQ(stmtChildren(ifThenElse(boolImm(true), a, b)), (std::vector<Stmt>{a, b}));
  EXPECT_EQ(stmtChildren(ifThenElse(boolImm(true), a)), std::vector<Stmt>{a});  // no else
  EXPECT_EQ(stmtChildren(letStmt(makeVar("v"), intImm(1), a)), std::vector<Stmt>{a});
  EXPECT_EQ(stmtChildren(attrStmt(nullptr, "pragma", intImm(1), a)), std::vector<Stmt>{a});
  EXPECT_EQ(stmtChildren(assertStmt(boolImm(true), "m", a)), std::vector<Stmt>{a});
  EXPECT_TRUE(stmtChildren(assertStmt(boolImm(true), "m", nullptr)).empty());
  Buffer buf = makeBuffer("A", {intImm(4)});
  EXPECT_EQ(stmtChildren(allocate(buf->data, DataType::float32(), {intImm(4)}, "global", a)),
            std::vector<Stmt>{a});
  EXPECT_EQ(stmtChildren(declBuffer(buf, a)), std::vector<Stmt>{a});
  EXPECT_TRUE(stmtChildren(bufferStore(buf, floatImm(0), {intImm(0)})).empty());

  auto block = std::make_shared<BlockNode>();
  block->body = b;
  EXPECT_EQ(stmtChildren(block), std::vector<Stmt>{b});
  block->init = a;
  EXPECT_EQ(stmtChildren(block), (std::vector<Stmt>{a, b}));
  Stmt realize = blockRealize({}, boolImm(true), block);
  EXPECT_EQ(stmtChildren(realize), std::vector<Stmt>{Stmt(block)});
}

TEST(StmtChildren, FindPathReturnsTheAncestorChain) {
  PrimFunc f = examples::matmulRelu(16);
  auto isBlock = [](const char* name) {
    return [name](const Stmt& s) {
      const auto* b = s->as<BlockNode>();
      return b && b->name == name;
    };
  };
  std::optional<StmtPath> path = findPath(f->body, isBlock("relu"));
  ASSERT_TRUE(path);
  // root realize, root block, the sequence, loops i and j, the realize, the block.
  std::vector<StmtKind> kinds;
  for (const Stmt& s : path->chain) kinds.push_back(s->kind);
  EXPECT_EQ(kinds, (std::vector<StmtKind>{StmtKind::kBlockRealize, StmtKind::kBlock,
                                          StmtKind::kSeqStmt, StmtKind::kFor, StmtKind::kFor,
                                          StmtKind::kBlockRealize, StmtKind::kBlock}));
  EXPECT_EQ(path->chain.front(), f->body);
  EXPECT_EQ(path->loops().size(), 2u);
  EXPECT_EQ(path->scopeBlock()->name, "root");
  EXPECT_EQ(findStmtChain(f->body, isBlock("relu")), path->chain);

  EXPECT_FALSE(findPath(f->body, isBlock("missing")));
  EXPECT_TRUE(findStmtChain(f->body, isBlock("missing")).empty());
  EXPECT_FALSE(findPath(nullptr, isBlock("relu")));
  // The root itself can match, and the first match in pre-order wins (matmul's loops first).
  EXPECT_EQ(findPath(f->body, [](const Stmt&) { return true; })->chain.size(), 1u);
  auto firstLoop = findPath(f->body, [](const Stmt& s) { return s->kind == StmtKind::kFor; });
  ASSERT_TRUE(firstLoop);
  EXPECT_EQ(firstLoop->chain.size(), 4u);
  const auto* loop = firstLoop->stmt()->as<ForNode>();
  auto matmul = findPath(f->body, isBlock("matmul"));
  ASSERT_TRUE(matmul);
  EXPECT_EQ(matmul->chain[3].get(), loop);
}

TEST(StmtChildren, FindPathSearchesBlockInitBeforeBody) {
  Stmt initStore = evaluate(intImm(1)), bodyStore = evaluate(intImm(1));
  auto block = std::make_shared<BlockNode>();
  block->init = initStore;
  block->body = bodyStore;
  Stmt realize = blockRealize({}, boolImm(true), block);
  auto path = findPath(realize, [](const Stmt& s) { return s->kind == StmtKind::kEvaluate; });
  ASSERT_TRUE(path);
  EXPECT_EQ(path->stmt(), initStore);
}

// The search keeps its own stack, so nesting depth is not limited by the call stack.
TEST(StmtChildren, FindStmtChainHandlesAHundredThousandNestedLoops) {
  constexpr int kDepth = 100000;
  std::vector<Stmt> levels{evaluate(intImm(7))};
  for (int i = 0; i < kDepth; ++i)
    levels.push_back(forLoop(makeVar("i"), intImm(0), intImm(2), ForKind::kSerial, levels.back()));
  std::vector<Stmt> chain =
      findStmtChain(levels.back(), [](const Stmt& s) { return s->kind == StmtKind::kEvaluate; });
  EXPECT_EQ(chain.size(), static_cast<size_t>(kDepth) + 1);
  EXPECT_EQ(chain.back(), levels.front());
  chain.clear();
  // Node destructors recurse, so release the nest from the top, one level at a time.
  while (!levels.empty()) levels.pop_back();
}

}  // namespace
}  // namespace tessera::tir
