// Generic child access of TIR statements and the ancestor-chain search built on it.
#include "tir/stmt_children.h"

#include <gtest/gtest.h>

#include <vector>

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

TEST(StmtChildren, FindStmtChainReturnsTheAncestors) {
  PrimFunc f = examples::matmulRelu(16);
  auto isBlock = [](const char* name) {
    return [name](const Stmt& s) {
      const auto* b = s->as<BlockNode>();
      return b && b->name == name;
    };
  };
  std::vector<Stmt> chain = findStmtChain(f->body, isBlock("relu"));
  // root realize, root block, the sequence, loops i and j, the realize, the block.
  std::vector<StmtKind> kinds;
  for (const Stmt& s : chain) kinds.push_back(s->kind);
  EXPECT_EQ(kinds, (std::vector<StmtKind>{StmtKind::kBlockRealize, StmtKind::kBlock,
                                          StmtKind::kSeqStmt, StmtKind::kFor, StmtKind::kFor,
                                          StmtKind::kBlockRealize, StmtKind::kBlock}));
  EXPECT_EQ(chain.front(), f->body);

  EXPECT_TRUE(findStmtChain(f->body, isBlock("missing")).empty());
  EXPECT_TRUE(findStmtChain(nullptr, isBlock("relu")).empty());
  // The root itself can match, and the first match in pre-order wins (matmul's loops first).
  EXPECT_EQ(findStmtChain(f->body, [](const Stmt&) { return true; }).size(), 1u);
  auto firstLoop = findStmtChain(f->body, [](const Stmt& s) { return s->kind == StmtKind::kFor; });
  ASSERT_EQ(firstLoop.size(), 4u);
  EXPECT_EQ(findStmtChain(f->body, isBlock("matmul"))[3], firstLoop.back());
}

TEST(StmtChildren, FindStmtChainSearchesBlockInitBeforeBody) {
  Stmt initStore = evaluate(intImm(1)), bodyStore = evaluate(intImm(1));
  auto block = std::make_shared<BlockNode>();
  block->init = initStore;
  block->body = bodyStore;
  Stmt realize = blockRealize({}, boolImm(true), block);
  auto chain = findStmtChain(realize, [](const Stmt& s) { return s->kind == StmtKind::kEvaluate; });
  ASSERT_FALSE(chain.empty());
  EXPECT_EQ(chain.back(), initStore);
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
