// Runtime API (spec §5): dependency merging and pending pops (§5.6), the completion protocol
// (§5.7), micro-op kernel recording rules and the micro-op cache with eviction (§5.4, §5.5),
// buffers, automatic synchronisation, debug dumps and program capture.
#include "vta/rt/runtime.h"

#include <sstream>

#include <gtest/gtest.h>

#include "support/diagnostic.h"
#include "vta/rt/reference_programs.h"
#include "vta_test_util.h"

namespace tessera::vta {
namespace {

std::string flags(const Instruction& i) {
  std::string f;
  if (i.dep.popPrev) f += "pop_prev ";
  if (i.dep.popNext) f += "pop_next ";
  if (i.dep.pushPrev) f += "push_prev ";
  if (i.dep.pushNext) f += "push_next ";
  return f;
}

template <typename F>
void expectRuntimeError(F&& f, const std::string& code, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected " << code << ": " << fragment;
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

void pushTinyGemm(CommandQueue& q, UopKernelCache& site, uint32_t dst = 0) {
  q.pushGemmOp(site, std::nullopt, [&](int32_t) { q.uopPush(0, 0, dst, 0, 0, 0, 0, 0); });
}

TEST(VtaRuntime, PushMergesIntoTheLastInstructionOfItsStage) {
  CommandQueue q;
  UopKernelCache site;
  pushTinyGemm(q, site);  // 0 LOAD UOP, 1 GEMM
  q.depPush(2, 1);        // merged into the GEMM
  q.depPush(2, 1);        // the GEMM already pushes prev: 2 compute NOP
  q.depPush(2, 3);        // a NOP never absorbs a push: 3 compute NOP
  auto s = q.pendingInstructions();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(flags(s[1]), "push_prev ");
  EXPECT_TRUE(s[2].isNop() && s[2].module() == Stage::kCompute);
  EXPECT_EQ(flags(s[2]), "push_prev ");
  EXPECT_TRUE(s[3].isNop() && s[3].module() == Stage::kCompute);
  EXPECT_EQ(flags(s[3]), "push_next ");
}

TEST(VtaRuntime, PendingPopsGoToTheNextInstructionOfTheirStage) {
  CommandQueue q;
  DeviceBuffer buf = q.bufferAlloc(4096);
  q.depPop(2, 1);  // pending pop_next on the load stage
  q.depPop(2, 3);  // pending pop_prev on the store stage
  q.storeBuffer2D(0, MemType::kOut, buf, 0, 1, 1, 1);
  q.loadBuffer2D(buf, 0, 1, 1, 1, 0, 0, 0, 0, 0, MemType::kInp);
  q.loadBuffer2D(buf, 0, 1, 1, 1, 0, 0, 0, 0, 1, MemType::kInp);
  q.depPop(1, 2);
  q.depPop(1, 2);  // a second pending pop of the same kind commits the first as a NOP
  q.loadBuffer2D(buf, 0, 1, 1, 1, 0, 0, 0, 0, 0, MemType::kAcc);  // compute stage
  auto s = q.pendingInstructions();
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(flags(s[0]), "pop_prev ");  // STORE
  EXPECT_EQ(flags(s[1]), "pop_next ");  // first LOAD INP
  EXPECT_EQ(flags(s[2]), "");
  EXPECT_TRUE(s[3].isNop() && s[3].module() == Stage::kCompute);
  EXPECT_EQ(flags(s[3]), "pop_prev ");
  EXPECT_EQ(flags(s[4]), "pop_prev ");  // LOAD ACC
}

TEST(VtaRuntime, EmptySynchronizeRunsTheCompletionProtocol) {
  CommandQueue q;
  q.synchronize();
  const auto& s = q.lastRun();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(std::string(opcodeName(s[0].opcode)) + " " + flags(s[0]), "STORE push_prev ");
  EXPECT_EQ(s[1].module(), Stage::kLoad);
  EXPECT_EQ(flags(s[1]), "push_next ");
  EXPECT_EQ(s[2].module(), Stage::kCompute);
  EXPECT_EQ(flags(s[2]), "pop_prev pop_next ");
  EXPECT_EQ(s[3].opcode, Opcode::kFinish);
  EXPECT_EQ(flags(s[3]), "");
  EXPECT_TRUE(q.pendingInstructions().empty());
  EXPECT_EQ(q.runCount(), 1u);
}

TEST(VtaRuntime, DependencyCallsConnectAdjacentStagesOnly) {
  CommandQueue q;
  expectRuntimeError([&] { q.depPop(1, 3); }, "vta_runtime", "adjacent stages only");
  expectRuntimeError([&] { q.depPush(3, 1); }, "vta_runtime", "adjacent stages only");
  expectRuntimeError([&] { q.depPop(2, 2); }, "vta_runtime", "adjacent stages only");
  expectRuntimeError([&] { q.depPush(0, 1); }, "vta_runtime", "stage 0 is not");
  expectRuntimeError([&] { q.depPush(2, 4); }, "vta_runtime", "stage 4 is not");
}

TEST(VtaRuntime, KernelsAreRecordedOncePerSiteAndClosure) {
  CommandQueue q;
  UopKernelCache site;
  int recordings = 0;
  auto push = [&](std::optional<int32_t> closure) {
    q.pushGemmOp(site, closure, [&](int32_t t) {
      ++recordings;
      q.uopLoopBegin(4, 1, 0, 0);
      q.uopPush(0, 1, uint32_t(t) * 10, 0, 0, 0, 0, 0);
      q.uopLoopEnd();
    });
  };
  push(0);
  push(1);
  push(0);
  push(1);
  EXPECT_EQ(recordings, 2);
  const test::InsnCounts c = test::countInstructions(q.pendingInstructions());
  EXPECT_EQ(c.loadUop, 2);  // resident after the first push
  EXPECT_EQ(c.gemm, 4);
  q.synchronize();
  push(0);  // residency is reset by synchronize: loaded again, but not re-recorded
  EXPECT_EQ(recordings, 2);
  EXPECT_EQ(test::countInstructions(q.pendingInstructions()).loadUop, 1);
  // A GEMM kernel has its single loop outside; the instruction is a reset GEMM.
  const Instruction& gemm = q.pendingInstructions().back();
  EXPECT_TRUE(gemm.resetReg);
  EXPECT_EQ(std::tuple(gemm.iterOut, gemm.dstFactorOut, gemm.iterIn), std::tuple(4u, 1u, 1u));
}

TEST(VtaRuntime, AluKernelsPutASingleLoopInside) {
  CommandQueue q;
  UopKernelCache site;
  q.pushAluOp(site, std::nullopt, [&](int32_t) {
    q.uopLoopBegin(5, 2, 3, 0);
    q.uopPush(1, 0, 1, 2, 0, int(AluOpcode::kMax), 1, -7);
    q.uopLoopEnd();
  });
  const Instruction& alu = q.pendingInstructions().back();
  EXPECT_EQ(alu.opcode, Opcode::kAlu);
  EXPECT_EQ(std::tuple(alu.iterOut, alu.iterIn, alu.dstFactorIn, alu.srcFactorIn),
            std::tuple(1u, 5u, 2u, 3u));
  EXPECT_EQ(std::tuple(alu.aluOpcode, alu.useImm, alu.imm), std::tuple(AluOpcode::kMax, true, -7));
}

TEST(VtaRuntime, MicroOpCacheEvictsLikeTheReference) {
  Config cfg;
  cfg.logUopBuffSize = 7;  // 32 micro-ops of SRAM
  CommandQueue q(cfg);
  const auto zeros = std::vector<int32_t>(48 * 16, 0);
  DeviceBuffer acc = test::upload(q, zeros, 32);
  DeviceBuffer out = q.bufferAlloc(48 * 16);
  q.loadBuffer2D(acc, 0, 48, 1, 48, 0, 0, 0, 0, 0, MemType::kAcc);
  UopKernelCache a, b, c;
  // Kernel k adds k + 1 to its own 12 accumulator entries.
  auto push = [&](UopKernelCache& site, uint32_t k) {
    q.pushAluOp(site, std::nullopt, [&](int32_t) {
      for (uint32_t j = 0; j < 12; ++j) q.uopPush(1, 0, k * 12 + j, k * 12 + j, 0, 2, 1, k + 1);
    });
  };
  push(a, 0);
  push(b, 1);
  push(c, 2);  // wraps to 0 and evicts a
  push(a, 0);  // reloaded after c, evicting b
  push(b, 1);  // wraps again, evicting c but not a
  push(a, 0);  // still resident
  std::vector<uint32_t> uopLoads;
  for (const Instruction& i : q.pendingInstructions()) {
    if (i.opcode == Opcode::kLoad && i.memType == MemType::kUop) uopLoads.push_back(i.sramBase);
  }
  EXPECT_EQ(uopLoads, (std::vector<uint32_t>{0, 12, 0, 12, 0}));
  q.depPush(2, 3);
  q.depPop(2, 3);
  q.storeBuffer2D(0, MemType::kOut, out, 0, 48, 1, 48);
  q.synchronize();
  EXPECT_EQ(q.stats().uopLoadNbytes, 5u * 12 * 4);
  const auto result = test::download(q, out, 8, 48 * 16);
  for (int e = 0; e < 36; ++e) {
    const int expected = e < 12 ? 3 : e < 24 ? 4 : 3;
    EXPECT_EQ(result[e * 16], expected) << e;
  }
}

TEST(VtaRuntime, KernelRecordingRules) {
  CommandQueue q;
  UopKernelCache s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11;
  auto gemm = [&](UopKernelCache& site, std::function<void()> body) {
    return [&q, &site, body] { q.pushGemmOp(site, std::nullopt, [&](int32_t) { body(); }); };
  };
  expectRuntimeError(gemm(s1,
                          [&] {
                            q.uopPush(0, 0, 0, 0, 0, 0, 0, 0);
                            q.uopLoopBegin(2, 1, 0, 0);
                          }),
                     "vta_runtime", "before the kernel's first micro-op");
  expectRuntimeError(gemm(s2,
                          [&] {
                            for (int i = 0; i < 3; ++i) q.uopLoopBegin(2, 1, 0, 0);
                          }),
                     "vta_runtime", "at most 2 hardware loops");
  expectRuntimeError(gemm(s3,
                          [&] {
                            q.uopPush(0, 0, 5, 0, 0, 0, 0, 0);
                            q.uopPush(0, 0, 6, 0, 0, 0, 0, 0);
                            q.uopPush(0, 0, 5, 0, 0, 0, 0, 0);
                          }),
                     "vta_runtime", "different output location than the previous two");
  expectRuntimeError(gemm(s4,
                          [&] {
                            q.uopPush(0, 0, 0, 0, 0, 0, 0, 0);
                            q.uopPush(1, 0, 1, 0, 0, 0, 0, 0);
                          }),
                     "vta_runtime", "mode differs");
  expectRuntimeError(gemm(s5,
                          [&] {
                            q.uopPush(0, 1, 0, 0, 0, 0, 0, 0);
                            q.uopPush(0, 0, 1, 0, 0, 0, 0, 0);
                          }),
                     "vta_runtime", "reset flag differs");
  expectRuntimeError(
      [&] {
        q.pushAluOp(s6, std::nullopt, [&](int32_t) {
          q.uopPush(1, 0, 0, 0, 0, 2, 1, 5);
          q.uopPush(1, 0, 1, 0, 0, 2, 1, 6);
        });
      },
      "vta_runtime", "must be the same for every micro-op");
  expectRuntimeError(
      [&] {
        q.pushAluOp(s7, std::nullopt, [&](int32_t) { q.uopPush(1, 0, 0, 0, 0, 2, 1, 40000); });
      },
      "vta_runtime", "outside the int16 range");
  expectRuntimeError(gemm(s8, [] {}), "vta_runtime", "produced no micro-ops");
  expectRuntimeError(gemm(s9,
                          [&] {
                            q.uopLoopBegin(2, 1, 0, 0);
                            q.uopPush(0, 0, 0, 0, 0, 0, 0, 0);
                          }),
                     "vta_runtime", "open uopLoopBegin");
  expectRuntimeError(gemm(s10, [&] { q.uopPush(0, 0, 2048, 0, 0, 0, 0, 0); }), "vta_isa",
                     "micro-op field dst_idx value 2048");
  expectRuntimeError([&] { q.uopPush(0, 0, 0, 0, 0, 0, 0, 0); }, "vta_runtime",
                     "outside a kernel recording");
  expectRuntimeError(
      [&] {
        pushTinyGemm(q, s11);
        q.pushAluOp(s11, std::nullopt, [](int32_t) {});
      },
      "vta_runtime", "kernel was recorded with GEMM micro-ops");
  expectRuntimeError([&] { q.pushGemmOp(s11, 99, [](int32_t) {}); }, "vta_runtime",
                     "kernel key outside");
  // A failed recording leaves the queue usable.
  UopKernelCache ok;
  pushTinyGemm(q, ok);
}

TEST(VtaRuntime, InstructionFieldsAreCheckedAtTheCall) {
  CommandQueue q;
  DeviceBuffer buf = q.bufferAlloc(1 << 20);
  expectRuntimeError([&] { q.loadBuffer2D(buf, 0, 1, 1, 1, 16, 0, 0, 0, 0, MemType::kInp); },
                     "vta_isa", "loadBuffer2D (instruction 0): field x_pad_0 value 16");
  expectRuntimeError([&] { q.storeBuffer2D(0, MemType::kOut, buf, 0, 70000, 1, 1); }, "vta_isa",
                     "field x_size value 70000");
  expectRuntimeError(
      [&] { q.loadBuffer2D(DeviceBuffer{}, 0, 1, 1, 1, 0, 0, 0, 0, 0, MemType::kInp); },
      "vta_runtime", "not a device buffer");
  expectRuntimeError([&] { q.loadBuffer2D(buf, 0, 1, 1, 1, 0, 0, 0, 0, 0, MemType::kOut); },
                     "vta_runtime", "cannot load into memory type OUT");
  EXPECT_TRUE(q.pendingInstructions().empty());
}

TEST(VtaRuntime, BuffersAndNDArrays) {
  CommandQueue q;
  NDArray a = NDArray::empty({3, 5}, DataType::int32());
  for (int64_t i = 0; i < a.numel(); ++i) a.setInt(i, i * 7 - 20);
  DeviceBuffer buf = q.bufferFromArray(a);
  EXPECT_EQ(buf.physAddr % 4096, 0u);
  EXPECT_TRUE(q.bufferToArray(buf, {3, 5}, DataType::int32()).bitwiseEqual(a));
  EXPECT_EQ(q.bufferCpuPtr(buf)[0], uint8_t(-20));
  int32_t v = 0;
  q.bufferCopyOut(buf, 4, &v, 4);
  EXPECT_EQ(v, -13);
  expectRuntimeError([&] { q.bufferCopyIn(&v, buf, 60, 4); }, "vta_runtime", "outside");
  q.bufferFree(buf);
  expectRuntimeError([&] { q.bufferFree(buf); }, "vta_dram", "not a live allocation");
  expectRuntimeError([&] { q.bufferCpuPtr(buf); }, "vta_runtime", "not a live device buffer");
}

TEST(VtaRuntime, AutomaticSynchronizationCarriesTokensAcrossRuns) {
  // A 30-instruction transfer limit splits the 56-instruction tutorial into several runs; the
  // compute->load token of the last GEMM of a run is consumed by the first load of the next.
  const Config cfg;
  CommandQueue q(cfg, RuntimeOptions{.maxXferBytes = 30 * 16});
  const auto a = test::randomInts(16 * 16, -128, 127, 41);
  const auto b = test::randomInts(256 * 256, -128, 127, 42);
  DeviceBuffer da = test::upload(q, a, 8), db = test::upload(q, b, 8);
  DeviceBuffer dc = q.bufferAlloc(256);
  reference::matmulTutorial(q, da, db, dc);
  EXPECT_GT(q.runCount(), 2u);
  EXPECT_EQ(test::download(q, dc, 8, 256),
            test::truncateAll(test::referenceMatmul(a, b, 1, 16, 16, 1, 16, 16), 8));
  EXPECT_TRUE(q.simulator().tokens().empty());
  // Kernels are re-loaded in every run, so micro-op bytes grow with the run count.
  EXPECT_GT(q.stats().uopLoadNbytes, 8u);
  EXPECT_EQ(q.stats().gemmCounter, 256u);
}

TEST(VtaRuntime, DebugDumpsAndCapture) {
  CommandQueue q;
  std::ostringstream dump;
  q.setDebugFlags(kDebugDumpInsn | kDebugDumpUop, &dump);
  std::vector<Program> programs;
  q.captureRuns(&programs);
  UopKernelCache site;
  pushTinyGemm(q, site, 7);
  q.synchronize();
  EXPECT_NE(dump.str().find("uop 0: dst 7 src 0 wgt 0"), std::string::npos) << dump.str();
  EXPECT_NE(dump.str().find("FINISH"), std::string::npos) << dump.str();
  ASSERT_EQ(programs.size(), 1u);
  EXPECT_EQ(programs[0].instructions.size(), q.lastRun().size());
  EXPECT_EQ(programs[0].config, q.config());
  expectRuntimeError([&] { q.setDebugFlags(kDebugForceSerial); }, "vta_runtime",
                     "force-serial mode");
}

}  // namespace
}  // namespace tessera::vta
