// vta.build_config (spec vta.md §6.0): where VTA's passes enter the lowering pipeline. Phase 1
// (after buffers are flat) turns DMA copies into runtime calls and lifts the micro-op and queue
// scopes out of the loops tensorize left them in, so that InjectVirtualThread (phase 2) replicates
// whole queue scopes per thread; phase 3 turns SRAM addresses into entry indices and folds GEMM
// loops into hardware loops.
#include "support/diagnostic.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using tir::transform::makePrimFuncPass;
using tir::transform::Pass;

std::string shapeSuffix(const Config& c) {
  return "_" + std::to_string(c.batch()) + "x" + std::to_string(c.blockIn()) + "x" +
         std::to_string(c.blockOut());
}

}  // namespace

void addVtaLowerPasses(tir::transform::PassContext& ctx, const Config& config) {
  using tir::PrimFunc;
  using tir::transform::PassContext;
  const Pass dma = makePrimFuncPass(
      {"vta.InjectDMAIntrin" + shapeSuffix(config), 0, {}},
      [config](const PrimFunc& f, PassContext&) { return injectDmaIntrin(f, config); });
  const Pass merge =
      makePrimFuncPass({"vta.MergeAccStages", 0, {}},
                       [](const PrimFunc& f, PassContext&) { return mergeAccStages(f); });
  const Pass aluScope =
      makePrimFuncPass({"vta.AnnotateALUCoProcScope", 0, {}},
                       [](const PrimFunc& f, PassContext&) { return annotateAluCoProcScope(f); });
  const Pass alu = makePrimFuncPass(
      {"vta.InjectALUIntrin" + shapeSuffix(config), 0, {}},
      [config](const PrimFunc& f, PassContext&) { return injectAluIntrin(f, config); });
  const Pass liftUop = makePrimFuncPass(
      {"vta.LiftUopScope", 0, {}},
      [](const PrimFunc& f, PassContext&) { return liftAttrScope(f, "coproc_uop_scope"); });
  const Pass liftQueue = makePrimFuncPass(
      {"vta.LiftCoProcScope", 0, {}},
      [](const PrimFunc& f, PassContext&) { return liftAttrScope(f, "coproc_scope"); });
  const Pass coprocSync =
      makePrimFuncPass({"vta.InjectCoProcSync", 0, {}},
                       [](const PrimFunc& f, PassContext&) { return injectCoProcSync(f); });
  const Pass access =
      makePrimFuncPass({"vta.LowerDeviceStorageAccessInfo" + shapeSuffix(config), 0, {}},
                       [config](const PrimFunc& f, PassContext&) {
                         return lowerDeviceStorageAccessInfo(f, config);
                       });
  const Pass fold = makePrimFuncPass(
      {"vta.FoldUopLoop", 0, {}}, [](const PrimFunc& f, PassContext&) { return foldUopLoop(f); });
  // A name registered once keeps its first pass object; look it up again so repeated calls (one
  // per build) add the same objects.
  auto registered = [](const Pass& p) {
    try {
      tir::transform::registerPass(p);
    } catch (const DiagnosticError&) {
    }
    return tir::transform::passByName(p->info().name);
  };
  tir::transform::addLowerPass(ctx, 1, registered(dma));
  tir::transform::addLowerPass(ctx, 1, registered(merge));
  tir::transform::addLowerPass(ctx, 1, registered(aluScope));
  tir::transform::addLowerPass(ctx, 1, registered(liftUop));
  tir::transform::addLowerPass(ctx, 1, registered(liftQueue));
  tir::transform::addLowerPass(ctx, 1, registered(coprocSync));
  tir::transform::addLowerPass(ctx, 2, registered(alu));
  tir::transform::addLowerPass(ctx, 3, registered(access));
  tir::transform::addLowerPass(ctx, 3, registered(fold));
  ctx.setConfig("tir.disable_cse_tir", "true");
}

}  // namespace tessera::vta
