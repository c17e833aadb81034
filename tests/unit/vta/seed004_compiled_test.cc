// Seed 004 from the compiler (issue 25 item 5): the 1x256x14x14 layer defined in TE, scheduled as
// the seed schedules it, lowered with vta.build_config's passes and run on the simulator. The
// output equals the CPU reference, the seven counters are the seed's, and the instruction stream
// is the transcribed program's (tests/unit/vta/conv2d_seed004_test.cc), instruction for
// instruction.
#include <gtest/gtest.h>

#include "tir/transform/lower.h"
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

TEST(VtaSeed004Compiled, CountersOutputAndStreamAreTheSeeds) {
  const Config cfg = Config::defaults();
  const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  // The transcribed program on the same inputs (seeds 5 and 6 of the workload runner).
  const test::RunResult transcribed = test::runConv2d(cfg, w);

  CommandQueue q(cfg);
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
  const DeviceBuffer dr = q.bufferAlloc(reference::conv2dOutputBytes(cfg, w));
  runOnVta(compileSeed004(cfg), q, {dd, dk, dr});

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

}  // namespace
}  // namespace tessera::vta
