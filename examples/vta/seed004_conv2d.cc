// Seed 004 with Tessera: the ResNet-18 layer (1x256x14x14, 256 filters 3x3, pad 1) defined in TE,
// scheduled with the seed's schedule (tiles, virtual threads, SRAM scopes, DMA and ALU pragmas,
// GEMM tensorization), lowered with VTA's passes, run on the simulator, checked against a plain
// CPU convolution, and the simulator's statistics printed as the seed prints them.
//
//   seed004_conv2d [--print-lowered] [--config vta_config.json]
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "support/diagnostic.h"
#include "tir/printer/printer.h"
#include "tir/transform/lower.h"
#include "vta/tir/host_program.h"
#include "vta/tir/passes.h"
#include "vta/topi/conv2d_packed.h"

using namespace tessera;

namespace {

// The seed's reference: int32 NCHW convolution, >> shift, clip to [0, 127], int8 — then packed
// to (N/b, O/co, H, W, b, co) as the device writes it.
std::vector<int8_t> reference(const std::vector<int8_t>& data, const std::vector<int8_t>& kernel,
                              const vta::Conv2dPackedShape& s, const vta::Config& c) {
  const int64_t n = s.batch, ci = s.inChannels, h = s.height, w = s.width, co = s.outChannels;
  const int64_t k = s.kernel, p = s.pad, b = c.batch(), bo = c.blockOut();
  std::vector<int8_t> out(size_t(n * co * h * w));
  for (int64_t in = 0; in < n; ++in)
    for (int64_t oc = 0; oc < co; ++oc)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
          int32_t acc = 0;
          for (int64_t ic = 0; ic < ci; ++ic)
            for (int64_t dy = 0; dy < k; ++dy)
              for (int64_t dx = 0; dx < k; ++dx) {
                const int64_t yy = y + dy - p, xx = x + dx - p;
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                acc += int32_t(data[size_t(((in * ci + ic) * h + yy) * w + xx)]) *
                       int32_t(kernel[size_t(((oc * ci + ic) * k + dy) * k + dx)]);
              }
          const int32_t v = std::min(std::max(acc >> s.shift, 0), 127);
          const int64_t packed = ((((in / b) * (co / bo) + oc / bo) * h + y) * w + x) * b * bo +
                                 (in % b) * bo + oc % bo;
          out[size_t(packed)] = int8_t(v);
        }
  return out;
}

// NCHW -> (N/b, C/c, H, W, b, c), and OIHW -> (O/co, I/ci, kh, kw, co, ci).
std::vector<int8_t> pack(const std::vector<int8_t>& t, int64_t n, int64_t c, int64_t h, int64_t w,
                         int64_t bn, int64_t bc) {
  std::vector<int8_t> out(t.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          out[size_t(((((i / bn) * (c / bc) + j / bc) * h + y) * w + x) * bn * bc + (i % bn) * bc +
                     j % bc)] = t[size_t(((i * c + j) * h + y) * w + x)];
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool printLowered = false;
  vta::Config config = vta::Config::defaults();
  try {
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--print-lowered")) {
        printLowered = true;
      } else if (!std::strcmp(argv[i], "--config") && i + 1 < argc) {
        config = vta::loadConfig(argv[++i]);
      } else {
        std::cerr << "usage: seed004_conv2d [--print-lowered] [--config vta_config.json]\n";
        return 2;
      }
    }
    const vta::Conv2dPackedShape s;
    tir::Schedule sch(vta::conv2dPackedFunc(config, s));
    vta::scheduleConv2dPacked(sch, config, s, {});
    tir::transform::PassContext ctx;
    vta::addVtaLowerPasses(ctx, config);
    const tir::PrimFunc lowered = tir::transform::lower(sch.func(), ctx);
    if (printLowered) std::cout << tir::toScript(lowered) << "\n";

    std::mt19937 rng(0);
    std::uniform_int_distribution<int> lane(-128, 127);
    std::vector<int8_t> data(size_t(s.batch * s.inChannels * s.height * s.width));
    std::vector<int8_t> kernel(size_t(s.outChannels * s.inChannels * s.kernel * s.kernel));
    for (int8_t& v : data) v = int8_t(lane(rng));
    for (int8_t& v : kernel) v = int8_t(lane(rng));
    const std::vector<int8_t> packedData =
        pack(data, s.batch, s.inChannels, s.height, s.width, config.batch(), config.blockIn());
    const std::vector<int8_t> packedKernel = pack(kernel, s.outChannels, s.inChannels, s.kernel,
                                                  s.kernel, config.blockOut(), config.blockIn());
    const std::vector<int8_t> expected = reference(data, kernel, s, config);

    vta::CommandQueue q(config);
    const vta::DeviceBuffer dd = q.bufferAlloc(packedData.size());
    const vta::DeviceBuffer dk = q.bufferAlloc(packedKernel.size());
    const vta::DeviceBuffer dr = q.bufferAlloc(expected.size());
    q.bufferCopyIn(packedData.data(), dd, 0, packedData.size());
    q.bufferCopyIn(packedKernel.data(), dk, 0, packedKernel.size());
    vta::runOnVta(lowered, q, {dd, dk, dr});
    std::vector<int8_t> result(expected.size());
    q.bufferCopyOut(dr, 0, result.data(), result.size());

    std::cout << "Execution statistics:\n" << q.stats().format();
    if (result != expected) {
      std::cout
          << "2D convolution test FAILED: the simulator's output differs from the reference\n";
      return 1;
    }
    std::cout << "Successful 2D convolution test!\n";
    return 0;
  } catch (const DiagnosticError& e) {
    std::cerr << e.diagnostic().str() << "\n";
    return 1;
  }
}
