// Seed 004 from the compiler (issue 25 item 5): the 1x256x14x14 layer defined in TE, scheduled as
// the seed schedules it, lowered with vta.build_config's passes and run on the simulator. The
// output equals the CPU reference, the seven counters are the seed's, and the instruction stream
// is the transcribed program's (tests/unit/vta/conv2d_seed004_test.cc), instruction for
// instruction.
#include <gtest/gtest.h>

#include "codegen/llvm/build.h"
#include "runtime/thread_pool.h"
#include "tir/transform/lower.h"
#include "vta/rt/c_api.h"
#include "vta/tir/host_program.h"
#include "vta/tir/passes.h"
#include "vta/topi/conv2d_packed.h"
#include "vta_workload_runs.h"

namespace tessera::vta {
namespace {

tir::PrimFunc compileSeed004(const Config& config) {
  const Conv2dPackedShape seed;
  tir::Schedule sch(conv2dPackedFunc(config, seed));
  scheduleConv2dPacked(sch, config, seed, {});
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, config);
  return tir::transform::lower(sch.func(), ctx);
}

// The seed's data and kernel (seeds 5 and 6 of the workload runner) in `q`'s DRAM, and the
// output buffer.
struct Seed004Buffers {
  DeviceBuffer data, kernel, result;
};

Seed004Buffers uploadSeed004(CommandQueue& q, const Config& cfg,
                             const reference::Conv2dWorkload& w) {
  const auto data =
      test::randomInts(size_t(w.batch) * w.inChannels * w.height * w.width,
                       test::laneMin(cfg.inpWidth()), test::laneMax(cfg.inpWidth()), 5);
  const auto kernel =
      test::randomInts(size_t(w.outChannels) * w.inChannels * w.kernel * w.kernel,
                       test::laneMin(cfg.wgtWidth()), test::laneMax(cfg.wgtWidth()), 6);
  const DeviceBuffer dd = test::upload(
      q, test::packData(data, w.batch, w.inChannels, w.height, w.width, cfg.batch(), cfg.blockIn()),
      cfg.inpWidth());
  const DeviceBuffer dk = test::upload(q,
                                       test::packKernel(kernel, w.outChannels, w.inChannels,
                                                        w.kernel, cfg.blockOut(), cfg.blockIn()),
                                       cfg.wgtWidth());
  return {dd, dk, q.bufferAlloc(reference::conv2dOutputBytes(cfg, w))};
}

// The checks of the seed: output, the seven counters, the 3366 instructions of the transcribed
// program.
void expectSeed004Run(CommandQueue& q, const Config& cfg, const reference::Conv2dWorkload& w,
                      DeviceBuffer dr) {
  const test::RunResult transcribed = test::runConv2d(cfg, w);
  const size_t lanes = size_t(w.batch) * w.outChannels * w.outHeight() * w.outWidth();
  EXPECT_EQ(test::download(q, dr, cfg.outWidth(), lanes), transcribed.expected);
  const Stats& s = q.stats();
  EXPECT_EQ(s.inpLoadNbytes, 114688u);
  EXPECT_EQ(s.wgtLoadNbytes, 1179648u);
  EXPECT_EQ(s.accLoadNbytes, 0u);
  EXPECT_EQ(s.uopLoadNbytes, 1144u);
  EXPECT_EQ(s.outStoreNbytes, 50176u);
  EXPECT_EQ(s.gemmCounter, 451584u);
  EXPECT_EQ(s.aluCounter, 9408u);
  const std::vector<Instruction>& stream = q.lastRun();
  EXPECT_EQ(stream.size(), 3366u);
  ASSERT_EQ(stream.size(), transcribed.stream.size());
  for (size_t i = 0; i < stream.size(); ++i)
    ASSERT_EQ(stream[i], transcribed.stream[i]) << "instruction " << i;
}

TEST(VtaSeed004Compiled, CountersOutputAndStreamAreTheSeeds) {
  const Config cfg = Config::defaults();
  const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  CommandQueue q(cfg);
  const Seed004Buffers b = uploadSeed004(q, cfg, w);
  runOnVta(compileSeed004(cfg), q, {b.data, b.kernel, b.result});
  expectSeed004Run(q, cfg, w, b.result);
}

// The same program compiled by LLVM as TVM compiles it: host code calling the runtime's C
// functions through slots, micro-op kernels outlined per call site; run twice, the second run
// reuses the cached micro-op kernels and gives the same output.
TEST(VtaSeed004Compiled, LlvmHostCodeGivesTheSeedsStream) {
  registerCFunctions();
  const Config cfg = Config::defaults();
  const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  tir::TirModule module;
  module.add(lowerVtaHostIntrin(compileSeed004(cfg)));
  const codegen::CompiledModule lib = codegen::compile(module);
  const runtime::KernelFunction fn = lib.getFunction(lib.functionNames().at(0));
  ASSERT_NE(fn, nullptr);

  CommandQueue q(cfg);
  setThreadCommandQueue(&q);
  Seed004Buffers b = uploadSeed004(q, cfg, w);
  // Device tensors as the graph executor hands them: data is the runtime's buffer handle.
  std::vector<int64_t> dataShape = {1, 16, 14, 14, 1, 16}, kernelShape = {16, 16, 3, 3, 16, 16},
                       resultShape = {1, 16, 14, 14, 1, 16};
  auto tensor = [](DeviceBuffer* handle, std::vector<int64_t>& shape, DLDataType dtype) {
    DLTensor t{};
    t.data = handle;
    t.device = DLDevice{kDLExtDev, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    return t;
  };
  DLTensor td = tensor(&b.data, dataShape, DLDataType{kDLInt, 8, 1});
  DLTensor tk = tensor(&b.kernel, kernelShape, DLDataType{kDLInt, 8, 1});
  DLTensor tr = tensor(&b.result, resultShape, DLDataType{kDLInt, 8, 1});
  void* args[] = {&td, &tk, &tr};
  ASSERT_EQ(fn(args, 3), 0) << TesseraGetLastError();
  ASSERT_FALSE(takeCApiError().has_value());
  expectSeed004Run(q, cfg, w, b.result);
  // Again: the micro-op kernels come from the per-site caches; the result is the same.
  const size_t bytes = reference::conv2dOutputBytes(cfg, w);
  std::vector<uint8_t> first(bytes), second(bytes);
  q.bufferCopyOut(b.result, 0, first.data(), bytes);
  std::vector<uint8_t> zeros(bytes, 0);
  q.bufferCopyIn(zeros.data(), b.result, 0, bytes);
  ASSERT_EQ(fn(args, 3), 0) << TesseraGetLastError();
  q.bufferCopyOut(b.result, 0, second.data(), bytes);
  EXPECT_EQ(first, second);
  // A CPU tensor where the kernel wants a device buffer is refused with the argument's name.
  td.device = DLDevice{kDLCPU, 0};
  EXPECT_NE(fn(args, 3), 0);
  EXPECT_NE(std::string(TesseraGetLastError()).find("device_type is expected to be 12"),
            std::string::npos)
      << TesseraGetLastError();
  setThreadCommandQueue(nullptr);
}

}  // namespace
}  // namespace tessera::vta
