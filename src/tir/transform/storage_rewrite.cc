// StorageRewrite (allocation hoisting): an allocation inside a serial loop is made again on every
// iteration although no iteration can rely on what a previous one left there (the memory starts
// undefined). It is therefore hoisted to its attach scope: the body of the closest enclosing
// parallel loop (each task needs its own copy) or thread scope, or the function body. An allocation
// whose size depends on a variable bound on the way stays where it is. The DeclBuffer stays at the
// original place. Reuse of freed allocations is not done.
#include <unordered_set>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

struct Hoisted {
  Var bufferVar;
  DataType dtype;
  std::vector<PrimExpr> extents;
  std::string scope;
};

class AllocationHoister : public IRMutator {
 public:
  // The function body is the outermost attach scope.
  Stmt run(const Stmt& body) {
    return attachScope([&] { return visitStmt(body); });
  }

 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    if (op->forKind == ForKind::kParallel) {
      auto n = std::make_shared<ForNode>(*op);
      n->body = attachScope([&] { return visitStmt(op->body); });
      return n;
    }
    boundSinceScope_.back().insert(op->loopVar.get());
    return IRMutator::visitFor(op, self);
  }

  Stmt visitOtherStmt(const Stmt& s) override {
    if (const auto* attr = s->as<AttrStmtNode>(); attr && attr->key == "thread_extent") {
      return attrStmt(attr->node, attr->key, attr->value,
                      attachScope([&] { return visitStmt(attr->body); }));
    }
    if (const auto* let = s->as<LetStmtNode>()) boundSinceScope_.back().insert(let->var.get());
    const auto* op = s->as<AllocateNode>();
    if (!op || !canHoist(op)) return IRMutator::visitOtherStmt(s);
    hoisted_.back().push_back({op->bufferVar, op->dtype, op->extents, op->scope});
    return visitStmt(op->body);
  }

 private:
  template <typename F>
  Stmt attachScope(F visitBody) {
    hoisted_.emplace_back();
    boundSinceScope_.emplace_back();
    Stmt body = visitBody();
    std::vector<Hoisted> allocs = std::move(hoisted_.back());
    hoisted_.pop_back();
    boundSinceScope_.pop_back();
    for (auto it = allocs.rbegin(); it != allocs.rend(); ++it)
      body = allocate(it->bufferVar, it->dtype, it->extents, it->scope, body);
    return body;
  }

  // Hoisting only helps when a loop lies between the scope and the allocation, and is only valid
  // when the size does not use anything bound in between.
  bool canHoist(const AllocateNode* op) const {
    const auto& bound = boundSinceScope_.back();
    if (bound.empty()) return false;
    for (const PrimExpr& e : op->extents) {
      bool usesInner = false;
      postOrderVisitExpr(e, [&](const PrimExpr& x) {
        if (x->kind == ExprKind::kVar && bound.count(x->as<VarNode>())) usesInner = true;
      });
      if (usesInner) return false;
    }
    return true;
  }

  std::vector<std::vector<Hoisted>> hoisted_;
  std::vector<std::unordered_set<const VarNode*>> boundSinceScope_;
};

}  // namespace

PrimFunc storageRewrite(const PrimFunc& func) {
  AllocationHoister hoister;
  return withBody(func, hoister.run(func->body));
}

}  // namespace tessera::tir::transform
