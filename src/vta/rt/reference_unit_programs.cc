// The programs of TVM's VTA instruction unit tests (spec §7.4, test_vta_insn.py) as their lowered
// code calls the runtime: accumulator loads (plain and padded), a small GEMM with and without two
// virtual threads, single ALU operations and the relu / shift-and-scale pipelines.
#include "vta/rt/reference_programs.h"

namespace tessera::vta::reference {
namespace {

// Accumulator tile -> ALU ops -> store: the common body of the ALU tests. `ops` run in order over
// `entries` contiguous accumulator entries, each as one single-micro-op kernel with one loop.
struct AluStep {
  AluOpcode op;
  bool useImm;
  int32_t imm;
  uint32_t src;  // source entry of the tensor operand
};

void storeAll(CommandQueue& q, DeviceBuffer res, uint32_t entries) {
  q.depPush(2, 3);
  q.depPop(2, 3);
  q.storeBuffer2D(0, MemType::kOut, res, 0, entries, 1, entries);
  q.synchronize();
}

void aluSteps(CommandQueue& q, uint32_t entries, std::initializer_list<AluStep> steps) {
  for (const AluStep& step : steps) {
    UopKernelCache site;  // each step is its own call site
    q.pushAluOp(site, std::nullopt, [&](int32_t) {
      q.uopLoopBegin(entries, 1, 1, 0);
      q.uopPush(1, 0, 0, step.src, 0, int(step.op), step.useImm ? 1 : 0, step.imm);
      q.uopLoopEnd();
    });
  }
}

int32_t clipMax(const Config& cfg) {
  return (1 << (cfg.inpWidth() - 1)) - 1;
}

}  // namespace

void saveLoadOut(CommandQueue& q, DeviceBuffer x, DeviceBuffer y) {
  constexpr uint32_t kEntries = 6 * 6;
  // `x >> 0` vanishes once both accumulator stages share storage: no ALU op (spec §7.4).
  q.loadBuffer2D(x, 0, kEntries, 1, kEntries, 0, 0, 0, 0, 0, MemType::kAcc);
  storeAll(q, y, kEntries);
}

void paddedLoad(CommandQueue& q, DeviceBuffer x, DeviceBuffer y, int yBefore, int xBefore,
                int yAfter, int xAfter) {
  constexpr uint32_t kRows = 3, kCols = 5;
  q.loadBuffer2D(x, 0, kCols, kRows, kCols, uint32_t(xBefore), uint32_t(yBefore), uint32_t(xAfter),
                 uint32_t(yAfter), 0, MemType::kAcc);
  storeAll(q, y, (kRows + yBefore + yAfter) * (kCols + xBefore + xAfter));
}

void gemm(CommandQueue& q, DeviceBuffer x, DeviceBuffer w, DeviceBuffer y, bool smt) {
  // o = 4 batch blocks, n = 1 reduction block, m = 4 output blocks; the accumulator tile is
  // (bo, co) row-major. With smt, thread t owns bo = 2t, 2t + 1 and loads all weights itself.
  const int threads = smt ? 2 : 1;
  const uint32_t bos = 4 / uint32_t(threads);  // batch blocks per thread
  const uint32_t accTile = bos * 4, inpTile = bos, wgtTile = 4;
  const int32_t shift = 8, clip = clipMax(q.config());
  UopKernelCache resetSite, gemmSite, shrSite, maxSite, minSite;
  auto closure = [&](int t) { return smt ? std::optional<int32_t>(t) : std::nullopt; };
  for (int t = 0; t < threads; ++t) {
    q.pushGemmOp(resetSite, closure(t), [&](int32_t ts) {
      q.uopLoopBegin(bos, 4, 0, 0);
      q.uopLoopBegin(4, 1, 0, 0);
      q.uopPush(0, 1, ts * accTile, 0, 0, 0, 0, 0);
      q.uopLoopEnd();
      q.uopLoopEnd();
    });
    q.depPush(2, 1);
  }
  for (int t = 0; t < threads; ++t) {
    q.depPop(2, 1);
    q.loadBuffer2D(x, t * inpTile, inpTile, 1, inpTile, 0, 0, 0, 0, t * inpTile, MemType::kInp);
    q.loadBuffer2D(w, 0, wgtTile, 1, wgtTile, 0, 0, 0, 0, t * wgtTile, MemType::kWgt);
    q.depPush(1, 2);
  }
  for (int t = 0; t < threads; ++t) {
    q.depPop(1, 2);
    q.pushGemmOp(gemmSite, closure(t), [&](int32_t ts) {
      q.uopLoopBegin(bos, 4, 1, 0);
      q.uopLoopBegin(4, 1, 0, 1);
      q.uopPush(0, 0, ts * accTile, ts * inpTile, ts * wgtTile, 0, 0, 0);
      q.uopLoopEnd();
      q.uopLoopEnd();
    });
    auto alu = [&](UopKernelCache& site, AluOpcode op, int32_t imm) {
      q.pushAluOp(site, closure(t), [&](int32_t ts) {
        q.uopLoopBegin(accTile, 1, 1, 0);
        q.uopPush(1, 0, ts * accTile, ts * accTile, 0, int(op), 1, imm);
        q.uopLoopEnd();
      });
    };
    alu(shrSite, AluOpcode::kShr, shift);
    alu(maxSite, AluOpcode::kMax, 0);
    alu(minSite, AluOpcode::kMin, clip);
    q.depPush(2, 3);
  }
  for (int t = 0; t < threads; ++t) {
    q.depPop(2, 3);
    q.storeBuffer2D(t * accTile, MemType::kOut, y, t * accTile, accTile, 1, accTile);
  }
  q.synchronize();
}

void aluImm(CommandQueue& q, AluOpcode op, int32_t imm, DeviceBuffer a, DeviceBuffer res) {
  constexpr uint32_t kEntries = 8 * 8;
  q.loadBuffer2D(a, 0, kEntries, 1, kEntries, 0, 0, 0, 0, 0, MemType::kAcc);
  aluSteps(q, kEntries, {{op, true, imm, 0}});
  storeAll(q, res, kEntries);
}

void aluTensor(CommandQueue& q, AluOpcode op, DeviceBuffer a, DeviceBuffer b, DeviceBuffer res) {
  constexpr uint32_t kEntries = 8 * 8;
  q.loadBuffer2D(a, 0, kEntries, 1, kEntries, 0, 0, 0, 0, 0, MemType::kAcc);
  q.loadBuffer2D(b, 0, kEntries, 1, kEntries, 0, 0, 0, 0, kEntries, MemType::kAcc);
  aluSteps(q, kEntries, {{op, false, 0, kEntries}});
  storeAll(q, res, kEntries);
}

void relu(CommandQueue& q, DeviceBuffer a, DeviceBuffer res) {
  constexpr uint32_t kEntries = 8 * 10;
  q.loadBuffer2D(a, 0, kEntries, 1, kEntries, 0, 0, 0, 0, 0, MemType::kAcc);
  aluSteps(q, kEntries,
           {{AluOpcode::kMax, true, 0, 0}, {AluOpcode::kMin, true, clipMax(q.config()), 0}});
  storeAll(q, res, kEntries);
}

void shiftAndScale(CommandQueue& q, DeviceBuffer a, DeviceBuffer res, int32_t immShift,
                   int32_t immScale) {
  constexpr uint32_t kEntries = 2 * 8;
  q.loadBuffer2D(a, 0, kEntries, 1, kEntries, 0, 0, 0, 0, 0, MemType::kAcc);
  if (immShift != 0) aluSteps(q, kEntries, {{AluOpcode::kAdd, true, immShift, 0}});
  aluSteps(q, kEntries, {{AluOpcode::kShr, true, immScale, 0}});
  storeAll(q, res, kEntries);
}

}  // namespace tessera::vta::reference
