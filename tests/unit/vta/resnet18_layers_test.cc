// Every VTA-eligible convolution of ResNet-18 (all but the first: 3x3 and strided 3x3 and 1x1
// downsampling layers from 56x56x64 to 7x7x512) compiled from TE with the default schedule,
// lowered with VTA's passes and run on the simulator, against a plain int32 convolution with the
// same requantization (>> 8, clip to [0, 127]).
#include <gtest/gtest.h>

#include <random>

#include "tir/transform/lower.h"
#include "vta/tir/host_program.h"
#include "vta/tir/passes.h"
#include "vta/topi/conv2d_packed.h"

namespace tessera::vta {
namespace {

struct Layer {
  int64_t channels, size, outChannels, kernel, stride;
};

std::vector<int8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> lane(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = int8_t(lane(rng));
  return v;
}

// (N, C, H, W) with N, C split into blocks of bn, bc: the packed element of (n, c, y, x).
size_t packedIndex(int64_t n, int64_t c, int64_t y, int64_t x, int64_t C, int64_t H, int64_t W,
                   int64_t bn, int64_t bc) {
  return size_t(((((n / bn) * (C / bc) + c / bc) * H + y) * W + x) * bn * bc + (n % bn) * bc +
                c % bc);
}

// Compiles and simulates one layer with `epilogue` (channel operands random in [-2000, 2000]);
// returns the device output and the CPU's, both packed.
struct Outcome {
  std::vector<int8_t> device, cpu;
  uint64_t gemm = 0;
};

Outcome runLayer(const Config& cfg, const Layer& l, std::vector<EpilogueOp> epilogue,
                 uint32_t seed) {
  Conv2dPackedShape s;
  s.inChannels = l.channels;
  s.height = s.width = l.size;
  s.outChannels = l.outChannels;
  s.kernel = l.kernel;
  s.pad = l.kernel / 2;
  s.stride = l.stride;
  s.epilogue = epilogue;
  const int64_t out = (l.size + 2 * s.pad - l.kernel) / l.stride + 1;
  tir::Schedule sch(conv2dPackedFunc(cfg, s));
  scheduleConv2dPacked(sch, cfg, s, defaultConv2dPackedKnobs(cfg, s));
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, cfg);
  const tir::PrimFunc lowered = tir::transform::lower(sch.func(), ctx);

  const std::vector<int8_t> data = randomBytes(size_t(l.channels * l.size * l.size), seed);
  const std::vector<int8_t> kernel =
      randomBytes(size_t(l.outChannels * l.channels * l.kernel * l.kernel), seed + 1);
  std::vector<int8_t> packedData(data.size()), packedKernel(kernel.size());
  for (int64_t c = 0; c < l.channels; ++c)
    for (int64_t y = 0; y < l.size; ++y)
      for (int64_t x = 0; x < l.size; ++x)
        packedData[packedIndex(0, c, y, x, l.channels, l.size, l.size, 1, cfg.blockIn())] =
            data[size_t((c * l.size + y) * l.size + x)];
  for (int64_t o = 0; o < l.outChannels; ++o)
    for (int64_t c = 0; c < l.channels; ++c)
      for (int64_t dy = 0; dy < l.kernel; ++dy)
        for (int64_t dx = 0; dx < l.kernel; ++dx)
          packedKernel[packedIndex(o, c, dy, dx, l.channels, l.kernel, l.kernel, cfg.blockOut(),
                                   cfg.blockIn())] =
              kernel[size_t(((o * l.channels + c) * l.kernel + dy) * l.kernel + dx)];
  // Channel operands: one int32 per output channel, packed (O/co, 1, 1, 1, co) = channel order.
  std::vector<std::vector<int32_t>> operands;
  std::mt19937 rng(seed + 2);
  for (const EpilogueOp& op : s.epilogueOps())
    if (op.kind == EpilogueOp::Kind::kAddChannel) {
      std::vector<int32_t> v(size_t(l.outChannels));
      for (int32_t& x : v) x = std::uniform_int_distribution<int32_t>(-2000, 2000)(rng);
      operands.push_back(v);
    }
  Outcome r;
  r.cpu.resize(size_t(l.outChannels * out * out));
  for (int64_t o = 0; o < l.outChannels; ++o)
    for (int64_t y = 0; y < out; ++y)
      for (int64_t x = 0; x < out; ++x) {
        int32_t acc = 0;
        for (int64_t c = 0; c < l.channels; ++c)
          for (int64_t dy = 0; dy < l.kernel; ++dy)
            for (int64_t dx = 0; dx < l.kernel; ++dx) {
              const int64_t yy = y * l.stride + dy - s.pad, xx = x * l.stride + dx - s.pad;
              if (yy < 0 || yy >= l.size || xx < 0 || xx >= l.size) continue;
              acc +=
                  int32_t(data[size_t((c * l.size + yy) * l.size + xx)]) *
                  int32_t(kernel[size_t(((o * l.channels + c) * l.kernel + dy) * l.kernel + dx)]);
            }
        size_t operand = 0;
        for (const EpilogueOp& op : s.epilogueOps()) {
          switch (op.kind) {
            case EpilogueOp::Kind::kShiftRight:
              acc >>= op.imm;
              break;
            case EpilogueOp::Kind::kShiftLeft:
              acc = int32_t(uint32_t(acc) << op.imm);
              break;
            case EpilogueOp::Kind::kAdd:
              acc += int32_t(op.imm);
              break;
            case EpilogueOp::Kind::kMax:
              acc = std::max(acc, int32_t(op.imm));
              break;
            case EpilogueOp::Kind::kMin:
              acc = std::min(acc, int32_t(op.imm));
              break;
            case EpilogueOp::Kind::kAddChannel:
              acc += operands[operand++][size_t(o)];
              break;
          }
        }
        r.cpu[packedIndex(0, o, y, x, l.outChannels, out, out, 1, cfg.blockOut())] = int8_t(acc);
      }

  CommandQueue q(cfg);
  std::vector<DeviceBuffer> args = {q.bufferAlloc(packedData.size()),
                                    q.bufferAlloc(packedKernel.size())};
  q.bufferCopyIn(packedData.data(), args[0], 0, packedData.size());
  q.bufferCopyIn(packedKernel.data(), args[1], 0, packedKernel.size());
  for (const std::vector<int32_t>& v : operands) {
    args.push_back(q.bufferAlloc(v.size() * 4));
    q.bufferCopyIn(v.data(), args.back(), 0, v.size() * 4);
  }
  const DeviceBuffer dr = q.bufferAlloc(r.cpu.size());
  args.push_back(dr);
  runOnVta(lowered, q, args);
  r.device.resize(r.cpu.size());
  q.bufferCopyOut(dr, 0, r.device.data(), r.device.size());
  r.gemm = q.stats().gemmCounter;
  return r;
}

TEST(VtaResnet18Layers, EveryEligibleConvolutionMatchesTheCpu) {
  const Config cfg = Config::defaults();
  const Layer layers[] = {{64, 56, 64, 3, 1},   {64, 56, 128, 3, 2},  {64, 56, 128, 1, 2},
                          {128, 28, 128, 3, 1}, {128, 28, 256, 3, 2}, {128, 28, 256, 1, 2},
                          {256, 14, 256, 3, 1}, {256, 14, 512, 3, 2}, {256, 14, 512, 1, 2},
                          {512, 7, 512, 3, 1}};
  uint32_t seed = 1;
  for (const Layer& l : layers) {
    SCOPED_TRACE(std::to_string(l.channels) + "x" + std::to_string(l.size) + " -> " +
                 std::to_string(l.outChannels) + " k" + std::to_string(l.kernel) + " s" +
                 std::to_string(l.stride));
    using K = EpilogueOp::Kind;
    const Outcome r = runLayer(cfg, l, {{K::kShiftRight, 8}, {K::kMax, 0}, {K::kMin, 127}}, seed);
    seed += 3;
    EXPECT_EQ(r.device, r.cpu);
    // Every multiply-accumulate ran on the GEMM core: MACs / (16 x 16) GEMM micro-ops.
    const int64_t out = (l.size + 2 * (l.kernel / 2) - l.kernel) / l.stride + 1;
    EXPECT_EQ(r.gemm * 256, uint64_t(l.outChannels * out * out * l.channels * l.kernel * l.kernel));
  }
}

// A quantized model's requantization (as graph packing leaves it for VTA): a per-channel bias
// loaded into the accumulator and added by the ALU, relu, a rounding add, a shift and a clip
// done as min then max.
TEST(VtaResnet18Layers, ChannelBiasAndRequantizeEpilogueMatchesTheCpu) {
  const Config cfg = Config::defaults();
  using K = EpilogueOp::Kind;
  const std::vector<EpilogueOp> requantize = {{K::kAddChannel, 0}, {K::kMax, 0},   {K::kAdd, 128},
                                              {K::kShiftRight, 8}, {K::kMin, 127}, {K::kMax, -127}};
  for (const Layer& l : {Layer{32, 14, 32, 3, 1}, Layer{64, 28, 128, 3, 2}}) {
    const Outcome r = runLayer(cfg, l, requantize, 77);
    EXPECT_EQ(r.device, r.cpu);
  }
}

}  // namespace
}  // namespace tessera::vta
