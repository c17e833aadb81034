// MergeAccStages (spec vta.md §6.1): VTA's ALU works in place in the accumulator SRAM, and
// TVM's storage rewrite gives seed 004's `res_conv`, `res_shr`, `res_max` and `res_min` one
// 784-entry region. Tessera merges the same way, but only where it is provably safe: an SRAM
// buffer B whose every write is `B[f] = g(A[f], ...)` — one element of a same-sized buffer A of
// the same scope and dtype, at the same index, and possibly other buffers (a per-channel bias) —
// and where those writes are A's only readers, takes A's storage. Chains (conv -> shr -> max ->
// min) collapse into the first buffer.
#include <unordered_map>
#include <unordered_set>

#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/structural_equal.h"
#include "tir/transform/pass_util.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using namespace tir;

bool isSram(const std::string& scope) {
  return scope.rfind("local.", 0) == 0 && scope != "local";
}

struct AllocInfo {
  DataType dtype;
  std::string scope;
  PrimExpr size;
};

// The SRAM buffers each store reads, with the indices it reads them at.
struct Reads {
  std::unordered_map<const VarNode*, std::vector<PrimExpr>> at;
};

class MergePlanner {
 public:
  explicit MergePlanner(const Stmt& body) {
    preOrderVisit(body, [&](const Stmt& s) {
      if (const auto* a = s->as<AllocateNode>())
        if (isSram(a->scope)) {
          PrimExpr size = intImm(1);
          for (const PrimExpr& e : a->extents) size = size * e;
          allocs_[a->bufferVar.get()] = {a->dtype, a->scope, size};
        }
      return true;
    });
    preOrderVisit(body, [&](const Stmt& s) {
      if (const auto* st = s->as<BufferStoreNode>()) visitStore(*st);
      return true;
    });
    postOrderVisitExprs(body, [&](const PrimExpr& e) {
      if (const auto* l = e->as<BufferLoadNode>()) ++loadCount_[l->buffer->data.get()];
    });
  }

  // Each buffer merged into its root.
  std::unordered_map<const VarNode*, Var> plan() {
    std::unordered_map<const VarNode*, Var> into;
    for (const auto& [b, source] : candidate_) {
      if (!source || loadCount_[source.get()] != readsIn_[source.get()]) continue;
      Var root = source;
      while (into.count(root.get())) root = into.at(root.get());
      into[b] = root;
    }
    // Resolve chains merged out of order.
    for (auto& [b, root] : into)
      while (into.count(root.get())) root = into.at(root.get());
    return into;
  }

 private:
  void visitStore(const BufferStoreNode& st) {
    const VarNode* b = st.buffer->data.get();
    if (!allocs_.count(b) || st.indices.size() != 1) return;
    std::vector<const BufferLoadNode*> loads;
    postOrderVisitExpr(st.value, [&](const PrimExpr& e) {
      if (const auto* l = e->as<BufferLoadNode>()) loads.push_back(l);
    });
    // The first load of a same-sized stage of this scope at the stored index is the stage this
    // one is computed from (for a sum of two such stages, `A + B`, A: the ALU then adds B into A
    // in place); other loads (a per-channel operand, B) may read anything else.
    Var source;
    int matches = 0;
    for (const BufferLoadNode* l : loads) {
      auto it = allocs_.find(l->buffer->data.get());
      if (it == allocs_.end() || l->buffer->data.get() == b || l->indices.size() != 1 ||
          !structuralEqual(l->indices[0], st.indices[0]) || it->second.dtype != allocs_[b].dtype ||
          it->second.scope != allocs_[b].scope ||
          !structuralEqual(it->second.size, allocs_[b].size))
        continue;
      if (matches++ == 0) source = l->buffer->data;
    }
    const bool ok = matches >= 1;
    auto [entry, fresh] = candidate_.try_emplace(b, source);
    if (!ok || (!fresh && entry->second.get() != source.get())) entry->second = Var();
    if (ok) ++readsIn_[source.get()];
  }

  std::unordered_map<const VarNode*, AllocInfo> allocs_;
  std::unordered_map<const VarNode*, Var> candidate_;  // null: not mergeable
  std::unordered_map<const VarNode*, int> readsIn_;    // loads of A inside candidate stores
  std::unordered_map<const VarNode*, int> loadCount_;
};

class StageMerger : public IRMutator {
 public:
  explicit StageMerger(std::unordered_map<const VarNode*, Var> into) : into_(std::move(into)) {}

 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = into_.find(op);
    return it == into_.end() ? self : PrimExpr(it->second);
  }
  Buffer visitBuffer(const Buffer& b) override {
    auto it = into_.find(b->data.get());
    if (it == into_.end()) return b;
    auto n = std::make_shared<BufferNode>(*b);
    n->data = it->second;
    return n;
  }
  Stmt visitOtherStmt(const Stmt& self) override {
    if (const auto* a = self->as<AllocateNode>(); a && into_.count(a->bufferVar.get()))
      return visitStmt(a->body);
    return IRMutator::visitOtherStmt(self);
  }

 private:
  std::unordered_map<const VarNode*, Var> into_;
};

}  // namespace

PrimFunc mergeAccStages(const PrimFunc& func) {
  MergePlanner planner(func->body);
  StageMerger merger(planner.plan());
  return tir::transform::withBody(func, merger.visitStmt(func->body));
}

}  // namespace tessera::vta
