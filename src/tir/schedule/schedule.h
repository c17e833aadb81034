// Schedule: transforms one PrimFunc of a module through primitives that each check their
// preconditions, referring to blocks and loops through random variables (RVs) that stay valid
// while the statement they name survives. Every executed primitive is appended to the trace, so a
// schedule can be printed as a script, saved as JSON, and replayed (with new sampling decisions).
//
// Identity: a LoopRV names a loop by its loop variable node; a BlockRV names a block by its id
// (BlockNode::id), which transformations that keep "the same block" preserve. The IR is immutable:
// a primitive builds a new PrimFunc and commits it only when it succeeded, so a failed primitive
// leaves the schedule unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "ir/attr_value.h"
#include "tir/function.h"

namespace tessera::tir {

struct BlockRV {
  int id = -1;
};
struct LoopRV {
  int id = -1;
};
/// An integer produced by sampling (usable as a split factor or annotation value).
struct ExprRV {
  int id = -1;
};

/// A split factor: None (inferred; at most one per split), a constant, or a sampled ExprRV.
using SplitFactor = std::variant<std::monostate, int64_t, ExprRV>;

/// Thrown by a primitive whose preconditions do not hold. The diagnostic's code is "schedule"
/// and its message starts "An error occurred in the schedule primitive '<name>': ".
[[noreturn]] void throwScheduleError(const std::string& primitive, const std::string& reason);

class Trace;

class Schedule {
 public:
  /// Schedules `func` (wrapped as module function "main" if it has no name). `seed` < 0 draws a
  /// seed from the system; the same seed reproduces every sampling decision.
  explicit Schedule(PrimFunc func, int64_t seed = -1);
  explicit Schedule(TirModule mod, int64_t seed = -1);
  ~Schedule();
  Schedule(Schedule&&) noexcept;
  Schedule& operator=(Schedule&&) noexcept;
  /// An independent copy (module, RVs, trace and PRNG state).
  Schedule copy() const;

  const TirModule& mod() const;
  /// The function being worked on.
  PrimFunc func() const;
  void workOn(const std::string& funcName);
  const Trace& trace() const;
  void seed(int64_t seed);
  int64_t forkSeed();

  // --- inspecting RVs ---
  const BlockNode* get(const BlockRV& rv) const;  ///< error if the block no longer exists
  const ForNode* get(const LoopRV& rv) const;
  int64_t get(const ExprRV& rv) const;
  void removeRV(const BlockRV& rv);
  void removeRV(const LoopRV& rv);

  // --- queries ---
  BlockRV getBlock(const std::string& name, const std::string& funcName = "");
  std::vector<LoopRV> getLoops(const BlockRV& block);
  std::vector<BlockRV> getChildBlocks(const BlockRV& block);
  std::vector<BlockRV> getChildBlocks(const LoopRV& loop);
  std::vector<BlockRV> getProducers(const BlockRV& block);
  std::vector<BlockRV> getConsumers(const BlockRV& block);

  // --- loop transformations ---
  std::vector<LoopRV> split(const LoopRV& loop, const std::vector<SplitFactor>& factors,
                            bool preserveUnitIters = true, bool disablePredication = false);
  LoopRV fuse(const std::vector<LoopRV>& loops, bool preserveUnitIters = true);
  void reorder(const std::vector<LoopRV>& loops);
  LoopRV addUnitLoop(const BlockRV& block);
  LoopRV addUnitLoop(const LoopRV& loop);

  // --- loop kinds ---
  void parallel(const LoopRV& loop);
  void vectorize(const LoopRV& loop);
  void unroll(const LoopRV& loop);
  void bind(const LoopRV& loop, const std::string& threadAxis);

  // --- annotations ---
  void annotate(const LoopRV& loop, const std::string& key, const AttrValue& value);
  void annotate(const BlockRV& block, const std::string& key, const AttrValue& value);
  /// Annotates with a sampled value; the trace records the RV, so a new decision changes it.
  void annotate(const LoopRV& loop, const std::string& key, const ExprRV& value);
  void annotate(const BlockRV& block, const std::string& key, const ExprRV& value);
  void unannotate(const LoopRV& loop, const std::string& key);
  void unannotate(const BlockRV& block, const std::string& key);

  // --- moving and inlining blocks ---
  void computeAt(const BlockRV& block, const LoopRV& loop, bool preserveUnitLoops = false,
                 int index = -1);
  void reverseComputeAt(const BlockRV& block, const LoopRV& loop, bool preserveUnitLoops = false,
                        int index = -1);
  void computeInline(const BlockRV& block);
  void reverseComputeInline(const BlockRV& block);

  // --- caches and storage ---
  BlockRV cacheRead(const BlockRV& block, int readBufferIndex, const std::string& storageScope,
                    const std::vector<BlockRV>& consumerBlocks = {});
  BlockRV cacheWrite(const BlockRV& block, int writeBufferIndex, const std::string& storageScope,
                     const std::vector<BlockRV>& consumerBlocks = {});
  void setScope(const BlockRV& block, int bufferIndex, const std::string& storageScope);
  void storageAlign(const BlockRV& block, int bufferIndex, int axis, int factor, int offset);

  // --- reductions ---
  BlockRV decomposeReduction(const BlockRV& block, const LoopRV& loop);
  BlockRV rfactor(const LoopRV& loop, int factorAxis);

  // --- blockize / tensorize ---
  BlockRV blockize(const LoopRV& loop, bool preserveUnitIters = true);
  void tensorize(const LoopRV& loop, const std::string& intrinName, bool preserveUnitIters = true);
  void tensorize(const BlockRV& block, const std::string& intrinName,
                 bool preserveUnitIters = true);

  // --- sampling (decision: replay a recorded/chosen value instead of sampling) ---
  std::vector<ExprRV> samplePerfectTile(const LoopRV& loop, int n, int maxInnermostFactor,
                                        std::optional<std::vector<int64_t>> decision = {});
  ExprRV sampleCategorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                           std::optional<int64_t> decision = {});
  LoopRV sampleComputeLocation(const BlockRV& block, std::optional<int64_t> decision = {});

  struct Impl;  ///< state shared by the primitive implementations (schedule_state.h)
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::tir
