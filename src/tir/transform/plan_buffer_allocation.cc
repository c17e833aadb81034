// PlanAndUpdateBufferAllocationLocation: allocate each buffer as deep as possible, at the lowest
// common ancestor (LCA) of all its accesses, so that CompactBufferAllocation can shrink it to what
// one iteration of the enclosing loops touches (C of the matmul example moves under `j_0`).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

using Chain = std::vector<const StmtNode*>;  // For and Block ancestors, outermost first

// Finds, for every buffer allocated by a block, the deepest loop or block enclosing all accesses.
class LcaFinder : public IRVisitor {
 public:
  std::vector<Buffer> allocated;  // in allocation order
  std::unordered_map<const BufferNode*, Chain> lca;

 protected:
  void visitFor(const ForNode* op) override {
    chain_.push_back(op);
    IRVisitor::visitFor(op);
    chain_.pop_back();
  }
  void visitBlock(const BlockNode* op) override {
    for (const Buffer& b : op->allocBuffers) allocated.push_back(b);
    chain_.push_back(op);
    // A match_buffer view (tensorize) accesses its source buffer inside this block.
    for (const MatchBufferRegion& m : op->matchBuffers) touch(m.source.buffer.get());
    IRVisitor::visitBlock(op);
    chain_.pop_back();
  }
  void visitBufferLoad(const BufferLoadNode* op) override {
    touch(op->buffer.get());
    IRVisitor::visitBufferLoad(op);
  }
  void visitBufferStore(const BufferStoreNode* op) override {
    touch(op->buffer.get());
    IRVisitor::visitBufferStore(op);
  }

 private:
  // The LCA of all accesses so far is the longest common prefix of their ancestor chains.
  void touch(const BufferNode* buffer) {
    auto it = lca.find(buffer);
    if (it == lca.end()) {
      lca.emplace(buffer, chain_);
      return;
    }
    Chain& common = it->second;
    size_t n = 0;
    while (n < common.size() && n < chain_.size() && common[n] == chain_[n]) ++n;
    common.resize(n);
  }

  Chain chain_;
};

// Removes each moved buffer from the block that allocated it and adds it to its new owner. The
// placement is keyed by the original nodes, which the mutator visits before copying them.
class AllocationMover : public IRMutator {
 public:
  AllocationMover(std::unordered_set<const BufferNode*> moved,
                  std::unordered_map<const StmtNode*, std::vector<Buffer>> placement)
      : moved_(std::move(moved)), placement_(std::move(placement)) {}

 protected:
  Stmt visitBlock(const BlockNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitBlock(op, self);
    auto it = placement_.find(op);
    bool movesOut = std::any_of(op->allocBuffers.begin(), op->allocBuffers.end(),
                                [&](const Buffer& b) { return moved_.count(b.get()) > 0; });
    if (it == placement_.end() && !movesOut) return visited;
    auto n = copyBlock(*visited->as<BlockNode>());
    std::vector<Buffer> kept;
    for (const Buffer& b : n->allocBuffers)
      if (!moved_.count(b.get())) kept.push_back(b);
    if (it != placement_.end()) kept.insert(kept.end(), it->second.begin(), it->second.end());
    n->allocBuffers = std::move(kept);
    return n;
  }

  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitFor(op, self);
    auto it = placement_.find(op);
    if (it == placement_.end()) return visited;
    auto loop = std::make_shared<ForNode>(*visited->as<ForNode>());
    // A loop cannot own buffers: a nameless opaque block directly inside it does.
    auto block = std::make_shared<BlockNode>();
    block->body = loop->body;
    block->allocBuffers = it->second;
    arith::Analyzer analyzer;
    auto isOwn = [&](const BufferRegion& r) {
      return std::find(it->second.begin(), it->second.end(), r.buffer) != it->second.end();
    };
    for (BufferRegion& r : accessedRegions(loop->body, analyzer, AccessKind::kRead))
      if (!isOwn(r)) block->reads.push_back(std::move(r));
    for (BufferRegion& r : accessedRegions(loop->body, analyzer, AccessKind::kWrite))
      if (!isOwn(r)) block->writes.push_back(std::move(r));
    loop->body = blockRealize({}, boolImm(true), block);
    return loop;
  }

 private:
  std::unordered_set<const BufferNode*> moved_;
  std::unordered_map<const StmtNode*, std::vector<Buffer>> placement_;
};

}  // namespace

PrimFunc planAndUpdateBufferAllocationLocation(const PrimFunc& func) {
  LcaFinder finder;
  finder.visitStmt(func->body);
  std::unordered_set<const BufferNode*> moved;
  std::unordered_map<const StmtNode*, std::vector<Buffer>> placement;
  for (const Buffer& b : finder.allocated) {
    auto it = finder.lca.find(b.get());
    // A buffer nobody touches stays where it was allocated.
    if (it == finder.lca.end() || it->second.empty()) continue;
    moved.insert(b.get());
    placement[it->second.back()].push_back(b);
  }
  AllocationMover mover(std::move(moved), std::move(placement));
  return withBody(func, mover.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
