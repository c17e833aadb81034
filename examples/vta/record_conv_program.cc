// Records the seed-004 convolution (spec §7.1) as a VTA program file that `tessera vta sim` and
// `tessera vta disasm` read: usage `vta_record_conv_program OUT.vtaprog [vta_config.json]`.
#include <cstdio>
#include <random>
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
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s OUT.vtaprog [vta_config.json]\n", argv[0]);
    return 2;
  }
  try {
    const Config cfg = argc == 3 ? loadConfig(argv[2]) : Config::defaults();
    CommandQueue q(cfg);
    std::vector<Program> runs;
    q.captureRuns(&runs);
    const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
    DeviceBuffer data = q.bufferAlloc(reference::conv2dDataBytes(cfg, w));
    DeviceBuffer kernel = q.bufferAlloc(reference::conv2dKernelBytes(cfg, w));
    DeviceBuffer res = q.bufferAlloc(reference::conv2dOutputBytes(cfg, w));
    fillRandom(q, data, 1);
    fillRandom(q, kernel, 2);
    reference::conv2d(q, w, data, kernel, res);
    saveProgram(runs.at(0), argv[1]);
    std::printf("wrote %s: %zu instructions for %s\n%s", argv[1], runs[0].instructions.size(),
                cfg.model().c_str(), q.stats().format().c_str());
    return 0;
  } catch (const tessera::DiagnosticError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
