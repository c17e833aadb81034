// Seed 004's schedule in TensorIR primitives (spec vta.md §7.1): the scheduled packed convolution
// computes what the unscheduled one does (on the reference evaluator, virtual threads included),
// the full-size layer tensorizes into GEMM and reset micro-op scopes with the seed's SRAM scopes
// and pragmas, the trace replays, and knobs that do not tile the layer are schedule errors.
#include <gtest/gtest.h>

#include "../tir/transform_test_util.h"
#include "test_util.h"
#include "tir/schedule/trace.h"
#include "tir/structural_equal.h"
#include "tir/transform/lower.h"
#include "vta/tir/passes.h"
#include "vta/topi/conv2d_packed.h"

namespace tessera::vta {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

Conv2dPackedShape smallLayer() {
  Conv2dPackedShape s;
  s.inChannels = 32;
  s.outChannels = 32;
  return s;
}

TEST(VtaConv2dSchedule, ScheduledLayerComputesTheSameOnTheEvaluator) {
  const Config config = Config::defaults();
  const tir::PrimFunc plain = conv2dPackedFunc(config, smallLayer());
  Conv2dPackedKnobs knobs;
  knobs.tileCo = 1;  // 2 output-channel blocks: one per virtual thread
  tir::Schedule sch(plain);
  scheduleConv2dPacked(sch, config, smallLayer(), knobs, /*tensorize=*/false);
  const tir::PrimFunc lowered = tir::transform::lower(sch.func());
  const std::string text = test::script(lowered);
  EXPECT_EQ(text.find("virtual_thread"), std::string::npos) << text;
  EXPECT_NE(text.find("local.acc_buffer"), std::string::npos) << text;
  EXPECT_TRUE(test::sameResults(plain, lowered, 1));
}

TEST(VtaConv2dSchedule, Seed004LayerTensorizesIntoVtaScopes) {
  const Config config = Config::defaults();
  const Conv2dPackedShape seed;
  tir::Schedule sch(conv2dPackedFunc(config, seed));
  scheduleConv2dPacked(sch, config, seed, {});
  const std::string text = test::script(sch.func());
  EXPECT_EQ(count(text, "\"VTAPushGEMMOp\""), 2u) << text;  // the GEMM and its reset
  EXPECT_EQ(count(text, "T.call_extern") + count(text, "vta.uop_push"), 2u) << text;
  EXPECT_EQ(count(text, "\"pragma_dma_copy\""), 3u) << text;  // data, kernel, result
  EXPECT_EQ(count(text, "\"pragma_alu\""), 3u) << text;       // >>, max, min
  EXPECT_NE(text.find("T.thread_binding(2, thread=\"cthread\")"), std::string::npos) << text;
  for (const char* scope : {"local.inp_buffer", "local.wgt_buffer", "local.acc_buffer"})
    EXPECT_NE(text.find(scope), std::string::npos) << scope;

  // Lowered, the two virtual threads hold their own SRAM tiles side by side (spec §7.1: INP 144,
  // WGT 72 and ACC 784 entries per thread) and each micro-op names its thread's tile.
  const std::string lowered = test::script(tir::transform::lower(sch.func()));
  EXPECT_NE(lowered.find("T.allocate([4608], \"int8\", \"local.inp_buffer\")"), std::string::npos)
      << lowered;  // 2 x 144 entries x 16
  EXPECT_NE(lowered.find("T.allocate([36864], \"int8\", \"local.wgt_buffer\")"),
            std::string::npos);  // 2 x 72 entries x 256
  EXPECT_NE(lowered.find("T.allocate([25088], \"int32\", \"local.acc_buffer\")"),
            std::string::npos);  // 2 x 784 entries x 16
  for (const char* threadOne : {"+ 12544, 16, 3)", "+ 2304, 16, 1)", "+ 18432, 256, 1)"})
    EXPECT_NE(lowered.find(threadOne), std::string::npos) << threadOne << "\n" << lowered;
  EXPECT_EQ(lowered.find("virtual_thread"), std::string::npos);

  // The trace replays on a fresh function to the same program.
  tir::Schedule replay(conv2dPackedFunc(config, seed));
  tir::applyTrace(replay, sch.trace());
  EXPECT_TRUE(tir::structuralEqual(sch.func(), replay.func()));
}

// vta.build_config's passes on seed 004 (spec §6.5, §6.8, §6.9): the micro-op scopes are lifted
// out of the tile loops, replicated whole per virtual thread, addressed in SRAM entries, and the
// GEMM kernels fold their two outer loops into hardware loops with the spec's factors.
TEST(VtaLowering, Seed004GemmKernelsFoldAsTheSpecSays) {
  const Config config = Config::defaults();
  const Conv2dPackedShape seed;
  tir::Schedule sch(conv2dPackedFunc(config, seed));
  scheduleConv2dPacked(sch, config, seed, {});
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, config);
  const std::string text = test::script(tir::transform::lower(sch.func(), ctx));
  // Reset kernel: (co 8, i 7, j 14) -> loops (8: dst 98), (7: dst 14), 14 micro-ops.
  EXPECT_NE(text.find("\"VTAUopLoopBegin\", 8, 98, 0, 0)"), std::string::npos) << text;
  EXPECT_NE(text.find("\"VTAUopLoopBegin\", 7, 14, 0, 0)"), std::string::npos) << text;
  // Main kernel: co folds (98, 0, 9), i folds (14, 16, 0); dy, dx, j stay host loops.
  EXPECT_NE(text.find("\"VTAUopLoopBegin\", 8, 98, 0, 9)"), std::string::npos) << text;
  EXPECT_NE(text.find("\"VTAUopLoopBegin\", 7, 14, 16, 0)"), std::string::npos) << text;
  EXPECT_EQ(count(text, "\"VTAUopLoopEnd\""), 7u) << text;  // 2 reset, 2 GEMM, 3 ALU
  // Each thread's kernel names its own tiles: 784 ACC, 144 INP and 72 WGT entries apart.
  for (const char* perThread : {"cthread_s * 784", "cthread_s * 144", "cthread_s * 72"})
    EXPECT_NE(text.find(perThread), std::string::npos) << perThread << "\n" << text;
  EXPECT_EQ(text.find("tvm_access_ptr"), std::string::npos) << text;
  EXPECT_NE(text.find("for cthread_s in range(2):"), std::string::npos) << text;
  // DMA (spec §7.1): weights 9 x 8 entries with stride 144 from ic·9 + 1152·t; inputs 14 columns
  // by 9 rows less the image border's pad rows, stride 14, one column of padding each side; the
  // result stored one entry at a time.
  EXPECT_EQ(count(text, "\"VTALoadBuffer2D\""), 4u) << text;  // data and kernel, per thread
  EXPECT_NE(text.find("ax6_0 * 9 + 1152, 9, 8, 144, 0, 0, 0, 0, 72, 1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("cthread_s * 1568 + i1_1 * 196 + i2_0 * 98 + i2_1 * 14 + i3_1, 1, 1, 1)"),
            std::string::npos)
      << text;
  // ALU (spec §6.4): the three stages share one accumulator region and run in place, one loop of
  // 784 entries each: >> 8 (SHR), max 0 (MAX), min 127 (MIN).
  for (const char* op : {"T.vta.uop_push(1, 0, cthread_s * 784, cthread_s * 784, 0, 3, 1, 8)",
                         "T.vta.uop_push(1, 0, cthread_s * 784, cthread_s * 784, 0, 1, 1, 0)",
                         "T.vta.uop_push(1, 0, cthread_s * 784, cthread_s * 784, 0, 0, 1, 127)"})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
  EXPECT_EQ(count(text, "\"VTAUopLoopBegin\", 784, 1, 1, 0)"), 3u) << text;
}

// Knobs that tile the layer but whose tiles overflow an SRAM are a compile error naming the
// memory and the sizes (spec §9), after virtual-thread replication.
TEST(VtaLowering, SramOverflowIsAnError) {
  const Config config = Config::defaults();
  const Conv2dPackedShape seed;
  Conv2dPackedKnobs big;
  big.tileH = 14;  // 8 blocks x 14 x 14 x 2 threads = 3136 accumulator entries > 2048
  tir::Schedule sch(conv2dPackedFunc(config, seed));
  scheduleConv2dPacked(sch, config, seed, big);
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, config);
  const Diagnostic d = test::diagnosticOf([&] { tir::transform::lower(sch.func(), ctx); });
  EXPECT_EQ(d.code, "vta_lower");
  EXPECT_NE(d.message.find("allocation exceeds bound of memory tag local.acc_buffer: 3136 entries "
                           "needed, 2048 available"),
            std::string::npos)
      << d.message;
}

TEST(VtaConv2dSchedule, KnobsThatDoNotTileTheLayerAreErrors) {
  const Config config = Config::defaults();
  auto error = [&](Conv2dPackedKnobs knobs) {
    tir::Schedule sch(conv2dPackedFunc(config, Conv2dPackedShape{}));
    return test::diagnosticOf(
        [&] { scheduleConv2dPacked(sch, config, Conv2dPackedShape{}, knobs); });
  };
  Conv2dPackedKnobs rows;
  rows.tileH = 5;  // 14 output rows
  EXPECT_NE(error(rows).message.find("tile_h=5 does not divide the output rows (14)"),
            std::string::npos);
  Conv2dPackedKnobs threads;
  threads.ocThreads = 3;  // 2 output-channel tiles of 8 blocks
  const Diagnostic d = error(threads);
  EXPECT_EQ(d.code, "vta_schedule");
  EXPECT_NE(d.message.find("oc_nthread=3"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::vta
