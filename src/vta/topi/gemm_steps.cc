// The GEMM operators' shared schedule steps (gemm_steps.h).
#include "vta/topi/gemm_steps.h"

#include "vta/tir/gemm_intrin.h"

namespace tessera::vta {

void scheduleGemmCore(tir::Schedule& sch, const Config& config, const tir::BlockRV& gemm,
                      const std::vector<std::string>& operandCopies, const tir::LoopRV& reduction,
                      size_t operandRank, const tir::LoopRV& tile, bool tensorize) {
  for (const std::string& copy : operandCopies) {
    const tir::BlockRV block = sch.getBlock(copy);
    sch.computeAt(block, reduction, /*preserveUnitLoops=*/true);
    const std::vector<tir::LoopRV> loops = sch.getLoops(block);
    sch.annotate(loops.at(loops.size() - operandRank), "pragma_dma_copy", AttrValue::integer(1));
  }
  const tir::BlockRV init = sch.decomposeReduction(gemm, reduction);
  if (!tensorize) return;
  registerGemmIntrinsics(config);
  sch.tensorize(tile, gemmIntrinName(config));  // s[gemm].tensorize(b_tns, env.gemm)
  // The init's nest has the row loop only when a row iter var uses it (BATCH > 1).
  const std::vector<tir::LoopRV> initLoops = sch.getLoops(init);
  const size_t tileLoops = config.batch() > 1 ? 2 : 1;
  sch.tensorize(initLoops.at(initLoops.size() - tileLoops), gemmResetIntrinName(config));
}

}  // namespace tessera::vta
