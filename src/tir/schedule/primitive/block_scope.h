// Helpers the block primitives (compute_at, inlining, caches, rfactor, blockize/tensorize) share:
// locating blocks and loops in any PrimFunc body, producer/consumer relations inside a scope,
// access-region relaxation over loop domains, buffer replacement and read-region recomputation.
// They work on immutable IR and never change their inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tir/arith/analyzer.h"
#include "tir/function.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

/// The path from `body` to the block with BlockNode::id `id` (the block last), if present.
std::optional<StmtPath> findBlockPath(const Stmt& body, uint64_t id);
/// The path from `body` to the loop whose variable is `loopVar`, if present.
std::optional<StmtPath> findLoopPath(const Stmt& body, const VarNode* loopVar);
/// Like findBlockPath but throws a schedule error naming `primitive` when the block is absent.
StmtPath requireBlockPath(const PrimFunc& f, uint64_t id, const std::string& primitive);
StmtPath requireLoopPath(const PrimFunc& f, const VarNode* loopVar, const std::string& primitive);

/// `f` with another body (same params, buffers and attributes).
PrimFunc withBody(const PrimFunc& f, Stmt body);

/// The realize directly above the block at the end of `blockPath`.
const BlockRealizeNode* realizeAt(const StmtPath& blockPath);
/// Whether `stmt` (by identity) lies on `path`.
bool pathContains(const StmtPath& path, const StmtNode* stmt);

/// Blocks of the scope (at any loop depth, not nested in other blocks) that read a buffer
/// `block` writes (its consumers) / write a buffer `block` reads (its producers).
std::vector<const BlockRealizeNode*> consumersIn(const Stmt& scope, const BlockNode* block);
std::vector<const BlockRealizeNode*> producersIn(const Stmt& scope, const BlockNode* block);
/// Whether `stmt`'s subtree contains a realize of one of `realizes`.
bool containsAnyRealize(const Stmt& stmt, const std::vector<const BlockRealizeNode*>& realizes);

/// The statement of `path` to remove when its block disappears: the block's realize or the
/// highest loop above it whose only content is that realize (a loop left empty is removed too).
/// Returns the path prefix ending at that statement.
StmtPath removalPath(const StmtPath& blockPath);
/// The children of a loop or block body as a list (a SeqStmt's items, else the one statement).
std::vector<Stmt> bodyItems(const Stmt& body);

/// `region` of a block realized by `realize` mapped to loop variables (iter vars := bindings)
/// and relaxed over the loops in `relax`: each dimension is the interval the accesses cover.
std::vector<Range> relaxRegion(const std::vector<Range>& region, const BlockRealizeNode* realize,
                               const arith::DomainMap& relax, arith::Analyzer& analyzer);
/// Union (bounding box) of two regions of one buffer.
std::vector<Range> unionRegion(const std::vector<Range>& a, const std::vector<Range>& b,
                               arith::Analyzer& analyzer);
/// The domain map of `loops` (loop var -> [min, min + extent)).
arith::DomainMap loopDomains(const std::vector<For>& loops);

/// Replaces buffers (by identity) everywhere: loads, stores, regions, allocations, match buffers.
Stmt replaceBuffers(const Stmt& stmt, const std::unordered_map<const BufferNode*, Buffer>& map);
/// The read regions of `block` recomputed from the loads in its body (and init): one bounding
/// box per buffer in order of first use; loads of buffers the block allocates are skipped, and
/// a reduction block (with init) does not list the buffers it writes, as create_prim_func does.
std::vector<BufferRegion> recomputeReads(const BlockNode* block);
/// Whether `buffer` is still used anywhere under `stmt` (loads, stores, regions, match buffers).
bool usesBuffer(const Stmt& stmt, const BufferNode* buffer);
/// `body` with `buffer` dropped from the allocations of every block that no longer uses it.
Stmt dropUnusedAllocation(const Stmt& body, const BufferNode* buffer);
/// The block (on `path`, outermost first) that allocates `buffer`, or null (a parameter).
const BlockNode* allocatingBlock(const StmtPath& path, const BufferNode* buffer);

/// A fresh loop variable of `dtype` named `name`.
Var freshVar(const std::string& name, DataType dtype);

}  // namespace tessera::tir
