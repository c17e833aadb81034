// deepEqual: two expressions compared node by node through their field lists, with variables and
// buffers by identity. Simplifiers call it often, so it allocates nothing: the fields of one node
// are noted as addresses, then the other node's fields are compared against them in order.
#include <array>
#include <cmath>

#include "support/check.h"
#include "tir/buffer.h"
#include "tir/node_fields.h"

namespace tessera::tir {

namespace {

// Expression nodes have at most four fields (lists count as one), so the notes fit on the stack.
constexpr size_t kMaxFields = 8;

class NoteFields : public FieldVisitor<NoteFields> {
 public:
  std::array<const void*, kMaxFields> at{};
  size_t size = 0;

  void expr(const PrimExpr& e) { note(&e); }
  void exprs(const std::vector<PrimExpr>& es, const char*) { note(&es); }
  void varDef(const Var& v) { note(&v); }
  void bufferUse(const Buffer& b) { note(&b); }
  template <typename T>
  void value(const T& x, const char*) {
    note(&x);
  }

 private:
  void note(const void* field) {
    TS_CHECK(size < kMaxFields) << "deepEqual: an expression node with too many fields";
    at[size++] = field;
  }
};

// Reads the other node's fields in the same order; `equal` turns false at the first difference.
class CompareFields : public FieldVisitor<CompareFields> {
 public:
  explicit CompareFields(const NoteFields& notes) : notes_(notes) {}
  bool equal = true;

  void expr(const PrimExpr& e) {
    const PrimExpr& theirs = other(e);
    if (equal) check(deepEqual(theirs, e));
  }
  void exprs(const std::vector<PrimExpr>& es, const char*) {
    const auto& theirs = other(es);
    if (!equal || !check(theirs.size() == es.size())) return;
    for (size_t i = 0; i < es.size() && equal; ++i) check(deepEqual(theirs[i], es[i]));
  }
  void varDef(const Var& v) { check(other(v) == v); }
  void bufferUse(const Buffer& b) { check(other(b) == b); }
  void value(const double& x, const char*) {
    const double y = other(x);
    check(x == y || (std::isnan(x) && std::isnan(y)));
  }
  template <typename T>
  void value(const T& x, const char*) {
    check(other(x) == x);
  }

 private:
  // The same field of the noted node: both nodes have the same class, so the same position holds
  // a field of the same type.
  template <typename T>
  const T& other(const T&) {
    return *static_cast<const T*>(notes_.at[next_++]);
  }
  bool check(bool same) {
    equal = equal && same;
    return equal;
  }
  const NoteFields& notes_;
  size_t next_ = 0;
};

}  // namespace

bool deepEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
  // Variables are equal only to themselves, and so are reductions (their combiners bind
  // variables of their own).
  if (a->kind == ExprKind::kVar || a->kind == ExprKind::kReduce) return false;
  return withExprNode(*a, [&](const auto& x) {
    const auto& y = static_cast<decltype(x)>(*b);
    NoteFields notes;
    readFields(x, notes);
    CompareFields compare(notes);
    readFields(y, compare);
    return compare.equal;
  });
}

}  // namespace tessera::tir
