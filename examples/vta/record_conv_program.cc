// Records the seed-004 convolution (spec §7.1) as a VTA program file that `tessera vta sim` and
// `tessera vta disasm` read: usage `vta_record_conv_program OUT.vtaprog [vta_config.json]
// [--threads N]`. `--threads 1` records the same tiling without virtual threads (the two
// 128-channel halves of the output then run one after the other on the same SRAM regions), for
// comparing latency hiding under the timing model; the default is the seed's 2.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "support/diagnostic.h"
#include "vta/rt/program_file.h"
#include "vta/rt/reference_programs.h"

namespace {

// Fills a device buffer with deterministic random bytes (every bit pattern is a valid lane set).
void fillRandom(tessera::vta::CommandQueue& q, tessera::vta::DeviceBuffer buffer, uint32_t seed) {
  std::mt19937 gen(seed);
  uint8_t* p = q.bufferCpuPtr(buffer);
  for (uint64_t i = 0; i < buffer.nbytes; ++i) p[i] = static_cast<uint8_t>(gen());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::vta;
  std::vector<std::string> args(argv + 1, argv + argc);
  int threads = 2;
  if (args.size() >= 2 && args[args.size() - 2] == "--threads") {
    threads = std::atoi(args.back().c_str());
    args.resize(args.size() - 2);
  }
  if (args.empty() || args.size() > 2 || threads < 1) {
    std::fprintf(stderr, "usage: %s OUT.vtaprog [vta_config.json] [--threads N]\n", argv[0]);
    return 2;
  }
  try {
    const Config cfg = args.size() == 2 ? loadConfig(args[1]) : Config::defaults();
    CommandQueue q(cfg);
    std::vector<Program> runs;
    q.captureRuns(&runs);
    reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
    w.threads = threads;
    DeviceBuffer data = q.bufferAlloc(reference::conv2dDataBytes(cfg, w));
    DeviceBuffer kernel = q.bufferAlloc(reference::conv2dKernelBytes(cfg, w));
    DeviceBuffer res = q.bufferAlloc(reference::conv2dOutputBytes(cfg, w));
    fillRandom(q, data, 1);
    fillRandom(q, kernel, 2);
    reference::conv2d(q, w, data, kernel, res);
    saveProgram(runs.at(0), args[0]);
    std::printf("wrote %s: %zu instructions for %s\n%s", args[0].c_str(),
                runs[0].instructions.size(), cfg.model().c_str(), q.stats().format().c_str());
    return 0;
  } catch (const tessera::DiagnosticError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
