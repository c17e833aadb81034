// The two matrix-multiply tutorial programs (spec §7.2, §7.3), as their lowered TIR calls the
// runtime: loads at the reduction loop, one GEMM kernel with two folded hardware loops, and the
// dependency calls CoProcSync inserts (spec §6.6).
#include "vta/rt/reference_programs.h"

namespace tessera::vta::reference {

void matmulTutorial(CommandQueue& q, DeviceBuffer a, DeviceBuffer b, DeviceBuffer c) {
  constexpr uint32_t kBlocks = 16;  // n = m = 16 blocks of BLOCK_IN / BLOCK_OUT
  UopKernelCache resetSite, gemmSite;
  q.pushGemmOp(resetSite, std::nullopt, [&](int32_t) {
    q.uopLoopBegin(kBlocks, 1, 0, 0);
    q.uopPush(0, 1, 0, 0, 0, 0, 0, 0);
    q.uopLoopEnd();
  });
  q.depPush(2, 1);
  for (uint32_t ko = 0; ko < kBlocks; ++ko) {
    q.depPop(2, 1);
    q.loadBuffer2D(a, ko, 1, 1, 1, 0, 0, 0, 0, 0, MemType::kInp);
    q.loadBuffer2D(b, ko, 1, kBlocks, kBlocks, 0, 0, 0, 0, 0, MemType::kWgt);
    q.depPush(1, 2);
    q.depPop(1, 2);
    q.pushGemmOp(gemmSite, std::nullopt, [&](int32_t) {
      q.uopLoopBegin(kBlocks, 1, 0, 1);
      q.uopPush(0, 0, 0, 0, 0, 0, 0, 0);
      q.uopLoopEnd();
    });
    q.depPush(2, 1);
  }
  q.depPush(2, 3);
  q.depPop(2, 1);  // drain the last GEMM's token to the load stage
  q.depPop(2, 3);
  q.storeBuffer2D(0, MemType::kOut, c, 0, kBlocks, 1, kBlocks);
  q.synchronize();
}

void blockedMatmul(CommandQueue& q, DeviceBuffer data, DeviceBuffer weight, DeviceBuffer res) {
  const Config& cfg = q.config();
  const uint32_t icBlocks = uint32_t(1024 / cfg.blockIn());
  const uint32_t ocBlocks = uint32_t(1024 / cfg.blockOut());
  const uint32_t iBlock = uint32_t(256 / cfg.blockIn());   // input blocks per tile
  const uint32_t oBlock = uint32_t(256 / cfg.blockOut());  // output blocks per tile
  const int32_t clipMax = (1 << (cfg.inpWidth() - 1)) - 1;
  UopKernelCache resetSite, gemmSite, shrSite, maxSite, minSite;

  q.depPush(3, 2);
  for (uint32_t ocOut = 0; ocOut < ocBlocks / oBlock; ++ocOut) {
    q.depPop(3, 2);
    q.pushGemmOp(resetSite, std::nullopt, [&](int32_t) {
      q.uopLoopBegin(oBlock, 1, 0, 0);
      q.uopPush(0, 1, 0, 0, 0, 0, 0, 0);
      q.uopLoopEnd();
    });
    q.depPush(2, 1);
    for (uint32_t icOut = 0; icOut < icBlocks / iBlock; ++icOut) {
      q.depPop(2, 1);
      q.loadBuffer2D(data, icOut * iBlock, iBlock, 1, iBlock, 0, 0, 0, 0, 0, MemType::kInp);
      q.loadBuffer2D(weight, uint64_t(ocOut) * oBlock * icBlocks + icOut * iBlock, iBlock, oBlock,
                     icBlocks, 0, 0, 0, 0, 0, MemType::kWgt);
      q.depPush(1, 2);
      q.depPop(1, 2);
      q.pushGemmOp(gemmSite, std::nullopt, [&](int32_t) {
        q.uopLoopBegin(oBlock, 1, 0, iBlock);  // oc_inn
        q.uopLoopBegin(iBlock, 0, 1, 1);       // ic_inn
        q.uopPush(0, 0, 0, 0, 0, 0, 0, 0);
        q.uopLoopEnd();
        q.uopLoopEnd();
      });
      q.depPush(2, 1);
    }
    q.depPop(2, 1);
    auto alu = [&](UopKernelCache& site, AluOpcode op, int32_t imm) {
      q.pushAluOp(site, std::nullopt, [&](int32_t) {
        q.uopLoopBegin(oBlock, 1, 1, 0);
        q.uopPush(1, 0, 0, 0, 0, int(op), 1, imm);
        q.uopLoopEnd();
      });
    };
    alu(shrSite, AluOpcode::kShr, cfg.inpWidth());
    alu(maxSite, AluOpcode::kMax, 0);
    alu(minSite, AluOpcode::kMin, clipMax);
    q.depPush(2, 3);
    q.depPop(2, 3);
    for (uint32_t ocInn = 0; ocInn < oBlock; ++ocInn) {
      q.storeBuffer2D(ocInn, MemType::kOut, res, ocOut * oBlock + ocInn, 1, 1, 1);
    }
    q.depPush(3, 2);
  }
  q.depPop(3, 2);
  q.synchronize();
}

}  // namespace tessera::vta::reference
