// The lowering pipeline as one table: read top to bottom, it is TVM 0.16's order (§4.1) minus the
// passes that do nothing on CPU TensorIR. Each row is a pass with its PassInfo; the context's
// config switches rows off and adds user passes at the end of their phase.
#include "tir/transform/lower.h"

#include "support/diagnostic.h"

namespace tessera::tir::transform {

namespace {

struct PassRow {
  Pass pass;
  int phase;
  /// The contract of lower() needs the pass: disabling it is an error, not a silent miscompile.
  bool mandatory;
  /// A boolean config key that switches the row off (TVM's `tir.disable_*`), or null.
  const char* disableKey;
};

// A row applying `fn` to each function; `fn` takes the context for passes that read its config.
template <typename Fn>
PassRow row(const char* name, int phase, bool mandatory, Fn fn, const char* disableKey = nullptr) {
  return {makePrimFuncPass(PassInfo{name, 0, {}}, fn), phase, mandatory, disableKey};
}

constexpr bool kMandatory = true;
constexpr bool kOptional = false;

PrimFunc runSimplify(const PrimFunc& f, PassContext&) {
  return simplify(f);
}

UnrollOptions unrollOptions(const PassContext& ctx) {
  UnrollOptions o;
  const auto field = [&](const char* name, int64_t fallback) {
    return ctx.configField("tir.UnrollLoop", name, AttrValue::integer(fallback)).asInt();
  };
  o.autoMaxStep = field("auto_max_step", o.autoMaxStep);
  o.autoMaxDepth = static_cast<int>(field("auto_max_depth", o.autoMaxDepth));
  o.autoMaxExtent = field("auto_max_extent", o.autoMaxExtent);
  o.explicitUnroll =
      ctx.configField("tir.UnrollLoop", "explicit_unroll", AttrValue::boolean(o.explicitUnroll))
          .asBool();
  return o;
}

const std::vector<PassRow>& pipeline() {
  using F = const PrimFunc&;
  using C = PassContext&;
  static const std::vector<PassRow> kRows = {
      // Phase 1: structure to flat buffers.
      row("LowerInitBlock", 1, kMandatory, [](F f, C) { return lowerInitBlock(f); }),
      row("PlanAndUpdateBufferAllocationLocation", 1, kMandatory,
          [](F f, C) { return planAndUpdateBufferAllocationLocation(f); }),
      row("ConvertBlocksToOpaque", 1, kMandatory, [](F f, C) { return convertBlocksToOpaque(f); }),
      row("CompactBufferAllocation", 1, kMandatory,
          [](F f, C) { return compactBufferAllocation(f); }),
      row("LowerMatchBuffer", 1, kMandatory, [](F f, C) { return lowerMatchBuffer(f); }),
      row("Simplify", 1, kOptional, runSimplify),
      row("LowerOpaqueBlock", 1, kMandatory, [](F f, C) { return lowerOpaqueBlock(f); }),
      row("FlattenBuffer", 1, kMandatory, [](F f, C) { return flattenBuffer(f); }),
      row("NarrowDataType", 1, kOptional, [](F f, C) { return narrowDataType(f, 32); }),
      row("Simplify", 1, kOptional, runSimplify),
      // Phase 2: loop transformations.
      row(
          "LoopPartition", 2, kOptional, [](F f, C) { return loopPartition(f); },
          "tir.disable_loop_partition"),
      // Mandatory: it also turns every vectorized loop the target cannot vectorize into a serial
      // one (all of them under tir.disable_vectorize), which code generation relies on.
      row("VectorizeLoop", 2, kMandatory,
          [](F f, C ctx) { return vectorizeLoop(f, ctx.configFlag("tir.disable_vectorize")); }),
      // After vectorization: only vector multiplies gain (a scalar int64 multiply is one
      // instruction on x86-64, the int32 split is more).
      row("NarrowFixedPointMultiply", 2, kOptional,
          [](F f, C) { return narrowFixedPointMultiply(f); }),
      // Mandatory: code generation has no notion of a virtual thread.
      row("InjectVirtualThread", 2, kMandatory, [](F f, C) { return injectVirtualThread(f); }),
      row(
          "StorageRewrite", 2, kOptional, [](F f, C) { return storageRewrite(f); },
          "tir.disable_storage_rewrite"),
      row("HoistIfThenElse", 2, kOptional, [](F f, C) { return hoistIfThenElse(f); }),
      row("UnrollLoop", 2, kOptional, [](F f, C ctx) { return unrollLoop(f, unrollOptions(ctx)); }),
      // Phase 3: cleanup.
      row("Simplify", 3, kOptional, runSimplify),
      row("RemoveNoOp", 3, kOptional, [](F f, C) { return removeNoOp(f); }),
      row("RewriteUnsafeSelect", 3, kMandatory, [](F f, C) { return rewriteUnsafeSelect(f); }),
      row("SelectLoadSource", 3, kOptional, [](F f, C) { return selectLoadSource(f); }),
      row(
          "CommonSubexprElimTIR", 3, kOptional, [](F f, C) { return commonSubexprElim(f); },
          "tir.disable_cse_tir"),
  };
  return kRows;
}

void addUserPasses(std::vector<Pass>& passes, int phase, const PassContext& ctx) {
  const AttrValue added = ctx.configValue("tir.add_lower_pass");
  if (added.kind() != AttrValue::Kind::kArray) return;
  for (const AttrValue& item : added.asArray())
    if (item.asArray()[0].asInt() == phase)
      passes.push_back(passByName(item.asArray()[1].asString()));
}

}  // namespace

const std::vector<Pass>& lowerPipelinePasses() {
  static const std::vector<Pass> passes = [] {
    std::vector<Pass> out;
    for (const PassRow& r : pipeline()) out.push_back(r.pass);
    return out;
  }();
  return passes;
}

std::vector<Pass> lowerPasses(const PassContext& ctx) {
  std::vector<Pass> passes;
  addUserPasses(passes, 0, ctx);
  int phase = 1;
  for (const PassRow& r : pipeline()) {
    // User passes of a phase run once all of that phase's own passes have.
    for (; phase < r.phase; ++phase) addUserPasses(passes, phase, ctx);
    const std::string& name = r.pass->info().name;
    if (r.mandatory && ctx.disabledPasses.count(name))
      throwDiagnostic("pass_config",
                      "the TIR lowering cannot do without '" + name +
                          "' (code generation needs its result); it cannot be disabled",
                      {}, "disabled pass " + name);
    if (r.disableKey && ctx.configFlag(r.disableKey)) continue;
    passes.push_back(r.pass);
  }
  for (; phase <= 3; ++phase) addUserPasses(passes, phase, ctx);
  return passes;
}

TirModule lower(TirModule module, PassContext& ctx) {
  for (const Pass& pass : lowerPasses(ctx))
    if (tessera::transform::passEnabled(pass->info(), ctx))
      module = (*pass)(std::move(module), ctx);
  return module;
}

PrimFunc lower(const PrimFunc& func, PassContext& ctx) {
  TirModule module;
  module.add(func);
  return lower(std::move(module), ctx).functions().front();
}

std::vector<std::string> lowerPassNames() {
  std::vector<std::string> names;
  for (const Pass& pass : lowerPipelinePasses()) names.push_back(pass->info().name);
  return names;
}

}  // namespace tessera::tir::transform
