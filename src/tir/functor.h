// Traversal of TensorIR: IRVisitor walks expressions and statements; IRMutator rebuilds them,
// copying only the nodes whose children changed (an unchanged subtree keeps its identity, which
// block ids and loop variables rely on). Both read each node's field list (`tir/node_fields.h`),
// so neither has code per node kind beyond the hooks passes override. Recursion depth is the
// nesting depth of the program, which schedules and lowering bound (a few dozen levels), not the
// size of any user input.
#pragma once

#include <functional>
#include <unordered_map>

#include "tir/function.h"

namespace tessera::tir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visitExpr(const PrimExpr& e);
  virtual void visitStmt(const Stmt& s);

 protected:
  // Hooks for the node kinds passes most often override; the defaults visit the children that the
  // node's field list names (operands, region bounds, iteration domains, statements). Buffers,
  // definitions and plain data are not visited.
  virtual void visitVar(const VarNode* op) {}
  virtual void visitBufferLoad(const BufferLoadNode* op) { visitChildren(*op); }
  virtual void visitCall(const CallNode* op) { visitChildren(*op); }
  virtual void visitReduce(const ReduceNode* op) { visitChildren(*op); }
  virtual void visitLet(const LetNode* op) { visitChildren(*op); }
  virtual void visitBufferStore(const BufferStoreNode* op) { visitChildren(*op); }
  virtual void visitFor(const ForNode* op) { visitChildren(*op); }
  virtual void visitBlock(const BlockNode* op) { visitChildren(*op); }
  virtual void visitBlockRealize(const BlockRealizeNode* op) { visitChildren(*op); }
  virtual void visitIfThenElse(const IfThenElseNode* op) { visitChildren(*op); }
  virtual void visitLetStmt(const LetStmtNode* op) { visitChildren(*op); }
  virtual void visitAllocate(const AllocateNode* op) { visitChildren(*op); }
  virtual void visitOtherStmt(const Stmt& s) { visitChildren(*s); }  ///< Seq, Evaluate, Attr, ...
  void visitChildren(const PrimExprNode& e);
  void visitChildren(const StmtNode& s);
  void visitRegion(const BufferRegion& region);
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual PrimExpr visitExpr(const PrimExpr& e);
  virtual Stmt visitStmt(const Stmt& s);
  /// Every buffer reference (loads, stores, regions, allocations) passes through here.
  virtual Buffer visitBuffer(const Buffer& b) { return b; }

 protected:
  virtual PrimExpr visitVar(const VarNode* op, const PrimExpr& self) { return self; }
  virtual PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self);
  virtual PrimExpr visitCall(const CallNode* op, const PrimExpr& self);
  virtual PrimExpr visitOtherExpr(const PrimExpr& self);  ///< rebuilds any other node
  // Each default rebuilds the node from its field list: operands, region bounds, iteration
  // domains and statements are visited, buffers pass through visitBuffer; a node whose type
  // follows from its children (a load, a ramp, a let) gets it computed again.
  virtual Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self);
  virtual Stmt visitFor(const ForNode* op, const Stmt& self);
  virtual Stmt visitBlock(const BlockNode* op, const Stmt& self);
  virtual Stmt visitBlockRealize(const BlockRealizeNode* op, const Stmt& self);
  virtual Stmt visitSeqStmt(const SeqStmtNode* op, const Stmt& self);
  virtual Stmt visitOtherStmt(const Stmt& self);  ///< rebuilds any other node
  BufferRegion visitRegion(const BufferRegion& region);
  std::vector<PrimExpr> visitExprs(const std::vector<PrimExpr>& es, bool* changed);
};

using VarMap = std::unordered_map<const VarNode*, PrimExpr>;

/// Replaces variables by expressions (free occurrences; TensorIR binds each variable once).
PrimExpr substitute(const PrimExpr& e, const VarMap& map);
Stmt substitute(const Stmt& s, const VarMap& map);

/// Calls `fn` on every statement in pre-order; returning false skips the children.
void preOrderVisit(const Stmt& s, const std::function<bool(const Stmt&)>& fn);
/// Calls `fn` on every expression node (including those inside statements) in post-order.
void postOrderVisitExprs(const Stmt& s, const std::function<void(const PrimExpr&)>& fn);
void postOrderVisitExpr(const PrimExpr& e, const std::function<void(const PrimExpr&)>& fn);

}  // namespace tessera::tir
