// Throughput of the VTA functional simulator: GEMM micro-op executions and int8
// multiply-accumulates per second, and host time per seed-004 conv2d program (recording +
// simulation, or replay only).
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>

#include "vta/rt/program_file.h"
#include "vta/rt/reference_programs.h"

namespace {

using namespace tessera::vta;

void fillRandom(CommandQueue& q, DeviceBuffer buffer, uint32_t seed) {
  std::mt19937 gen(seed);
  uint8_t* p = q.bufferCpuPtr(buffer);
  for (uint64_t i = 0; i < buffer.nbytes; ++i) p[i] = static_cast<uint8_t>(gen());
}

void setRates(benchmark::State& state, const Config& cfg, uint64_t gemmUops) {
  const double macs = double(gemmUops) * cfg.batch() * cfg.blockIn() * cfg.blockOut();
  state.counters["gemm_uops/s"] =
      benchmark::Counter(double(gemmUops), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MAC/s"] = benchmark::Counter(macs, benchmark::Counter::kIsIterationInvariantRate);
}

Config configFor(int logBlock) {
  Config cfg;
  cfg.logBlock = logBlock;
  return cfg;
}

// Everything a conv2d layer costs on the host: runtime calls, encoding, simulation.
void BM_Conv2dSeed004EndToEnd(benchmark::State& state) {
  const Config cfg = configFor(int(state.range(0)));
  const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  uint64_t gemmUops = 0;
  for (auto _ : state) {
    CommandQueue q(cfg);
    DeviceBuffer data = q.bufferAlloc(reference::conv2dDataBytes(cfg, w));
    DeviceBuffer kernel = q.bufferAlloc(reference::conv2dKernelBytes(cfg, w));
    DeviceBuffer res = q.bufferAlloc(reference::conv2dOutputBytes(cfg, w));
    fillRandom(q, data, 1);
    fillRandom(q, kernel, 2);
    reference::conv2d(q, w, data, kernel, res);
    gemmUops = q.stats().gemmCounter;
    benchmark::DoNotOptimize(q.bufferCpuPtr(res)[0]);
  }
  setRates(state, cfg, gemmUops);
}
BENCHMARK(BM_Conv2dSeed004EndToEnd)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond);

// Replaying a recorded conv2d program file image (what `tessera vta sim` does).
void BM_Conv2dSeed004Replay(benchmark::State& state) {
  const Config cfg = configFor(int(state.range(0)));
  const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  CommandQueue q(cfg);
  std::vector<Program> runs;
  q.captureRuns(&runs);
  DeviceBuffer data = q.bufferAlloc(reference::conv2dDataBytes(cfg, w));
  DeviceBuffer kernel = q.bufferAlloc(reference::conv2dKernelBytes(cfg, w));
  DeviceBuffer res = q.bufferAlloc(reference::conv2dOutputBytes(cfg, w));
  fillRandom(q, data, 1);
  fillRandom(q, kernel, 2);
  reference::conv2d(q, w, data, kernel, res);
  uint64_t gemmUops = 0;
  for (auto _ : state) gemmUops = simulate(runs.at(0)).gemmCounter;
  setRates(state, cfg, gemmUops);
}
BENCHMARK(BM_Conv2dSeed004Replay)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond);

// The GEMM loop alone: one instruction of 64 x 64 x 126 micro-ops on resident data.
void BM_GemmInstruction(benchmark::State& state) {
  const Config cfg = configFor(int(state.range(0)));
  Dram dram;
  Simulator sim(cfg, dram);
  const IsaLayout layout(cfg);
  std::vector<uint32_t> uops;
  for (uint32_t u = 0; u < 126; ++u) uops.push_back(layout.encodeUop(Uop{u % 14, u, u % 9}));
  const uint64_t uopPhys = dram.allocate(uops.size() * 4);
  std::memcpy(dram.translate(uopPhys, uops.size() * 4), uops.data(), uops.size() * 4);
  Instruction load;
  load.opcode = Opcode::kLoad;
  load.memType = MemType::kUop;
  load.dramBase = uint32_t(uopPhys / 4);
  load.ySize = 1;
  load.xSize = load.xStride = uint32_t(uops.size());
  Instruction gemm;
  gemm.opcode = Opcode::kGemm;
  gemm.uopEnd = uint32_t(uops.size());
  gemm.iterOut = gemm.iterIn = 64;
  gemm.dstFactorIn = 1;
  Instruction finish;
  finish.opcode = Opcode::kFinish;
  sim.run(std::vector{layout.encode(load), layout.encode(finish)});
  const std::vector<EncodedInstruction> program = {layout.encode(gemm), layout.encode(finish)};
  for (auto _ : state) sim.run(program);
  setRates(state, cfg, uint64_t(64) * 64 * uops.size());
}
BENCHMARK(BM_GemmInstruction)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
