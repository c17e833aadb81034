// Schedule::Impl: the state every primitive works on (module, current function, RV tables, PRNG,
// trace) and the helpers primitives share: locating a block or loop in the current function with
// its chain of ancestors, rebuilding the function around a replaced statement, creating RVs, and
// recording the executed instruction. A primitive checks everything first, builds the new body,
// then calls commit() and record(); a thrown ScheduleError therefore leaves the state unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tir/function.h"
#include "tir/schedule/instruction.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"

namespace tessera::tir {

/// A statement of the current function with everything above it.
struct StmtPath {
  std::vector<Stmt> chain;  ///< the function body (root realize) first, the statement itself last

  const Stmt& stmt() const { return chain.back(); }
  /// The closest block strictly above the statement (its scope block); null for the root block.
  const BlockNode* scopeBlock() const;
  /// Position of the scope block in `chain` (-1 for the root block).
  int scopeIndex() const;
  /// The loops strictly between the scope block and the statement, outermost first.
  std::vector<For> loops() const;
  /// The statement directly above (null for the root realize).
  Stmt parent() const { return chain.size() >= 2 ? chain[chain.size() - 2] : nullptr; }
};

/// The path from `root` to the first statement, in pre-order (findStmtChain's order), for which
/// `match` holds; nullopt when none does.
std::optional<StmtPath> findPath(const Stmt& root, const std::function<bool(const Stmt&)>& match);

struct Schedule::Impl {
  TirModule mod;
  std::string funcName;              ///< the function being worked on ("" until chosen)
  std::map<int, uint64_t> blockRVs;  ///< BlockRV id -> BlockNode::id
  std::map<int, Var> loopRVs;        ///< LoopRV id -> loop variable (or a mark, see below)
  std::map<int, int64_t> exprRVs;    ///< ExprRV id -> value
  int nextRV = 0;                    ///< one counter for all RV kinds
  std::mt19937_64 rng;
  Trace trace;
  int noRecordDepth = 0;  ///< >0 while a primitive runs another one internally

  // --- the current function -------------------------------------------------------------------
  /// The function worked on; throws a schedule error naming `primitive` when none is selected.
  PrimFunc func(const std::string& primitive = "get") const;
  /// Replaces the current function's body (the function keeps its params, buffers and attrs).
  void commit(Stmt newBody);
  void commit(PrimFunc newFunc);

  // --- locating statements ----------------------------------------------------------------------
  /// The path to the block with BlockNode::id `id` in the current function, if it still exists.
  std::optional<StmtPath> findBlock(uint64_t id) const;
  /// The path to the loop whose variable is `loopVar`, if it still exists.
  std::optional<StmtPath> findLoop(const VarNode* loopVar) const;
  /// Like findBlock/findLoop for an RV; throws a schedule error naming `primitive` when the RV is
  /// unknown or the statement was removed.
  StmtPath blockPath(const std::string& primitive, const BlockRV& rv) const;
  StmtPath loopPath(const std::string& primitive, const LoopRV& rv) const;
  const BlockNode* block(const std::string& primitive, const BlockRV& rv) const;
  const ForNode* loop(const std::string& primitive, const LoopRV& rv) const;
  /// The realize of `path`'s block (the statement just above it).
  static const BlockRealizeNode* realizeOf(const StmtPath& blockPath);

  // --- rebuilding
  // ---------------------------------------------------------------------------------
  /// The new function body in which `path.stmt()` is replaced by `replacement` (null removes it
  /// from its sequence). Ancestors are copied; blocks keep their ids.
  static Stmt replaceInBody(const StmtPath& path, Stmt replacement);
  /// `parent` with its child `oldChild` replaced by `newChild` (null removes it from a sequence).
  static Stmt replaceChild(const Stmt& parent, const StmtNode* oldChild, Stmt newChild);

  // --- RVs ------------------------------------------------------------------------------------
  BlockRV newBlockRV(uint64_t blockId);
  LoopRV newLoopRV(Var loopVar);
  ExprRV newExprRV(int64_t value);
  int64_t exprValue(const std::string& primitive, const ExprRV& rv) const;
  /// Loop variables standing for sample_compute_location's "root" (-1) and "inline" (-2) marks.
  static const Var& rootMark();
  static const Var& inlineMark();

  // --- trace ----------------------------------------------------------------------------------
  /// Appends `inst` unless a primitive is running another one internally (NoRecordScope).
  void record(Instruction inst);
  /// While alive, primitives called on this schedule do not record (for composite primitives).
  class NoRecordScope {
   public:
    explicit NoRecordScope(Impl& impl) : impl_(impl) { ++impl_.noRecordDepth; }
    ~NoRecordScope() { --impl_.noRecordDepth; }
    NoRecordScope(const NoRecordScope&) = delete;
    NoRecordScope& operator=(const NoRecordScope&) = delete;

   private:
    Impl& impl_;
  };
};

/// The blocks directly under `stmt` (not descending into them), in program order.
std::vector<Block> childBlocks(const Stmt& stmt);
/// A boolean attribute in the trace's 0/1 integer form.
AttrValue traceBool(bool value);

// --- resolving the RVs a block primitive takes (its Schedule method's first step)
// -----------------

inline uint64_t blockIdOf(const Schedule::Impl& s, const char* primitive, const BlockRV& rv) {
  return s.block(primitive, rv)->id;
}

inline const VarNode* loopVarOf(const Schedule::Impl& s, const char* primitive, const LoopRV& rv) {
  return s.loop(primitive, rv)->loopVar.get();
}

// The loop variable an RV names when it may be a compute-location mark.
inline const Var* markOf(const Schedule::Impl& s, const LoopRV& rv) {
  auto it = s.loopRVs.find(rv.id);
  if (it == s.loopRVs.end()) return nullptr;
  if (it->second == Schedule::Impl::rootMark() || it->second == Schedule::Impl::inlineMark())
    return &it->second;
  return nullptr;
}

inline std::vector<uint64_t> blockIds(const Schedule::Impl& s, const char* primitive,
                                      const std::vector<BlockRV>& rvs) {
  std::vector<uint64_t> out;
  for (const BlockRV& rv : rvs) out.push_back(blockIdOf(s, primitive, rv));
  return out;
}

inline std::vector<InstInput> blockAndConsumers(const BlockRV& block,
                                                const std::vector<BlockRV>& consumers) {
  std::vector<InstInput> in{block};
  for (const BlockRV& c : consumers) in.push_back(c);
  return in;
}

}  // namespace tessera::tir
