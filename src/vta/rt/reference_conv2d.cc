// The seed-004 conv2d program (spec §7.1): the seed's final `vta.lower` listing, statement by
// statement, with its constants expressed through the workload and the configuration so the same
// program runs under any BATCH/BLOCK. With the default configuration and Conv2dWorkload::seed004
// the constants are the listing's: 784 accumulator, 144 input and 72 weight entries per thread.
#include <algorithm>

#include "support/diagnostic.h"
#include "vta/rt/reference_programs.h"

namespace tessera::vta::reference {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throwDiagnostic("vta_workload", message, {}, "conv2d workload");
}

}  // namespace

Conv2dWorkload Conv2dWorkload::seed004(const Config& cfg) {
  Conv2dWorkload w;
  w.batch = cfg.batch();
  w.ocBlocks = std::max(1, 128 / cfg.blockOut());
  w.shift = cfg.inpWidth();
  w.clipMax = (1 << (cfg.inpWidth() - 1)) - 1;
  return w;
}

uint64_t conv2dDataBytes(const Config& cfg, const Conv2dWorkload& w) {
  return uint64_t(w.batch) * w.inChannels * w.height * w.width * cfg.inpWidth() / 8;
}

uint64_t conv2dKernelBytes(const Config& cfg, const Conv2dWorkload& w) {
  return uint64_t(w.outChannels) * w.inChannels * w.kernel * w.kernel * cfg.wgtWidth() / 8;
}

uint64_t conv2dOutputBytes(const Config& cfg, const Conv2dWorkload& w) {
  return uint64_t(w.batch) * w.outChannels * w.outHeight() * w.outWidth() * cfg.outWidth() / 8;
}

void conv2d(CommandQueue& q, const Conv2dWorkload& w, DeviceBuffer data, DeviceBuffer kernel,
            DeviceBuffer res) {
  const Config& cfg = q.config();
  const int bi = cfg.blockIn(), bo = cfg.blockOut();
  require(w.batch % cfg.batch() == 0, "batch must be a multiple of BATCH");
  require(w.inChannels % bi == 0, "input channels must be a multiple of BLOCK_IN");
  require(w.outChannels % (bo * w.ocBlocks * w.threads) == 0,
          "output channels must be a multiple of BLOCK_OUT · ocBlocks · threads");
  require(w.outHeight() % w.hBlock == 0, "output height must be a multiple of hBlock");
  const uint32_t kk = uint32_t(w.kernel * w.kernel);
  const uint32_t outW = uint32_t(w.outWidth()), outH = uint32_t(w.outHeight());
  const uint32_t icBlocks = uint32_t(w.inChannels / bi);
  const uint32_t ocBlocksTotal = uint32_t(w.outChannels / bo);
  const uint32_t tileRows = uint32_t(w.hBlock + w.kernel - 1);  // padded input rows per tile
  const uint32_t padW = uint32_t(w.width + 2 * w.pad);          // padded input row length
  // Per-thread SRAM regions (virtual threads own adjacent copies, spec §6.7).
  const uint32_t inpTile = tileRows * padW;                         // 144
  const uint32_t wgtTile = uint32_t(w.ocBlocks) * kk;               // 72
  const uint32_t accTile = uint32_t(w.ocBlocks * w.hBlock) * outW;  // 784
  const uint32_t hBlock = uint32_t(w.hBlock), ocBlocks = uint32_t(w.ocBlocks);
  const int threads = w.threads;

  // One micro-op kernel cache per coproc_uop_scope of the listing.
  UopKernelCache resetSite, gemmSite, shrSite, maxSite, minSite;

  for (int t = 0; t < threads; ++t) q.depPush(3, 2);
  const int batchTiles = w.batch / cfg.batch();
  const int ocTiles = w.outChannels / (bo * w.ocBlocks * threads);
  const int rowTiles = int(outH / hBlock);
  for (int bOut = 0; bOut < batchTiles; ++bOut) {
    for (int ocTile = 0; ocTile < ocTiles; ++ocTile) {
      for (int i2Outer = 0; i2Outer < rowTiles; ++i2Outer) {
        for (int t = 0; t < threads; ++t) {  // reset the accumulator tile
          q.depPop(3, 2);
          q.pushGemmOp(resetSite, t, [&](int32_t ts) {
            q.uopLoopBegin(ocBlocks, hBlock * outW, 0, 0);
            q.uopLoopBegin(hBlock, outW, 0, 0);
            for (uint32_t j = 0; j < outW; ++j) q.uopPush(0, 1, ts * accTile + j, 0, 0, 0, 0, 0);
            q.uopLoopEnd();
            q.uopLoopEnd();
          });
          q.depPush(2, 1);
        }
        // Input rows of this tile in padded coordinates, minus what y_pad supplies.
        const int firstPadded = i2Outer * w.hBlock;
        const uint32_t top = uint32_t(std::max(w.pad - firstPadded, 0));
        const uint32_t bottom =
            uint32_t(std::max(firstPadded + int(tileRows) - (w.pad + w.height), 0));
        const uint32_t rows = tileRows - top - bottom;
        const int64_t firstRow = firstPadded + int(top) - w.pad;
        for (uint32_t ic = 0; ic < icBlocks; ++ic) {
          const uint64_t inpOffset =
              (uint64_t(bOut * icBlocks + ic) * w.height + uint64_t(firstRow)) * w.width;
          for (int t = 0; t < threads; ++t) {  // unrolled virtual threads (no loops inside)
            const uint64_t ocFirst = uint64_t(ocTile * threads + t) * ocBlocks;
            q.depPop(2, 1);
            q.loadBuffer2D(data, inpOffset, uint32_t(w.width), rows, uint32_t(w.width),
                           uint32_t(w.pad), top, uint32_t(w.pad), bottom, t * inpTile,
                           MemType::kInp);
            q.loadBuffer2D(kernel, (ocFirst * icBlocks + ic) * kk, kk, ocBlocks, icBlocks * kk, 0,
                           0, 0, 0, t * wgtTile, MemType::kWgt);
            q.depPush(1, 2);
          }
          for (int t = 0; t < threads; ++t) {
            q.depPop(1, 2);
            q.pushGemmOp(gemmSite, t, [&](int32_t ts) {
              q.uopLoopBegin(ocBlocks, hBlock * outW, 0, kk);
              q.uopLoopBegin(hBlock, outW, padW, 0);
              for (uint32_t dy = 0; dy < uint32_t(w.kernel); ++dy) {
                for (uint32_t dx = 0; dx < uint32_t(w.kernel); ++dx) {
                  for (uint32_t j = 0; j < outW; ++j) {
                    q.uopPush(0, 0, ts * accTile + j, ts * inpTile + dy * padW + j + dx,
                              ts * wgtTile + dy * uint32_t(w.kernel) + dx, 0, 0, 0);
                  }
                }
              }
              q.uopLoopEnd();
              q.uopLoopEnd();
            });
            q.depPush(2, 1);
          }
        }
        for (int t = 0; t < threads; ++t) q.depPop(2, 1);
        for (int t = 0; t < threads; ++t) {  // shift, then clip as max and min
          auto alu = [&](UopKernelCache& site, int opcode, int32_t imm) {
            q.pushAluOp(site, t, [&](int32_t ts) {
              q.uopLoopBegin(accTile, 1, 1, 0);
              q.uopPush(1, 0, ts * accTile, ts * accTile, 0, opcode, 1, imm);
              q.uopLoopEnd();
            });
          };
          alu(shrSite, int(AluOpcode::kShr), w.shift);
          alu(maxSite, int(AluOpcode::kMax), 0);
          alu(minSite, int(AluOpcode::kMin), w.clipMax);
          q.depPush(2, 3);
        }
        for (int t = 0; t < threads; ++t) {  // one single-entry store per output tile entry
          q.depPop(2, 3);
          const uint64_t ocFirst = uint64_t(ocTile * threads + t) * ocBlocks;
          for (uint32_t i1 = 0; i1 < ocBlocks; ++i1) {
            for (uint32_t i2 = 0; i2 < hBlock; ++i2) {
              for (uint32_t i3 = 0; i3 < outW; ++i3) {
                const uint64_t row = uint64_t(i2Outer) * hBlock + i2;
                const uint64_t dst =
                    ((uint64_t(bOut) * ocBlocksTotal + ocFirst + i1) * outH + row) * outW + i3;
                q.storeBuffer2D(t * accTile + i1 * hBlock * outW + i2 * outW + i3, MemType::kOut,
                                res, dst, 1, 1, 1);
              }
            }
          }
          q.depPush(3, 2);
        }
      }
    }
  }
  for (int t = 0; t < threads; ++t) q.depPop(3, 2);
  q.synchronize();
}

}  // namespace tessera::vta::reference
