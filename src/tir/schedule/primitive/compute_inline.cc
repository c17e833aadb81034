// compute_inline and reverse_compute_inline (specs/tir_relax.md §3.4): fold a block into its
// consumers (resp. a consumer into its producer) by substituting the stored value for the loads.
#include <unordered_set>

#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/primitive/block_scope.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kComputeInlineInst[] = "ComputeInline";
constexpr char kReverseComputeInlineInst[] = "ReverseComputeInline";
}  // namespace

namespace {

constexpr const char* kInline = "compute-inline";
constexpr const char* kReverseInline = "reverse-compute-inline";

// Whether every index is a distinct iter var of `block`.
bool indicesAreDistinctIterVars(const std::vector<PrimExpr>& indices, const BlockNode* block) {
  std::unordered_set<const VarNode*> seen;
  for (const PrimExpr& i : indices) {
    const auto* v = i->as<VarNode>();
    if (!v || !seen.insert(v).second) return false;
    bool isIter = false;
    for (const IterVar& iv : block->iterVars) isIter = isIter || iv.var.get() == v;
    if (!isIter) return false;
  }
  return true;
}

bool usesOnly(const PrimExpr& e, const std::vector<PrimExpr>& allowed) {
  for (const VarNode* v : varsOf(e)) {
    bool ok = false;
    for (const PrimExpr& a : allowed) ok = ok || a.get() == v;
    if (!ok) return false;
  }
  return true;
}

// Replaces loads of `buffer` by `value` with the store's index vars bound to the load's indices,
// and recomputes the reads of every block that read `buffer`.
class LoadInliner : public IRMutator {
 public:
  LoadInliner(const BufferNode* buffer, std::vector<PrimExpr> vars, PrimExpr value)
      : buffer_(buffer), vars_(std::move(vars)), value_(std::move(value)) {}

 protected:
  PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) override {
    PrimExpr e = IRMutator::visitBufferLoad(op, self);
    const auto* load = e->as<BufferLoadNode>();
    if (load->buffer.get() != buffer_) return e;
    VarMap map;
    for (size_t i = 0; i < vars_.size(); ++i) map[vars_[i]->as<VarNode>()] = load->indices[i];
    return substitute(value_, map);
  }
  Stmt visitBlock(const BlockNode* op, const Stmt& self) override {
    Stmt s = IRMutator::visitBlock(op, self);
    if (!readsBuffer(op, buffer_)) return s;
    auto n = copyBlock(*s->as<BlockNode>());
    n->reads = recomputeReads(n.get());
    return n;
  }

 private:
  const BufferNode* buffer_;
  std::vector<PrimExpr> vars_;
  PrimExpr value_;
};

void checkNotOnlyLeaf(const StmtPath& path, const char* primitive) {
  if (path.scopeIndex() < 0) throwScheduleError(primitive, "the root block cannot be inlined");
  if (realizesUnder(path.chain[path.scopeIndex()]).size() <= 1)
    throwScheduleError(primitive, "the block '" + path.stmt()->as<BlockNode>()->name +
                                      "' is the only leaf in its scope and cannot be removed");
}

}  // namespace

PrimFunc computeInline(const PrimFunc& f, uint64_t blockId) {
  StmtPath path = requireBlockPath(f, blockId, kInline);
  checkNotOnlyLeaf(path, kInline);
  const auto* block = path.stmt()->as<BlockNode>();
  if (!isCompleteBlock(block))
    throwScheduleError(kInline, "the block '" + block->name +
                                    "' is not a complete block (only spatial iter vars, not "
                                    "reading what it writes)");
  if (block->writes.size() != 1)
    throwScheduleError(kInline, "the block '" + block->name + "' must write exactly one buffer");
  const auto* store = block->body->as<BufferStoreNode>();
  if (!store || !indicesAreDistinctIterVars(store->indices, block) ||
      !usesOnly(store->value, store->indices))
    throwScheduleError(kInline, "the body of the inlined block '" + block->name +
                                    "' should be in form of 'A[i, j, k, ...] = f(i, j, k, ...)', "
                                    "where the indices on the left are distinct atomic variables "
                                    "and f uses no other variable");
  if (!allocatingBlock(path, store->buffer.get()))
    throwScheduleError(kInline, "the block '" + block->name + "' is an output block: buffer '" +
                                    store->buffer->name + "' is not allocated in the function");
  Stmt body = Schedule::Impl::replaceInBody(removalPath(path), nullptr);
  LoadInliner inliner(store->buffer.get(), store->indices, store->value);
  body = inliner.visitStmt(body);
  return withBody(f, dropUnusedAllocation(body, store->buffer.get()));
}

PrimFunc reverseComputeInline(const PrimFunc& f, uint64_t blockId) {
  StmtPath path = requireBlockPath(f, blockId, kReverseInline);
  checkNotOnlyLeaf(path, kReverseInline);
  const auto* consumer = path.stmt()->as<BlockNode>();
  if (!isCompleteBlock(consumer) || consumer->writes.size() != 1)
    throwScheduleError(kReverseInline, "the block '" + consumer->name +
                                           "' must be a complete block writing one buffer");
  const Stmt& scope = path.chain[path.scopeIndex()];
  std::vector<const BlockRealizeNode*> producers = producersIn(scope, consumer);
  const BlockRealizeNode* producer = producers.size() == 1 ? producers[0] : nullptr;
  if (!producer || !isCompleteBlock(producer->block.get()) || producer->block->writes.size() != 1 ||
      consumersIn(scope, producer->block.get()).size() != 1)
    throwScheduleError(kReverseInline,
                       "The consumer block " + consumer->name +
                           " to be inlined is required to have only a single producer block, "
                           "and the producer block should be a complete block who has only a "
                           "single consumer");
  const auto* pstore = producer->block->body->as<BufferStoreNode>();
  const auto* cstore = consumer->body->as<BufferStoreNode>();
  if (!pstore || !cstore || !indicesAreDistinctIterVars(pstore->indices, producer->block.get()))
    throwScheduleError(kReverseInline,
                       "the producer and the consumer bodies must be single stores, the "
                       "producer's indices distinct atomic iter vars");
  const BufferNode* inlined = pstore->buffer.get();
  if (!allocatingBlock(path, inlined))
    throwScheduleError(kReverseInline, "the producer writes '" + pstore->buffer->name +
                                           "', which is not allocated in the function");
  if (!isOne(realizeAt(path)->predicate))
    throwScheduleError(kReverseInline, "the block '" + consumer->name + "' has a predicate");
  // Every load of the inlined buffer must use the same distinct iter vars; they are mapped to
  // the producer's store indices.
  std::vector<PrimExpr> loadVars;
  bool ok = true;
  postOrderVisitExpr(cstore->value, [&](const PrimExpr& e) {
    const auto* l = e->as<BufferLoadNode>();
    if (!l || l->buffer.get() != inlined) return;
    if (!indicesAreDistinctIterVars(l->indices, consumer)) ok = false;
    if (loadVars.empty()) loadVars = l->indices;
    for (size_t i = 0; ok && i < loadVars.size(); ++i) ok = loadVars[i] == l->indices[i];
  });
  if (!ok || loadVars.empty())
    throwScheduleError(kReverseInline, "the loads of '" + pstore->buffer->name + "' in block '" +
                                           consumer->name +
                                           "' must all use the same distinct atomic iter vars");
  for (const PrimExpr& i : cstore->indices)
    if (!usesOnly(i, loadVars))
      throwScheduleError(kReverseInline, "the store indices of block '" + consumer->name +
                                             "' use iter vars the inlined buffer does not");
  if (!usesOnly(cstore->value, loadVars))
    throwScheduleError(kReverseInline, "the value of block '" + consumer->name +
                                           "' uses iter vars the inlined buffer does not");
  VarMap toProducer;
  for (size_t i = 0; i < loadVars.size(); ++i)
    toProducer[loadVars[i]->as<VarNode>()] = pstore->indices[i];
  LoadInliner inliner(inlined, pstore->indices, pstore->value);
  PrimExpr value = inliner.visitExpr(substitute(cstore->value, toProducer));
  // The substitution above already put the producer's indices in the loads, so the inliner maps
  // them back onto the producer's own vars: identity for the producer's value.
  std::vector<PrimExpr> indices;
  for (const PrimExpr& i : cstore->indices) indices.push_back(substitute(i, toProducer));
  auto merged = copyBlock(*producer->block);
  merged->body = bufferStore(cstore->buffer, value, indices);
  merged->writes.clear();
  for (const BufferRegion& w : consumer->writes) {
    BufferRegion r{w.buffer, {}};
    for (const Range& rg : w.region)
      r.region.push_back({substitute(rg.min, toProducer), substitute(rg.extent, toProducer)});
    merged->writes.push_back(r);
  }
  merged->reads = recomputeReads(merged.get());
  auto ppath = findBlockPath(f->body, producer->block->id);
  Stmt body = Schedule::Impl::replaceInBody(*ppath, merged);
  auto cpath = findBlockPath(body, consumer->id);
  body = Schedule::Impl::replaceInBody(removalPath(*cpath), nullptr);
  return withBody(f, dropUnusedAllocation(body, inlined));
}

// --- the Schedule method: resolve the RVs, run the primitive, commit, record ------------------

void Schedule::computeInline(const BlockRV& block) {
  Impl& s = *impl_;
  s.commit(tir::computeInline(s.func("compute-inline"), blockIdOf(s, "compute-inline", block)));
  s.record({.kind = kComputeInlineInst, .inputs = {block}});
}

void Schedule::reverseComputeInline(const BlockRV& block) {
  Impl& s = *impl_;
  const char* p = "reverse-compute-inline";
  s.commit(tir::reverseComputeInline(s.func(p), blockIdOf(s, p, block)));
  s.record({.kind = kReverseComputeInlineInst, .inputs = {block}});
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> computeInlineKinds() {
  using namespace kinds;
  return {
      blockOnlyRow(kComputeInlineInst, "compute_inline", &Schedule::computeInline),
      blockOnlyRow(kReverseComputeInlineInst, "reverse_compute_inline",
                   &Schedule::reverseComputeInline),
  };
}

}  // namespace tessera::tir
