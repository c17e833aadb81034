// The lowering pipeline as one table: read top to bottom, it is TVM 0.16's order (§4.1) minus the
// passes that do nothing on CPU TensorIR. Options switch rows off; user passes run at the end of
// their phase.
#include "tir/transform/lower.h"

namespace tessera::tir::transform {

namespace {

struct PassRow {
  const char* name;
  int phase;
  /// Whether the options leave this row on.
  bool (*enabled)(const LowerOptions&);
  PrimFunc (*run)(const PrimFunc&, const LowerOptions&);
};

bool always(const LowerOptions&) {
  return true;
}

const std::vector<PassRow>& pipeline() {
  static const std::vector<PassRow> kRows = {
      // Phase 1: structure to flat buffers.
      {"LowerInitBlock", 1, always,
       [](const PrimFunc& f, const LowerOptions&) { return lowerInitBlock(f); }},
      {"PlanAndUpdateBufferAllocationLocation", 1, always,
       [](const PrimFunc& f, const LowerOptions&) {
         return planAndUpdateBufferAllocationLocation(f);
       }},
      {"ConvertBlocksToOpaque", 1, always,
       [](const PrimFunc& f, const LowerOptions&) { return convertBlocksToOpaque(f); }},
      {"CompactBufferAllocation", 1, always,
       [](const PrimFunc& f, const LowerOptions&) { return compactBufferAllocation(f); }},
      {"LowerMatchBuffer", 1, always,
       [](const PrimFunc& f, const LowerOptions&) { return lowerMatchBuffer(f); }},
      {"Simplify", 1, always, [](const PrimFunc& f, const LowerOptions&) { return simplify(f); }},
      {"LowerOpaqueBlock", 1, always,
       [](const PrimFunc& f, const LowerOptions&) { return lowerOpaqueBlock(f); }},
      {"FlattenBuffer", 1, always,
       [](const PrimFunc& f, const LowerOptions&) { return flattenBuffer(f); }},
      {"NarrowDataType", 1, always,
       [](const PrimFunc& f, const LowerOptions&) { return narrowDataType(f, 32); }},
      {"Simplify", 1, always, [](const PrimFunc& f, const LowerOptions&) { return simplify(f); }},
      // Phase 2: loop transformations.
      {"LoopPartition", 2, [](const LowerOptions& o) { return !o.disableLoopPartition; },
       [](const PrimFunc& f, const LowerOptions&) { return loopPartition(f); }},
      {"VectorizeLoop", 2, always,
       [](const PrimFunc& f, const LowerOptions& o) {
         return vectorizeLoop(f, o.disableVectorize);
       }},
      {"StorageRewrite", 2, [](const LowerOptions& o) { return !o.disableStorageRewrite; },
       [](const PrimFunc& f, const LowerOptions&) { return storageRewrite(f); }},
      {"HoistIfThenElse", 2, always,
       [](const PrimFunc& f, const LowerOptions&) { return hoistIfThenElse(f); }},
      {"UnrollLoop", 2, always,
       [](const PrimFunc& f, const LowerOptions& o) { return unrollLoop(f, o.unroll); }},
      // Phase 3: cleanup.
      {"Simplify", 3, always, [](const PrimFunc& f, const LowerOptions&) { return simplify(f); }},
      {"RemoveNoOp", 3, always,
       [](const PrimFunc& f, const LowerOptions&) { return removeNoOp(f); }},
      {"RewriteUnsafeSelect", 3, always,
       [](const PrimFunc& f, const LowerOptions&) { return rewriteUnsafeSelect(f); }},
      {"SelectLoadSource", 3, always,
       [](const PrimFunc& f, const LowerOptions&) { return selectLoadSource(f); }},
      {"CommonSubexprElimTIR", 3, [](const LowerOptions& o) { return !o.disableCse; },
       [](const PrimFunc& f, const LowerOptions&) { return commonSubexprElim(f); }},
  };
  return kRows;
}

void addUserPasses(std::vector<LowerStep>& steps, int phase, const LowerOptions& options) {
  for (const UserPass& p : options.userPasses)
    if (p.phase == phase) steps.push_back({p.name, p.pass});
}

}  // namespace

std::vector<LowerStep> lowerSteps(const LowerOptions& options) {
  std::vector<LowerStep> steps;
  addUserPasses(steps, 0, options);
  int phase = 1;
  for (const PassRow& row : pipeline()) {
    // User passes of a phase run once all of that phase's own passes have.
    for (; phase < row.phase; ++phase) addUserPasses(steps, phase, options);
    if (!row.enabled(options)) continue;
    steps.push_back(
        {row.name, [&options, run = row.run](const PrimFunc& f) { return run(f, options); }});
  }
  for (; phase <= 3; ++phase) addUserPasses(steps, phase, options);
  return steps;
}

PrimFunc lower(const PrimFunc& func, const LowerOptions& options) {
  PrimFunc f = func;
  for (const LowerStep& step : lowerSteps(options)) {
    f = step.run(f);
    if (options.printAfter) options.printAfter(step.name, f);
  }
  return f;
}

std::vector<std::string> lowerPassNames() {
  std::vector<std::string> names;
  for (const PassRow& row : pipeline()) names.emplace_back(row.name);
  return names;
}

}  // namespace tessera::tir::transform
