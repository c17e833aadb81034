// Generic access to the direct child statements of any TensorIR statement, and an iterative
// search for the chain of ancestors of a statement, so passes need not repeat a switch per node.
#pragma once

#include <concepts>
#include <functional>
#include <vector>

#include "tir/stmt.h"

namespace tessera::tir {

/// Calls `fn` on each direct child statement of `s` that is present, in field order: For, LetStmt,
/// AttrStmt, AssertStmt, Allocate and DeclBuffer: body; SeqStmt: its elements; IfThenElse: then,
/// else; Block: init, body; BlockRealize: block. BufferStore and Evaluate have none. Expressions
/// are not statements and are not visited.
template <std::invocable<const Stmt&> Fn>
void forEachChild(const StmtNode& s, Fn&& fn) {
  // Null children (a missing else, init or assert body) are skipped so callers never see null.
  auto visit = [&fn](const Stmt& child) {
    if (child) fn(child);
  };
  switch (s.kind) {
    case StmtKind::kBufferStore:
    case StmtKind::kEvaluate:
      return;
    case StmtKind::kLetStmt:
      return visit(static_cast<const LetStmtNode&>(s).body);
    case StmtKind::kAttrStmt:
      return visit(static_cast<const AttrStmtNode&>(s).body);
    case StmtKind::kAssertStmt:
      return visit(static_cast<const AssertStmtNode&>(s).body);
    case StmtKind::kIfThenElse: {
      const auto& n = static_cast<const IfThenElseNode&>(s);
      visit(n.thenCase);
      return visit(n.elseCase);
    }
    case StmtKind::kFor:
      return visit(static_cast<const ForNode&>(s).body);
    case StmtKind::kSeqStmt:
      for (const Stmt& child : static_cast<const SeqStmtNode&>(s).seq) visit(child);
      return;
    case StmtKind::kBlock: {
      const auto& n = static_cast<const BlockNode&>(s);
      visit(n.init);
      return visit(n.body);
    }
    case StmtKind::kBlockRealize:
      return visit(static_cast<const BlockRealizeNode&>(s).block);
    case StmtKind::kAllocate:
      return visit(static_cast<const AllocateNode&>(s).body);
    case StmtKind::kDeclBuffer:
      return visit(static_cast<const DeclBufferNode&>(s).body);
  }
}

/// The direct child statements of `s` in forEachChild's order (empty for a null `s`).
std::vector<Stmt> stmtChildren(const Stmt& s);

/// The chain from `root` (first) to the first statement, in pre-order with children in
/// forEachChild's order, for which `match` holds (last); empty when none does. Iterative, so the
/// nesting depth of `root` is not limited by the call stack.
std::vector<Stmt> findStmtChain(const Stmt& root, const std::function<bool(const Stmt&)>& match);

}  // namespace tessera::tir
