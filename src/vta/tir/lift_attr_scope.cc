// LiftAttrScope (spec vta.md §6.5, TVM's lift_attr_scope.cc): moves every `key` attribute as far
// out as it can go. An attribute passes up through loops, lets and buffer declarations; a
// sequence whose statements all carry the same value gets one attribute around the whole
// sequence, otherwise runs of consecutive statements with the same value are grouped under one;
// an allocation stops it (the attribute is put back just inside the allocation). Attributes are
// the same when their subjects have the same name (every VTA scope is about the `vta` axis,
// which tensorize copies per site) and their values are the same (see Lifted::same).
#include "vta/tir/passes.h"

#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/transform/pass_util.h"

namespace tessera::vta {

namespace {

using namespace tir;

struct Lifted {
  Var node;  // null: no attribute pending
  PrimExpr value;
  // TVM's ValueSame: integer values compare by value, anything else only as the same object, so
  // queue scopes (`coproc_scope = 2`) merge while each micro-op scope (a string naming the push
  // function, one object per site) stays one kernel.
  bool same(const Lifted& o) const {
    if (!node || !o.node || node->name != o.node->name) return false;
    if (value == o.value) return true;
    const int64_t *a = asConstInt(value), *b = asConstInt(o.value);
    return a && b && *a == *b;
  }
};

class AttrScopeLifter : public IRMutator {
 public:
  explicit AttrScopeLifter(std::string key) : key_(std::move(key)) {}

  Stmt lift(const Stmt& body) {
    Stmt s = visitStmt(body);
    return wrap(pending_, s);
  }

 protected:
  Stmt visitSeqStmt(const SeqStmtNode* op, const Stmt&) override {
    std::vector<Stmt> stmts;
    std::vector<Lifted> attrs;
    for (const Stmt& child : op->seq) {
      pending_ = {};
      stmts.push_back(visitStmt(child));
      attrs.push_back(pending_);
    }
    pending_ = {};
    bool allSame = true;
    for (const Lifted& a : attrs) allSame = allSame && a.same(attrs[0]);
    if (allSame && attrs[0].node) {
      pending_ = attrs[0];
      return seq(std::move(stmts));
    }
    std::vector<Stmt> grouped;
    for (size_t begin = 0, end = 0; begin < stmts.size(); begin = end) {
      end = begin + 1;
      while (end < stmts.size() && attrs[end].same(attrs[begin])) ++end;
      std::vector<Stmt> run(stmts.begin() + begin, stmts.begin() + end);
      grouped.push_back(wrap(attrs[begin], seq(std::move(run))));
    }
    return seq(std::move(grouped));
  }

  Stmt visitOtherStmt(const Stmt& self) override {
    if (const auto* attr = self->as<AttrStmtNode>(); attr && attr->key == key_) {
      Stmt body = visitStmt(attr->body);
      pending_ = {attr->node, attr->value};
      return body;
    }
    if (const auto* alloc = self->as<AllocateNode>()) {
      Stmt body = visitStmt(alloc->body);
      body = wrap(pending_, body);
      pending_ = {};
      return allocate(alloc->bufferVar, alloc->dtype, alloc->extents, alloc->scope, body);
    }
    if (const auto* branch = self->as<IfThenElseNode>()) {
      pending_ = {};
      Stmt thenCase = visitStmt(branch->thenCase);
      Lifted thenAttr = pending_;
      if (!branch->elseCase) return ifThenElse(branch->condition, thenCase);
      pending_ = {};
      Stmt elseCase = visitStmt(branch->elseCase);
      Lifted elseAttr = pending_;
      if (thenAttr.same(elseAttr)) {
        pending_ = thenAttr;
        return ifThenElse(branch->condition, thenCase, elseCase);
      }
      pending_ = {};
      return ifThenElse(branch->condition, wrap(thenAttr, thenCase), wrap(elseAttr, elseCase));
    }
    return IRMutator::visitOtherStmt(self);
  }

 private:
  Stmt wrap(const Lifted& a, Stmt body) const {
    return a.node ? attrStmt(a.node, key_, a.value, std::move(body)) : body;
  }

  const std::string key_;
  Lifted pending_;
};

}  // namespace

PrimFunc liftAttrScope(const PrimFunc& func, const std::string& key) {
  AttrScopeLifter lifter(key);
  return tir::transform::withBody(func, lifter.lift(func->body));
}

}  // namespace tessera::vta
