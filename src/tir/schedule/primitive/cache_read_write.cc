// cache_read, cache_write, set_scope and storage_align (specs/tir_relax.md §3.5): stage a buffer
// through a copy in another storage scope, or change/annotate how a buffer is stored.
#include <algorithm>

#include "support/check.h"
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/primitive/block_scope.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kCacheReadInst[] = "CacheRead";
constexpr char kCacheWriteInst[] = "CacheWrite";
constexpr char kSetScopeInst[] = "SetScope";
constexpr char kStorageAlignInst[] = "StorageAlign";
}  // namespace

namespace {

bool containsBlockId(const Stmt& stmt, uint64_t id) {
  return findBlockPath(stmt, id).has_value();
}

// The deepest loop or block enclosing every block in `ids` (all inside `scope`), as a path from
// the function body.
StmtPath lowestCommonAncestor(const Stmt& body, const StmtPath& scope,
                              const std::vector<uint64_t>& ids) {
  std::vector<Stmt> common;
  for (size_t n = 0; n < ids.size(); ++n) {
    StmtPath p = *findBlockPath(scope.stmt(), ids[n]);
    p.chain.resize(p.chain.size() - 2);  // drop the realize and the block
    if (n == 0) {
      common = p.chain;
      continue;
    }
    size_t k = 0;
    while (k < common.size() && k < p.chain.size() && common[k] == p.chain[k]) ++k;
    common.resize(k);
  }
  while (!common.empty() && common.back()->kind != StmtKind::kFor &&
         common.back()->kind != StmtKind::kBlock)
    common.pop_back();
  if (common.size() <= 1) return *findBlockPath(body, scope.stmt()->as<BlockNode>()->id);
  return *findLoopPath(body, common.back()->as<ForNode>()->loopVar.get());
}

// Relaxes a block's access region over the loops between `ancestor` and the block.
std::vector<Range> regionBelow(const Stmt& ancestor, uint64_t blockId,
                               const std::vector<Range>& region, arith::Analyzer& analyzer) {
  StmtPath p = *findBlockPath(ancestor, blockId);
  std::vector<For> loops;
  for (size_t i = 1; i < p.chain.size(); ++i)
    if (p.chain[i]->kind == StmtKind::kFor)
      loops.push_back(std::static_pointer_cast<const ForNode>(p.chain[i]));
  return relaxRegion(region, realizeAt(p), loopDomains(loops), analyzer);
}

Buffer cacheBuffer(const Buffer& buffer, const std::string& scope) {
  auto n = std::make_shared<BufferNode>(*buffer);
  n->name = buffer->name + "_" + scope;
  n->data = makeVar(n->name, DataType::handle());
  n->scope = scope;
  n->strides.clear();
  n->elemOffset = nullptr;
  return n;
}

// Loops `ax0, ...` over `region` around a block `name` copying `src` into `dst` elementwise with
// iter vars `v0, ...` spanning the buffer's shape.
Stmt copyNest(const std::string& name, const Buffer& src, const Buffer& dst,
              const std::vector<Range>& region, uint64_t* blockId) {
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  std::vector<Var> loopVars;
  std::vector<PrimExpr> extents, bindings, indices;
  arith::Analyzer analyzer;
  for (size_t d = 0; d < region.size(); ++d) {
    DataType t = src->shape[d]->dtype;
    Var v = makeVar("v" + std::to_string(d), t);
    Var ax = makeVar("ax" + std::to_string(d), t);
    block->iterVars.push_back({{intImm(0, t), src->shape[d]}, v, IterVarType::kDataPar, ""});
    loopVars.push_back(ax);
    extents.push_back(region[d].extent);
    bindings.push_back(analyzer.simplify(region[d].min + PrimExpr(ax)));
    indices.push_back(v);
  }
  std::vector<Range> point;
  for (const PrimExpr& i : indices) point.push_back({i, intImm(1, i->dtype)});
  block->reads = {{src, point}};
  block->writes = {{dst, point}};
  block->body = bufferStore(dst, bufferLoad(src, indices), indices);
  *blockId = block->id;
  return loopNest(loopVars, extents, blockRealize(bindings, boolImm(true), block));
}

// `body` with `nest` inserted into the body of the loop/block at the end of `at`, at `pos`.
Stmt insertAt(const StmtPath& at, int pos, const Stmt& nest) {
  if (const auto* loop = at.stmt()->as<ForNode>()) {
    std::vector<Stmt> items = bodyItems(loop->body);
    items.insert(items.begin() + pos, nest);
    auto n = std::make_shared<ForNode>(*loop);
    n->body = seq(std::move(items));
    return Schedule::Impl::replaceInBody(at, n);
  }
  auto n = copyBlock(*at.stmt()->as<BlockNode>());
  std::vector<Stmt> items = bodyItems(n->body);
  items.insert(items.begin() + pos, nest);
  n->body = seq(std::move(items));
  return Schedule::Impl::replaceInBody(at, n);
}

Stmt addAllocation(const Stmt& body, uint64_t scopeId, const Buffer& buffer) {
  StmtPath p = *findBlockPath(body, scopeId);
  auto n = copyBlock(*p.stmt()->as<BlockNode>());
  n->allocBuffers.push_back(buffer);
  return Schedule::Impl::replaceInBody(p, n);
}

Stmt redirect(const Stmt& body, uint64_t blockId, const Buffer& from, const Buffer& to) {
  StmtPath p = *findBlockPath(body, blockId);
  return Schedule::Impl::replaceInBody(p, replaceBuffers(p.stmt(), {{from.get(), to}}));
}

void checkIndex(const char* prim, const BlockNode* block, int index, size_t count,
                const char* what) {
  if (index < 0 || static_cast<size_t>(index) >= count)
    throwScheduleError(prim, std::string(what) + " " + std::to_string(index) +
                                 " is out of range: block '" + block->name + "' has " +
                                 std::to_string(count));
}

std::vector<uint64_t> resolveConsumers(const char* prim, const Stmt& scope,
                                       const std::vector<uint64_t>& requested, const Buffer& buffer,
                                       uint64_t exclude) {
  std::vector<uint64_t> out;
  for (const BlockRealizeNode* r : realizesUnder(scope)) {
    if (r->block->id == exclude || !readsBuffer(r->block.get(), buffer.get())) continue;
    if (requested.empty() || std::count(requested.begin(), requested.end(), r->block->id))
      out.push_back(r->block->id);
  }
  for (uint64_t id : requested)
    if (!std::count(out.begin(), out.end(), id))
      throwScheduleError(
          prim, "a requested consumer block does not read '" + buffer->name + "' in this scope");
  return out;
}

}  // namespace

PrimFuncWithBlock cacheRead(const PrimFunc& f, uint64_t blockId, int readIndex,
                            const std::string& scope, const std::vector<uint64_t>& consumers) {
  const char* prim = "cache-read";
  StmtPath path = requireBlockPath(f, blockId, prim);
  const auto* block = path.stmt()->as<BlockNode>();
  checkIndex(prim, block, readIndex, block->reads.size(), "read_buffer_index");
  if (path.scopeIndex() < 0) throwScheduleError(prim, "the root block has no scope to cache in");
  Buffer buffer = block->reads[readIndex].buffer;
  StmtPath scopePath;
  scopePath.chain.assign(path.chain.begin(), path.chain.begin() + path.scopeIndex() + 1);
  std::vector<const BlockRealizeNode*> writers;
  for (const BlockRealizeNode* r : realizesUnder(scopePath.stmt()))
    if (writesBuffer(r->block.get(), buffer.get())) writers.push_back(r);
  if (writers.size() > 1)
    throwScheduleError(prim, "buffer '" + buffer->name + "' has " + std::to_string(writers.size()) +
                                 " writers in the scope");
  std::vector<uint64_t> readers = resolveConsumers(prim, scopePath.stmt(), consumers, buffer, 0);
  std::vector<uint64_t> anchors = readers;
  if (!writers.empty()) anchors.push_back(writers[0]->block->id);
  // A lone reader (an input read once) is staged at the start of the scope, as a whole.
  StmtPath lca =
      anchors.size() <= 1 ? scopePath : lowestCommonAncestor(f->body, scopePath, anchors);

  // The copied region: what the writer produces, or (an input) what the readers read.
  arith::Analyzer analyzer;
  std::vector<Range> region;
  if (!writers.empty()) {
    region = regionBelow(lca.stmt(), writers[0]->block->id, writers[0]->block->writes[0].region,
                         analyzer);
    for (const BufferRegion& w : writers[0]->block->writes)
      if (w.buffer == buffer)
        region = regionBelow(lca.stmt(), writers[0]->block->id, w.region, analyzer);
  } else {
    for (uint64_t id : readers) {
      const BlockNode* reader = findBlockPath(lca.stmt(), id)->stmt()->as<BlockNode>();
      for (const BufferRegion& r : reader->reads) {
        if (r.buffer != buffer) continue;
        std::vector<Range> one = regionBelow(lca.stmt(), id, r.region, analyzer);
        region = region.empty() ? one : unionRegion(region, one, analyzer);
      }
    }
  }
  Buffer cache = cacheBuffer(buffer, scope);
  PrimFuncWithBlock out;
  Stmt nest = copyNest(cache->name, buffer, cache, region, &out.blockId);

  Stmt body = f->body;
  for (uint64_t id : readers) body = redirect(body, id, buffer, cache);
  const Stmt& lcaStmt = lca.stmt();
  StmtPath at = lcaStmt->kind == StmtKind::kFor
                    ? *findLoopPath(body, lcaStmt->as<ForNode>()->loopVar.get())
                    : *findBlockPath(body, lcaStmt->as<BlockNode>()->id);
  std::vector<Stmt> items =
      bodyItems(at.stmt()->kind == StmtKind::kFor ? at.stmt()->as<ForNode>()->body
                                                  : at.stmt()->as<BlockNode>()->body);
  int pos = 0;
  for (int i = 0; i < static_cast<int>(items.size()); ++i)
    if (!writers.empty() && containsBlockId(items[i], writers[0]->block->id)) pos = i + 1;
  body = insertAt(at, pos, nest);
  body = addAllocation(body, scopePath.stmt()->as<BlockNode>()->id, cache);
  out.func = withBody(f, body);
  return out;
}

PrimFuncWithBlock cacheWrite(const PrimFunc& f, uint64_t blockId, int writeIndex,
                             const std::string& scope, const std::vector<uint64_t>& consumers) {
  const char* prim = "cache-write";
  StmtPath path = requireBlockPath(f, blockId, prim);
  const auto* block = path.stmt()->as<BlockNode>();
  checkIndex(prim, block, writeIndex, block->writes.size(), "write_buffer_index");
  if (path.scopeIndex() < 0) throwScheduleError(prim, "the root block has no scope to cache in");
  Buffer buffer = block->writes[writeIndex].buffer;
  StmtPath scopePath;
  scopePath.chain.assign(path.chain.begin(), path.chain.begin() + path.scopeIndex() + 1);
  for (const BlockRealizeNode* r : realizesUnder(scopePath.stmt()))
    if (r->block.get() != block && writesBuffer(r->block.get(), buffer.get()))
      throwScheduleError(prim, "block '" + block->name + "' is not the only writer of '" +
                                   buffer->name + "' (block '" + r->block->name +
                                   "' writes it too)");
  std::vector<uint64_t> direct =
      resolveConsumers(prim, scopePath.stmt(), consumers, buffer, block->id);
  if (consumers.empty()) direct.clear();
  std::vector<uint64_t> anchors = resolveConsumers(prim, scopePath.stmt(), {}, buffer, block->id);
  anchors.push_back(block->id);
  StmtPath lca =
      anchors.size() == 1 ? scopePath : lowestCommonAncestor(f->body, scopePath, anchors);
  arith::Analyzer analyzer;
  std::vector<Range> region =
      regionBelow(lca.stmt(), block->id, block->writes[writeIndex].region, analyzer);
  Buffer cache = cacheBuffer(buffer, scope);
  PrimFuncWithBlock out;
  Stmt nest = copyNest(cache->name, cache, buffer, region, &out.blockId);

  Stmt body = redirect(f->body, block->id, buffer, cache);
  for (uint64_t id : direct) body = redirect(body, id, buffer, cache);
  const Stmt& lcaStmt = lca.stmt();
  StmtPath at = lcaStmt->kind == StmtKind::kFor
                    ? *findLoopPath(body, lcaStmt->as<ForNode>()->loopVar.get())
                    : *findBlockPath(body, lcaStmt->as<BlockNode>()->id);
  std::vector<Stmt> items =
      bodyItems(at.stmt()->kind == StmtKind::kFor ? at.stmt()->as<ForNode>()->body
                                                  : at.stmt()->as<BlockNode>()->body);
  int pos = 0;
  for (int i = 0; i < static_cast<int>(items.size()); ++i)
    if (containsBlockId(items[i], block->id)) pos = i + 1;
  body = insertAt(at, pos, nest);
  body = addAllocation(body, scopePath.stmt()->as<BlockNode>()->id, cache);
  out.func = withBody(f, body);
  return out;
}

PrimFunc setScope(const PrimFunc& f, uint64_t blockId, int bufferIndex, const std::string& scope) {
  const char* prim = "set-scope";
  StmtPath path = requireBlockPath(f, blockId, prim);
  const auto* block = path.stmt()->as<BlockNode>();
  checkIndex(prim, block, bufferIndex, block->writes.size(), "buffer_index");
  Buffer buffer = block->writes[bufferIndex].buffer;
  if (!allocatingBlock(path, buffer.get()))
    throwScheduleError(prim, "buffer '" + buffer->name +
                                 "' is a function parameter; only allocated buffers can change "
                                 "scope");
  if (buffer->scope == scope) return f;
  auto rescoped = [&](const Buffer& b) {
    auto n = std::make_shared<BufferNode>(*b);
    n->scope = scope;
    return Buffer(n);
  };
  std::unordered_map<const BufferNode*, Buffer> map{{buffer.get(), rescoped(buffer)}};
  // Views of the buffer (match buffers) live in the same memory, so they change scope too.
  preOrderVisit(f->body, [&](const Stmt& s) {
    if (const auto* b = s->as<BlockNode>())
      for (const MatchBufferRegion& m : b->matchBuffers)
        if (m.source.buffer == buffer) map[m.buffer.get()] = rescoped(m.buffer);
    return true;
  });
  return withBody(f, replaceBuffers(f->body, map));
}

PrimFunc storageAlign(const PrimFunc& f, uint64_t blockId, int bufferIndex, int axis, int factor,
                      int offset) {
  const char* prim = "storage-align";
  StmtPath path = requireBlockPath(f, blockId, prim);
  const auto* block = path.stmt()->as<BlockNode>();
  checkIndex(prim, block, bufferIndex, block->writes.size(), "buffer_index");
  int ndim = block->writes[bufferIndex].buffer->ndim();
  if (axis < -ndim || axis >= ndim)
    throwScheduleError(prim, "axis " + std::to_string(axis) + " is out of range for buffer '" +
                                 block->writes[bufferIndex].buffer->name + "' of rank " +
                                 std::to_string(ndim));
  if (axis < 0) axis += ndim;
  if (factor <= 0 || offset < 0 || offset >= factor)
    throwScheduleError(prim, "factor must be positive and offset in [0, factor); got factor " +
                                 std::to_string(factor) + ", offset " + std::to_string(offset));
  std::vector<AttrValue> entries;
  if (const AttrValue* old = block->annotations.find("buffer_dim_align")) {
    for (const AttrValue& e : old->asArray())
      if (e.asArray()[0].asInt() != bufferIndex || e.asArray()[1].asInt() != axis)
        entries.push_back(e);
  }
  entries.push_back(AttrValue::array({AttrValue::integer(bufferIndex), AttrValue::integer(axis),
                                      AttrValue::integer(factor), AttrValue::integer(offset)}));
  auto n = copyBlock(*block);
  n->annotations.set("buffer_dim_align", AttrValue::array(std::move(entries)));
  return withBody(f, Schedule::Impl::replaceInBody(path, n));
}

// --- the Schedule method: resolve the RVs, run the primitive, commit, record ------------------

BlockRV Schedule::cacheRead(const BlockRV& block, int readBufferIndex,
                            const std::string& storageScope,
                            const std::vector<BlockRV>& consumerBlocks) {
  Impl& s = *impl_;
  const char* p = "cache-read";
  PrimFuncWithBlock r = tir::cacheRead(s.func(p), blockIdOf(s, p, block), readBufferIndex,
                                       storageScope, blockIds(s, p, consumerBlocks));
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = kCacheReadInst,
            .inputs = blockAndConsumers(block, consumerBlocks),
            .attrs = {AttrValue::integer(readBufferIndex), AttrValue::string(storageScope)},
            .outputs = {out}});
  return out;
}

BlockRV Schedule::cacheWrite(const BlockRV& block, int writeBufferIndex,
                             const std::string& storageScope,
                             const std::vector<BlockRV>& consumerBlocks) {
  Impl& s = *impl_;
  const char* p = "cache-write";
  PrimFuncWithBlock r = tir::cacheWrite(s.func(p), blockIdOf(s, p, block), writeBufferIndex,
                                        storageScope, blockIds(s, p, consumerBlocks));
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = kCacheWriteInst,
            .inputs = blockAndConsumers(block, consumerBlocks),
            .attrs = {AttrValue::integer(writeBufferIndex), AttrValue::string(storageScope)},
            .outputs = {out}});
  return out;
}

void Schedule::setScope(const BlockRV& block, int bufferIndex, const std::string& storageScope) {
  Impl& s = *impl_;
  const char* p = "set-scope";
  s.commit(tir::setScope(s.func(p), blockIdOf(s, p, block), bufferIndex, storageScope));
  s.record({.kind = kSetScopeInst,
            .inputs = {block},
            .attrs = {AttrValue::integer(bufferIndex), AttrValue::string(storageScope)}});
}

void Schedule::storageAlign(const BlockRV& block, int bufferIndex, int axis, int factor,
                            int offset) {
  Impl& s = *impl_;
  const char* p = "storage-align";
  s.commit(tir::storageAlign(s.func(p), blockIdOf(s, p, block), bufferIndex, axis, factor, offset));
  s.record({.kind = kStorageAlignInst,
            .inputs = {block},
            .attrs = {AttrValue::integer(bufferIndex), AttrValue::integer(axis),
                      AttrValue::integer(factor), AttrValue::integer(offset)}});
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

namespace {

// cache_read and cache_write record the same fields: block, consumer blocks | index, scope.
InstructionKind cacheRow(const char* name, const char* py, const char* indexName,
                         BlockRV (Schedule::*fn)(const BlockRV&, int, const std::string&,
                                                 const std::vector<BlockRV>&)) {
  using namespace kinds;
  return {.name = name,
          .pythonName = py,
          .inputs = {1, Arity::kVariadic},
          .attrs = {2, 2},
          .apply =
              [fn](Schedule& s, const Instruction& i) {
                return std::vector<InstOutput>{(s.*fn)(rvAt<BlockRV>(i, 0),
                                                       static_cast<int>(intAttr(i, 0)),
                                                       strAttr(i, 1), blocksFrom(i, 1))};
              },
          .print =
              [indexName](const Instruction& i, const Inputs& in) {
                std::string out = "block=" + in[0] + ", " + indexName + "=" + pyAttr(i, 0) +
                                  ", storage_scope=" + pyAttr(i, 1);
                if (in.size() > 1) out += ", consumer_blocks=[" + joined(in, 1) + "]";
                return out;
              }};
}

}  // namespace

std::vector<InstructionKind> cacheKinds() {
  using namespace kinds;
  return {
      cacheRow(kCacheReadInst, "cache_read", "read_buffer_index", &Schedule::cacheRead),
      cacheRow(kCacheWriteInst, "cache_write", "write_buffer_index", &Schedule::cacheWrite),
      {.name = kSetScopeInst,
       .pythonName = "set_scope",
       .inputs = {1, 1},
       .attrs = {2, 2},
       .apply =
           [](Schedule& s, const Instruction& i) {
             s.setScope(rvAt<BlockRV>(i, 0), static_cast<int>(intAttr(i, 0)), strAttr(i, 1));
             return std::vector<InstOutput>{};
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             return "block=" + in[0] + ", buffer_index=" + pyAttr(i, 0) +
                    ", storage_scope=" + pyAttr(i, 1);
           }},
      {.name = kStorageAlignInst,
       .pythonName = "storage_align",
       .inputs = {1, 1},
       .attrs = {4, 4},
       .apply =
           [](Schedule& s, const Instruction& i) {
             s.storageAlign(rvAt<BlockRV>(i, 0), static_cast<int>(intAttr(i, 0)),
                            static_cast<int>(intAttr(i, 1)), static_cast<int>(intAttr(i, 2)),
                            static_cast<int>(intAttr(i, 3)));
             return std::vector<InstOutput>{};
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             return "block=" + in[0] + ", buffer_index=" + pyAttr(i, 0) + ", axis=" + pyAttr(i, 1) +
                    ", factor=" + pyAttr(i, 2) + ", offset=" + pyAttr(i, 3);
           }},
  };
}

}  // namespace tessera::tir
