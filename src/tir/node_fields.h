// Reading a TensorIR node's field list. Every node class declares its fields once, in a static
// `fields(self, v)` next to its members (as `ir/attrs.h` structs do), calling one method of `v` per
// field in a fixed order and saying by the method what role the field plays. Structural equality
// and hashing, the visitor and mutator, forEachChild and deepEqual are all derived from those
// lists, so a new field or node kind is written in one place.
//
// The roles (`v` implements the ones it cares about; FieldVisitor gives the rest as no-ops):
//   expr(e)              an operand expression (never null except Reduce's absent condition)
//   stmt(s)              a child statement (may be null: a missing else, init or assert body)
//   block(b)             a BlockRealize's block
//   varDef(var)          a variable bound here (loop variable, let variable, allocation handle)
//   attrSubject(var)     an AttrStmt's node: optional; a thread variable is introduced by it
//   bufferUse(b)         a buffer read or written here
//   bufferDef(b)         a buffer declared here (block allocations, match buffers, DeclBuffer)
//   reducer(c)           a Reduce's combiner
//   count(n, what)       the length of the list whose elements follow
//   value(x, what)       plain data compared by value: an integer, a double, a string, an enum, a
//                        DataType or Annotations
// Lists and composite fields (regions, iteration variables, match buffers) are spelled out in
// terms of those roles by FieldVisitor; a visitor may take a whole list at once by hiding one.
#pragma once

#include <utility>

#include "tir/stmt.h"

namespace tessera::tir {

/// Base of field-list readers (CRTP): spells out lists and composite fields in terms of the basic
/// roles, and ignores the roles a reader does not define. `Self&` is `const` for readers and
/// non-const for writers, so one list serves both.
template <typename Derived>
class FieldVisitor {
 public:
  template <typename E>
  void expr(E&) {}
  template <typename S>
  void stmt(S&) {}
  template <typename B>
  void block(B&) {}
  template <typename V>
  void varDef(V&) {}
  template <typename V>
  void attrSubject(V&) {}
  template <typename B>
  void bufferUse(B&) {}
  template <typename B>
  void bufferDef(B&) {}
  template <typename C>
  void reducer(C&) {}
  void count(size_t, const char*) {}
  template <typename T>
  void value(T&, const char*) {}

  template <typename List>
  void exprs(List& es, const char* what) {
    self().count(es.size(), what);
    for (auto& e : es) self().expr(e);
  }
  template <typename List>
  void stmts(List& ss, const char* what) {
    self().count(ss.size(), what);
    for (auto& s : ss) self().stmt(s);
  }
  template <typename List>
  void bufferDefs(List& bs, const char* what) {
    self().count(bs.size(), what);
    for (auto& b : bs) self().bufferDef(b);
  }
  template <typename Region>
  void region(Region& r) {
    self().bufferUse(r.buffer);
    self().count(r.region.size(), "region rank");
    for (auto& range : r.region) {
      self().expr(range.min);
      self().expr(range.extent);
    }
  }
  template <typename List>
  void regions(List& rs, const char* what) {
    self().count(rs.size(), what);
    for (auto& r : rs) self().region(r);
  }
  /// A match buffer's source lies outside the block, so it comes before the buffer it defines.
  template <typename List>
  void matchBuffers(List& ms, const char* what) {
    self().count(ms.size(), what);
    for (auto& m : ms) {
      self().region(m.source);
      self().bufferDef(m.buffer);
    }
  }
  /// The domain is outside the variable's scope, so it comes before the definition.
  template <typename IV>
  void iterVar(IV& iv) {
    self().expr(iv.dom.min);
    self().expr(iv.dom.extent);
    self().varDef(iv.var);
    self().value(iv.type, "iter var type");
    self().value(iv.threadTag, "thread tag");
  }
  template <typename List>
  void iterVars(List& ivs, const char* what) {
    self().count(ivs.size(), what);
    for (auto& iv : ivs) self().iterVar(iv);
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

/// Calls `fn(node)` with `e` cast to its node class.
template <typename F>
decltype(auto) withExprNode(const PrimExprNode& e, F&& fn) {
  switch (e.kind) {
    case ExprKind::kIntImm:
      return fn(static_cast<const IntImmNode&>(e));
    case ExprKind::kFloatImm:
      return fn(static_cast<const FloatImmNode&>(e));
    case ExprKind::kStringImm:
      return fn(static_cast<const StringImmNode&>(e));
    case ExprKind::kVar:
      return fn(static_cast<const VarNode&>(e));
    case ExprKind::kCast:
      return fn(static_cast<const CastNode&>(e));
    case ExprKind::kBinary:
      return fn(static_cast<const BinaryNode&>(e));
    case ExprKind::kNot:
      return fn(static_cast<const NotNode&>(e));
    case ExprKind::kSelect:
      return fn(static_cast<const SelectNode&>(e));
    case ExprKind::kBufferLoad:
      return fn(static_cast<const BufferLoadNode&>(e));
    case ExprKind::kRamp:
      return fn(static_cast<const RampNode&>(e));
    case ExprKind::kBroadcast:
      return fn(static_cast<const BroadcastNode&>(e));
    case ExprKind::kLet:
      return fn(static_cast<const LetNode&>(e));
    case ExprKind::kCall:
      return fn(static_cast<const CallNode&>(e));
    case ExprKind::kReduce:
      return fn(static_cast<const ReduceNode&>(e));
  }
  __builtin_unreachable();
}

/// Calls `fn(node)` with `s` cast to its node class.
template <typename F>
decltype(auto) withStmtNode(const StmtNode& s, F&& fn) {
  switch (s.kind) {
    case StmtKind::kBufferStore:
      return fn(static_cast<const BufferStoreNode&>(s));
    case StmtKind::kEvaluate:
      return fn(static_cast<const EvaluateNode&>(s));
    case StmtKind::kLetStmt:
      return fn(static_cast<const LetStmtNode&>(s));
    case StmtKind::kAttrStmt:
      return fn(static_cast<const AttrStmtNode&>(s));
    case StmtKind::kAssertStmt:
      return fn(static_cast<const AssertStmtNode&>(s));
    case StmtKind::kIfThenElse:
      return fn(static_cast<const IfThenElseNode&>(s));
    case StmtKind::kFor:
      return fn(static_cast<const ForNode&>(s));
    case StmtKind::kSeqStmt:
      return fn(static_cast<const SeqStmtNode&>(s));
    case StmtKind::kBlock:
      return fn(static_cast<const BlockNode&>(s));
    case StmtKind::kBlockRealize:
      return fn(static_cast<const BlockRealizeNode&>(s));
    case StmtKind::kAllocate:
      return fn(static_cast<const AllocateNode&>(s));
    case StmtKind::kDeclBuffer:
      return fn(static_cast<const DeclBufferNode&>(s));
  }
  __builtin_unreachable();
}

/// Reads the fields of `node` (a node class, const or not) with `v`.
template <typename Node, typename V>
void readFields(Node& node, V& v) {
  std::remove_const_t<Node>::fields(node, v);
}

}  // namespace tessera::tir
