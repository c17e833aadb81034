// Plain, obviously-correct helpers the VTA tests compare the simulator against.
#include "vta_test_util.h"

#include <algorithm>
#include <random>
#include <sstream>

namespace tessera::vta::test {

int32_t laneMin(int bits) {
  return bits >= 32 ? -(1 << 30) : -(1 << (bits - 1));
}

int32_t laneMax(int bits) {
  return bits >= 32 ? (1 << 30) - 1 : (1 << (bits - 1)) - 1;
}

std::vector<int32_t> randomInts(size_t n, int32_t lo, int32_t hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<int32_t> out(n);
  for (int32_t& v : out) v = dist(gen);
  return out;
}

int32_t truncate(int64_t v, int bits) {
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t raw = static_cast<uint64_t>(v) & mask;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int32_t>(static_cast<int64_t>((raw ^ sign) - sign));
}

std::vector<uint8_t> packLanes(std::span<const int32_t> lanes, int bits) {
  std::vector<uint8_t> out((lanes.size() * bits + 7) / 8, 0);
  for (size_t i = 0; i < lanes.size(); ++i) {
    const uint32_t v = static_cast<uint32_t>(lanes[i]);
    for (int b = 0; b < bits; ++b) {
      const size_t bit = i * bits + b;
      if ((v >> b) & 1u) out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  return out;
}

std::vector<int32_t> unpackLanes(std::span<const uint8_t> bytes, int bits, size_t count) {
  std::vector<int32_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    int64_t v = 0;
    for (int b = 0; b < bits; ++b) {
      const size_t bit = i * bits + b;
      if ((bytes[bit / 8] >> (bit % 8)) & 1u) v |= int64_t{1} << b;
    }
    out[i] = truncate(v, bits);
  }
  return out;
}

DeviceBuffer upload(CommandQueue& q, std::span<const int32_t> lanes, int bits) {
  const std::vector<uint8_t> bytes = packLanes(lanes, bits);
  DeviceBuffer buf = q.bufferAlloc(bytes.size());
  q.bufferCopyIn(bytes.data(), buf, 0, bytes.size());
  return buf;
}

std::vector<int32_t> download(CommandQueue& q, DeviceBuffer buffer, int bits, size_t count) {
  std::vector<uint8_t> bytes((count * bits + 7) / 8);
  q.bufferCopyOut(buffer, 0, bytes.data(), bytes.size());
  return unpackLanes(bytes, bits, count);
}

std::vector<int32_t> packData(std::span<const int32_t> nchw, int n, int c, int h, int w, int b,
                              int ci) {
  std::vector<int32_t> out(nchw.size());
  size_t pos = 0;
  for (int no = 0; no < n / b; ++no)
    for (int co = 0; co < c / ci; ++co)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int bi = 0; bi < b; ++bi)
            for (int cc = 0; cc < ci; ++cc) {
              const int nn = no * b + bi, ch = co * ci + cc;
              out[pos++] = nchw[((size_t(nn) * c + ch) * h + y) * w + x];
            }
  return out;
}

std::vector<int32_t> packKernel(std::span<const int32_t> oihw, int o, int i, int k, int co,
                                int ci) {
  std::vector<int32_t> out(oihw.size());
  size_t pos = 0;
  for (int oo = 0; oo < o / co; ++oo)
    for (int io = 0; io < i / ci; ++io)
      for (int dy = 0; dy < k; ++dy)
        for (int dx = 0; dx < k; ++dx)
          for (int oc = 0; oc < co; ++oc)
            for (int ic = 0; ic < ci; ++ic) {
              const int och = oo * co + oc, ich = io * ci + ic;
              out[pos++] = oihw[((size_t(och) * i + ich) * k + dy) * k + dx];
            }
  return out;
}

std::vector<int32_t> referenceConv2d(std::span<const int32_t> data, std::span<const int32_t> kernel,
                                     int n, int c, int h, int w, int o, int k, int pad, int shift,
                                     int clipMax, int batchBlock, int blockOut) {
  const int oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
  std::vector<int32_t> nchw(size_t(n) * o * oh * ow);
  for (int nn = 0; nn < n; ++nn)
    for (int oc = 0; oc < o; ++oc)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          int64_t sum = 0;
          for (int ic = 0; ic < c; ++ic)
            for (int dy = 0; dy < k; ++dy)
              for (int dx = 0; dx < k; ++dx) {
                const int iy = y + dy - pad, ix = x + dx - pad;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                sum += int64_t{data[((size_t(nn) * c + ic) * h + iy) * w + ix]} *
                       kernel[((size_t(oc) * c + ic) * k + dy) * k + dx];
              }
          const int32_t acc = truncate(sum, 32) >> shift;
          nchw[((size_t(nn) * o + oc) * oh + y) * ow + x] = std::clamp(acc, 0, clipMax);
        }
  return packData(nchw, n, o, oh, ow, batchBlock, blockOut);
}

std::vector<int32_t> referenceMatmul(std::span<const int32_t> a, std::span<const int32_t> w, int o,
                                     int n, int m, int b, int bi, int bo) {
  std::vector<int32_t> out(size_t(o) * m * b * bo);
  for (int oo = 0; oo < o; ++oo)
    for (int mm = 0; mm < m; ++mm)
      for (int bb = 0; bb < b; ++bb)
        for (int co = 0; co < bo; ++co) {
          int64_t sum = 0;
          for (int nn = 0; nn < n; ++nn)
            for (int k = 0; k < bi; ++k) {
              sum += int64_t{a[((size_t(oo) * n + nn) * b + bb) * bi + k]} *
                     w[((size_t(mm) * n + nn) * bo + co) * bi + k];
            }
          out[((size_t(oo) * m + mm) * b + bb) * bo + co] = truncate(sum, 32);
        }
  return out;
}

std::vector<int32_t> shiftClip(std::vector<int32_t> v, int shift, int clipMax) {
  for (int32_t& x : v) x = std::clamp(x >> shift, 0, clipMax);
  return v;
}

std::vector<int32_t> truncateAll(std::vector<int32_t> v, int bits) {
  for (int32_t& x : v) x = truncate(x, bits);
  return v;
}

InsnCounts countInstructions(std::span<const Instruction> stream) {
  InsnCounts c;
  for (const Instruction& insn : stream) {
    switch (insn.opcode) {
      case Opcode::kLoad:
        if (insn.isNop()) {
          (insn.memType == MemType::kUop ? c.computeNop : c.loadNop)++;
        } else if (insn.memType == MemType::kInp) {
          c.loadInp++;
        } else if (insn.memType == MemType::kWgt) {
          c.loadWgt++;
        } else if (insn.memType == MemType::kUop) {
          c.loadUop++;
        } else {
          c.loadAcc++;
        }
        break;
      case Opcode::kStore:
        (insn.isNop() ? c.storeNop : c.store)++;
        break;
      case Opcode::kGemm:
        c.gemm++;
        if (insn.resetReg) c.gemmReset++;
        break;
      case Opcode::kAlu:
        c.alu++;
        break;
      case Opcode::kFinish:
        c.finish++;
        break;
    }
  }
  return c;
}

std::string describe(const InsnCounts& c) {
  std::ostringstream os;
  os << "loadInp " << c.loadInp << " loadWgt " << c.loadWgt << " loadUop " << c.loadUop
     << " loadAcc " << c.loadAcc << " gemm " << c.gemm << " (reset " << c.gemmReset << ") alu "
     << c.alu << " store " << c.store << " nops " << c.loadNop << "/" << c.computeNop << "/"
     << c.storeNop << " finish " << c.finish << " total " << c.total();
  return os.str();
}

Stats makeStats(uint64_t inp, uint64_t wgt, uint64_t acc, uint64_t uop, uint64_t out, uint64_t gemm,
                uint64_t alu) {
  return Stats{inp, wgt, acc, uop, out, gemm, alu};
}

Config configBatch2() {
  Config c;
  c.logBatch = 1;
  return c;
}

Config configBlock32() {
  Config c;
  c.logBlock = 5;
  return c;
}

Config configBlock8() {
  Config c;
  c.logBlock = 3;
  c.logInpBuffSize = 13;
  c.logWgtBuffSize = 15;
  c.logAccBuffSize = 15;
  return c;
}

Config configInt4() {
  Config c;
  c.logInpWidth = 2;
  c.logWgtWidth = 2;
  // Narrower lanes deepen the buffers; shrink them so the micro-op still fits 32 bits.
  c.logInpBuffSize = 14;
  c.logWgtBuffSize = 17;
  return c;
}

}  // namespace tessera::vta::test
