// GEMM and ALU execution of the simulator (spec §4.5, §4.6): the two-level micro-op loop nest with
// exact int32 wrap-around arithmetic. The int8 GEMM tile is the simulator's hot loop; it is a
// plain dot product over BLOCK_IN on contiguous arrays so the compiler can vectorise it.
#include <cstring>
#include <sstream>

#include "support/diagnostic.h"
#include "vta/rt/sim.h"

namespace tessera::vta {
namespace {

[[noreturn]] void failAt(const Instruction& insn, size_t index, const std::string& message) {
  throwDiagnostic("vta_sim", message, {}, instructionContext(insn, index));
}

int32_t wrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// Reads lane `lane` of a packed entry whose lanes are `bits` wide, sign-extended (spec §4.1).
int32_t readLane(const uint8_t* entry, int lane, int bits) {
  if (bits == 8) return static_cast<int8_t>(entry[lane]);
  if (bits == 16 || bits == 32) {
    int32_t v = 0;
    std::memcpy(&v, entry + static_cast<size_t>(lane) * (bits / 8), bits / 8);
    return bits == 16 ? static_cast<int16_t>(v) : v;
  }
  const int bit = lane * bits;
  const uint32_t raw = (entry[bit / 8] >> (bit % 8)) & ((1u << bits) - 1);
  const uint32_t sign = 1u << (bits - 1);
  return static_cast<int32_t>((raw ^ sign) - sign);
}

// acc[b][o] += Σ_k x[b][k] · w[o][k] for int8 operands; the BLOCK_IN trip count is a template
// parameter for the common sizes so the inner loop is fully unrolled and vectorised.
template <int kBlockIn>
void gemmTileInt8(int32_t* __restrict acc, const int8_t* __restrict x, const int8_t* __restrict w,
                  int batch, int blockOut, int blockIn) {
  const int bi = kBlockIn > 0 ? kBlockIn : blockIn;
  for (int b = 0; b < batch; ++b) {
    const int8_t* xb = x + b * bi;
    int32_t* ab = acc + b * blockOut;
    for (int o = 0; o < blockOut; ++o) {
      const int8_t* wo = w + o * bi;
      // |sum| <= 64 · 2^14 because BLOCK_IN <= 64 (an entry is at most 4096 bytes): no overflow.
      int32_t sum = 0;
      for (int k = 0; k < bi; ++k) sum += int32_t{xb[k]} * int32_t{wo[k]};
      ab[o] = wrapAdd(ab[o], sum);
    }
  }
}

// Calls f(dst, src, wgt) for every micro-op execution of a GEMM/ALU instruction, in order.
template <typename F>
void forEachUop(const Instruction& insn, const Uop* uops, F&& f) {
  for (uint32_t o = 0; o < insn.iterOut; ++o) {
    for (uint32_t i = 0; i < insn.iterIn; ++i) {
      const uint32_t dOff = o * insn.dstFactorOut + i * insn.dstFactorIn;
      const uint32_t sOff = o * insn.srcFactorOut + i * insn.srcFactorIn;
      const uint32_t wOff = o * insn.wgtFactorOut + i * insn.wgtFactorIn;
      for (uint32_t u = insn.uopBgn; u < insn.uopEnd; ++u) {
        f(uops[u].dstIdx + dOff, uops[u].srcIdx + sOff, uops[u].wgtIdx + wOff);
      }
    }
  }
}

template <int kBlockIn>
void gemmInt8(const Instruction& insn, const Uop* uops, int32_t* acc, const int8_t* inp,
              const int8_t* wgt, int batch, int blockIn, int blockOut) {
  const size_t accLanes = static_cast<size_t>(batch) * blockOut;
  const size_t inpLanes = static_cast<size_t>(batch) * blockIn;
  const size_t wgtLanes = static_cast<size_t>(blockOut) * blockIn;
  forEachUop(insn, uops, [&](uint32_t d, uint32_t s, uint32_t w) {
    gemmTileInt8<kBlockIn>(acc + d * accLanes, inp + s * inpLanes, wgt + w * wgtLanes, batch,
                           blockOut, blockIn);
  });
}

// One ALU lane operation; SHR with a negative operand shifts left (spec §4.6).
template <AluOpcode kOp>
int32_t aluOp(int32_t x, int32_t y) {
  if constexpr (kOp == AluOpcode::kMin) return x < y ? x : y;
  if constexpr (kOp == AluOpcode::kMax) return x > y ? x : y;
  if constexpr (kOp == AluOpcode::kAdd) return wrapAdd(x, y);
  if constexpr (kOp == AluOpcode::kMul) {
    return static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y));
  }
  if constexpr (kOp == AluOpcode::kShr) {
    return y >= 0 ? x >> y : static_cast<int32_t>(static_cast<uint32_t>(x) << -y);
  }
  return 0;
}

// Shift amounts outside [-31, 31] are undefined in the reference (x86 masks them); reject them.
bool badShift(int32_t y) {
  return y < -31 || y > 31;
}

template <AluOpcode kOp>
void aluLoop(const Instruction& insn, size_t index, const Uop* uops, int32_t* acc, int lanes) {
  forEachUop(insn, uops, [&](uint32_t d, uint32_t s, uint32_t) {
    int32_t* dst = acc + static_cast<size_t>(d) * lanes;
    if (insn.useImm) {
      for (int l = 0; l < lanes; ++l) dst[l] = aluOp<kOp>(dst[l], insn.imm);
      return;
    }
    const int32_t* src = acc + static_cast<size_t>(s) * lanes;
    for (int l = 0; l < lanes; ++l) {
      const int32_t y = src[l];  // read before the write of the same lane (s may equal d)
      if (kOp == AluOpcode::kShr && badShift(y)) {
        failAt(insn, index,
               "SHR operand " + std::to_string(y) + " (accumulator entry " + std::to_string(s) +
                   " lane " + std::to_string(l) + ") is outside the shift range [-31, 31]");
      }
      dst[l] = aluOp<kOp>(dst[l], y);
    }
  });
}

}  // namespace

void Simulator::checkComputeRanges(const Instruction& insn, size_t index, bool checkSrc,
                                   int64_t srcDepth, bool checkWgt) {
  const uint64_t uopDepth = static_cast<uint64_t>(cfg_.uopBuffDepth());
  if (insn.uopEnd > uopDepth) {
    failAt(insn, index,
           "field uop_end " + std::to_string(insn.uopEnd) + " exceeds the micro-op buffer depth " +
               std::to_string(uopDepth));
  }
  if (insn.uopBgn > insn.uopEnd) {
    failAt(insn, index,
           "field uop_bgn " + std::to_string(insn.uopBgn) + " is after uop_end " +
               std::to_string(insn.uopEnd));
  }
  if (insn.iterOut == 0 || insn.iterIn == 0 || insn.uopBgn == insn.uopEnd) return;
  // Indices are affine with non-negative factors, so the largest one comes from the largest
  // micro-op index plus the last iteration of both loops.
  struct Operand {
    const char* name;
    uint32_t Uop::* idx;
    uint32_t factorOut, factorIn;
    uint64_t depth;
    const char* buffer;
    bool check;
  };
  const Operand operands[] = {
      {"dst", &Uop::dstIdx, insn.dstFactorOut, insn.dstFactorIn,
       static_cast<uint64_t>(cfg_.accBuffDepth()), "accumulator", true},
      {"src", &Uop::srcIdx, insn.srcFactorOut, insn.srcFactorIn, static_cast<uint64_t>(srcDepth),
       insn.opcode == Opcode::kGemm ? "input" : "accumulator", checkSrc},
      {"wgt", &Uop::wgtIdx, insn.wgtFactorOut, insn.wgtFactorIn,
       static_cast<uint64_t>(cfg_.wgtBuffDepth()), "weight", checkWgt},
  };
  for (const Operand& op : operands) {
    if (!op.check) continue;
    uint32_t worstUop = insn.uopBgn;
    for (uint32_t u = insn.uopBgn; u < insn.uopEnd; ++u) {
      if (uops_[u].*op.idx > uops_[worstUop].*op.idx) worstUop = u;
    }
    const uint64_t base = uops_[worstUop].*op.idx;
    const uint64_t last =
        base + uint64_t{insn.iterOut - 1} * op.factorOut + uint64_t{insn.iterIn - 1} * op.factorIn;
    if (last < op.depth) continue;
    std::ostringstream msg;
    msg << "field " << op.name << "_factor_out/" << op.name << "_factor_in: " << op.buffer
        << " index " << last << " = micro-op " << worstUop << " " << op.name << "_idx " << base
        << " + " << (insn.iterOut - 1) << "·" << op.factorOut << " + " << (insn.iterIn - 1) << "·"
        << op.factorIn << " is outside the " << op.buffer << " buffer (depth " << op.depth << ")";
    failAt(insn, index, msg.str());
  }
}

void Simulator::execGemm(const Instruction& insn, size_t index) {
  const uint64_t executions = uint64_t{insn.iterOut} * insn.iterIn *
                              (insn.uopEnd > insn.uopBgn ? insn.uopEnd - insn.uopBgn : 0);
  if (!insn.resetReg) stats_.gemmCounter += executions;  // reset GEMMs are not counted
  if (skipExecution_) return;
  checkComputeRanges(insn, index, !insn.resetReg, cfg_.inpBuffDepth(), !insn.resetReg);
  const int batch = cfg_.batch(), blockIn = cfg_.blockIn(), blockOut = cfg_.blockOut();
  const size_t accLanes = static_cast<size_t>(batch) * blockOut;
  if (insn.resetReg) {
    forEachUop(insn, uops_.data(), [&](uint32_t d, uint32_t, uint32_t) {
      std::memset(acc_.data() + d * accLanes, 0, accLanes * sizeof(int32_t));
    });
    return;
  }
  if (cfg_.inpWidth() == 8 && cfg_.wgtWidth() == 8) {
    const auto* inp = reinterpret_cast<const int8_t*>(inp_.data());
    const auto* wgt = reinterpret_cast<const int8_t*>(wgt_.data());
    switch (blockIn) {
      case 16:
        gemmInt8<16>(insn, uops_.data(), acc_.data(), inp, wgt, batch, blockIn, blockOut);
        return;
      case 32:
        gemmInt8<32>(insn, uops_.data(), acc_.data(), inp, wgt, batch, blockIn, blockOut);
        return;
      case 8:
        gemmInt8<8>(insn, uops_.data(), acc_.data(), inp, wgt, batch, blockIn, blockOut);
        return;
      default:
        gemmInt8<0>(insn, uops_.data(), acc_.data(), inp, wgt, batch, blockIn, blockOut);
        return;
    }
  }
  // Other lane widths: packed lanes read one by one, products wrap like the int32 hardware.
  const size_t inpBytes = static_cast<size_t>(cfg_.inpElemBytes());
  const size_t wgtBytes = static_cast<size_t>(cfg_.wgtElemBytes());
  const int inpBits = cfg_.inpWidth(), wgtBits = cfg_.wgtWidth();
  forEachUop(insn, uops_.data(), [&](uint32_t d, uint32_t s, uint32_t w) {
    int32_t* acc = acc_.data() + d * accLanes;
    const uint8_t* x = inp_.data() + s * inpBytes;
    const uint8_t* wt = wgt_.data() + w * wgtBytes;
    for (int b = 0; b < batch; ++b) {
      for (int o = 0; o < blockOut; ++o) {
        uint32_t sum = 0;
        for (int k = 0; k < blockIn; ++k) {
          sum += static_cast<uint32_t>(readLane(x, b * blockIn + k, inpBits)) *
                 static_cast<uint32_t>(readLane(wt, o * blockIn + k, wgtBits));
        }
        acc[b * blockOut + o] = wrapAdd(acc[b * blockOut + o], static_cast<int32_t>(sum));
      }
    }
  });
}

void Simulator::execAlu(const Instruction& insn, size_t index) {
  const uint64_t executions = uint64_t{insn.iterOut} * insn.iterIn *
                              (insn.uopEnd > insn.uopBgn ? insn.uopEnd - insn.uopBgn : 0);
  stats_.aluCounter += executions;
  if (skipExecution_) return;
  checkComputeRanges(insn, index, !insn.useImm, cfg_.accBuffDepth(), false);
  if (insn.aluOpcode == AluOpcode::kShr && insn.useImm && badShift(insn.imm)) {
    failAt(insn, index,
           "field imm: SHR amount " + std::to_string(insn.imm) +
               " is outside the shift range [-31, 31]");
  }
  const int lanes = cfg_.batch() * cfg_.blockOut();
  switch (insn.aluOpcode) {
    case AluOpcode::kMin:
      aluLoop<AluOpcode::kMin>(insn, index, uops_.data(), acc_.data(), lanes);
      return;
    case AluOpcode::kMax:
      aluLoop<AluOpcode::kMax>(insn, index, uops_.data(), acc_.data(), lanes);
      return;
    case AluOpcode::kAdd:
      aluLoop<AluOpcode::kAdd>(insn, index, uops_.data(), acc_.data(), lanes);
      return;
    case AluOpcode::kShr:
      aluLoop<AluOpcode::kShr>(insn, index, uops_.data(), acc_.data(), lanes);
      return;
    case AluOpcode::kMul:
      aluLoop<AluOpcode::kMul>(insn, index, uops_.data(), acc_.data(), lanes);
      return;
  }
  failAt(insn, index,
         "field alu_opcode has unknown value " + std::to_string(static_cast<int>(insn.aluOpcode)));
}

}  // namespace tessera::vta
