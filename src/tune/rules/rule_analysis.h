// Block and loop facts the schedule rules and postprocessors decide by (TVM's
// src/tir/schedule/analysis): reading a schedule's current function without recording anything
// in its trace.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tune::rules {

/// How a loop is bound in a block: only to spatial iter vars (or none), to a reduction, or other.
enum class LoopKind { kSpatial, kReduce, kOther };

/// The names of the function's blocks in post-order (children before parents; the root last).
std::vector<std::string> blocksPostOrder(const tir::PrimFunc& func);
/// Whether the block named `name` exists in the schedule's function.
bool hasBlock(const tir::Schedule& sch, const std::string& name);
/// Every block of the function has only data-parallel iter vars.
bool isSpatialPrimFunc(const tir::PrimFunc& func);
/// The block is the root (it has no enclosing block).
bool isRootBlock(const tir::Schedule& sch, const tir::BlockRV& block);
/// The block's scope block is the function's root block.
bool isUnderRoot(const tir::Schedule& sch, const tir::BlockRV& block);
/// The loops between the block and its scope, outermost first (getLoops without recording).
std::vector<tir::For> loopsOf(const tir::Schedule& sch, const tir::BlockRV& block);
/// The kind of each of those loops for the block.
std::vector<LoopKind> loopKinds(const tir::Schedule& sch, const tir::BlockRV& block);
/// Every iter var is bound to its own enclosing loop, in order, with the loop's extent, and the
/// loops form a chain down to the block (each has a single child).
bool hasTrivialBinding(const tir::Schedule& sch, const tir::BlockRV& block);
/// TVM's NeedsMultiLevelTiling: one write, reads, a reduction, trivial bindings, not tiled, and a
/// spatial iter var that some read does not depend on (data reuse).
bool needsMultiLevelTiling(const tir::Schedule& sch, const tir::BlockRV& block);
/// Another block in the block's scope reads what it writes.
bool hasConsumers(const tir::Schedule& sch, const tir::BlockRV& block);
/// The product of the domains of the block's iter vars of one kind (spatial or reduce).
int64_t iterExtent(const tir::BlockNode* block, bool reduce);
/// The block carries annotation `key`.
bool hasAnnotation(const tir::BlockNode* block, const std::string& key);
/// The constant extent of a loop, if constant.
std::optional<int64_t> constExtent(const tir::For& loop);

}  // namespace tessera::tune::rules
