// Generic access to the direct child statements of any TensorIR statement (from the field lists),
// and an iterative search for the chain of ancestors of a statement, so passes need not repeat a
// switch per node.
#pragma once

#include <concepts>
#include <functional>
#include <vector>

#include "tir/node_fields.h"

namespace tessera::tir {

/// Calls `fn` on each direct child statement of `s` that is present, in the order of the node's
/// field list: For, LetStmt, AttrStmt, AssertStmt, Allocate and DeclBuffer: body; SeqStmt: its
/// elements; IfThenElse: then, else; Block: init, body; BlockRealize: block. BufferStore and
/// Evaluate have none. Expressions are not statements and are not visited.
template <std::invocable<const Stmt&> Fn>
void forEachChild(const StmtNode& s, Fn&& fn) {
  // Null children (a missing else, init or assert body) are skipped so callers never see null.
  struct Children : FieldVisitor<Children> {
    explicit Children(Fn& fn) : fn(fn) {}
    void stmt(const Stmt& child) {
      if (child) fn(child);
    }
    void block(const Block& child) { stmt(child); }
    Fn& fn;
  } children(fn);
  withStmtNode(s, [&](const auto& node) { readFields(node, children); });
}

/// The direct child statements of `s` in forEachChild's order (empty for a null `s`).
std::vector<Stmt> stmtChildren(const Stmt& s);

/// The chain from `root` (first) to the first statement, in pre-order with children in
/// forEachChild's order, for which `match` holds (last); empty when none does. Iterative, so the
/// nesting depth of `root` is not limited by the call stack.
std::vector<Stmt> findStmtChain(const Stmt& root, const std::function<bool(const Stmt&)>& match);

}  // namespace tessera::tir
