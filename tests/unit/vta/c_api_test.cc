// TVM's C interface of the VTA runtime (vta/rt/c_api.h): the same program through the C calls and
// through CommandQueue gives the same instructions, counters and results; errors are recorded,
// never thrown through the caller; the functions are in the runtime's C-function registry.
#include "vta/rt/c_api.h"

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/c_functions.h"

namespace tessera::vta {
namespace {

// The micro-ops of one GEMM kernel, recorded through the C calls (the closure is the output row).
int recordGemm(void* signature) {
  const int32_t row = *static_cast<const int32_t*>(signature);
  VTAUopLoopBegin(4, 1, 1, 0);
  VTAUopPush(0, 0, static_cast<uint32_t>(row) * 4, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  return 0;
}

// A small load / GEMM / store program, run through the C interface on `q`.
std::vector<uint8_t> runThroughC(CommandQueue& q, const std::vector<uint8_t>& input) {
  setThreadCommandQueue(&q);
  VTACommandHandle cmd = VTATLSCommandHandle();
  EXPECT_EQ(cmd, &q);
  void* in = VTABufferAlloc(input.size());
  void* wgt = VTABufferAlloc(4096);
  void* out = VTABufferAlloc(4096);
  VTABufferCopy(input.data(), 0, in, 0, input.size(), 1);
  std::vector<uint8_t> ones(256, 1);
  VTABufferCopy(ones.data(), 0, wgt, 0, ones.size(), 1);
  VTALoadBuffer2D(cmd, in, 0, 4, 1, 4, 0, 0, 0, 0, 0, 2);   // INP
  VTALoadBuffer2D(cmd, wgt, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1);  // WGT
  EXPECT_EQ(VTADepPush(cmd, 1, 2), 0);
  EXPECT_EQ(VTADepPop(cmd, 1, 2), 0);
  static void* site = nullptr;
  int32_t row = 0;
  EXPECT_EQ(VTAPushGEMMOp(&site, recordGemm, &row, 4), 0);
  EXPECT_EQ(VTADepPush(cmd, 2, 3), 0);
  EXPECT_EQ(VTADepPop(cmd, 2, 3), 0);
  VTAStoreBuffer2D(cmd, 0, 4, out, 0, 4, 1, 4);
  EXPECT_EQ(VTADepPush(cmd, 3, 2), 0);
  EXPECT_EQ(VTADepPop(cmd, 3, 2), 0);
  VTASynchronize(cmd, 1u << 31);
  std::vector<uint8_t> result(64);
  VTABufferCopy(out, 0, result.data(), 0, result.size(), 2);
  for (void* b : {in, wgt, out}) VTABufferFree(b);
  EXPECT_FALSE(takeCApiError());
  setThreadCommandQueue(nullptr);
  return result;
}

TEST(VtaCApi, MatchesTheCommandQueue) {
  std::vector<uint8_t> input(64);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i % 7);
  CommandQueue viaC;
  const std::vector<uint8_t> fromC = runThroughC(viaC, input);

  CommandQueue direct;
  DeviceBuffer in = direct.bufferAlloc(input.size()), wgt = direct.bufferAlloc(4096),
               out = direct.bufferAlloc(4096);
  direct.bufferCopyIn(input.data(), in, 0, input.size());
  std::vector<uint8_t> ones(256, 1);
  direct.bufferCopyIn(ones.data(), wgt, 0, ones.size());
  direct.loadBuffer2D(in, 0, 4, 1, 4, 0, 0, 0, 0, 0, MemType::kInp);
  direct.loadBuffer2D(wgt, 0, 1, 1, 1, 0, 0, 0, 0, 0, MemType::kWgt);
  direct.depPush(1, 2);
  direct.depPop(1, 2);
  UopKernelCache site;
  direct.pushGemmOp(site, 0, [&](int32_t) {
    direct.uopLoopBegin(4, 1, 1, 0);
    direct.uopPush(0, 0, 0, 0, 0, 0, 0, 0);
    direct.uopLoopEnd();
  });
  direct.depPush(2, 3);
  direct.depPop(2, 3);
  direct.storeBuffer2D(0, MemType::kOut, out, 0, 4, 1, 4);
  direct.depPush(3, 2);
  direct.depPop(3, 2);
  direct.synchronize();
  std::vector<uint8_t> expected(64);
  direct.bufferCopyOut(out, 0, expected.data(), expected.size());

  EXPECT_EQ(fromC, expected);
  EXPECT_EQ(viaC.lastRun(), direct.lastRun());
  EXPECT_EQ(viaC.stats(), direct.stats());
  EXPECT_GT(viaC.stats().gemmCounter, 0u);
}

TEST(VtaCApi, ErrorsAreRecordedNotThrown) {
  CommandQueue q;
  setThreadCommandQueue(&q);
  VTACommandHandle cmd = VTATLSCommandHandle();
  EXPECT_EQ(VTADepPush(cmd, 1, 3), -1);  // not adjacent stages
  const std::optional<Diagnostic> first = takeCApiError();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->code, "vta_runtime");
  // Once a call failed, the queue ignores the rest until the error is taken.
  EXPECT_EQ(VTADepPush(cmd, 1, 3), -1);
  EXPECT_EQ(VTADepPush(cmd, 1, 2), -1);
  EXPECT_TRUE(takeCApiError());
  EXPECT_EQ(VTADepPush(cmd, 1, 2), 0);
  void* site = nullptr;
  int64_t wide = 0;
  EXPECT_EQ(VTAPushGEMMOp(&site, recordGemm, &wide, 8), -1);
  EXPECT_NE(takeCApiError()->message.find("one int32"), std::string::npos);
  VTALoadBuffer2D(cmd, nullptr, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2);
  EXPECT_EQ(takeCApiError()->message, "a null buffer handle");
  delete static_cast<UopKernelCache*>(site);
  setThreadCommandQueue(nullptr);
}

TEST(VtaCApi, RegisteredAsRuntimeCFunctions) {
  EXPECT_EQ(runtime::findCFunction("__VTALoadBuffer2D"), nullptr);
  registerCFunctions();
  registerCFunctions();  // idempotent
  for (const char* name :
       {"VTALoadBuffer2D", "VTAStoreBuffer2D", "VTAUopLoopBegin", "VTAUopLoopEnd", "VTAUopPush",
        "VTAPushGEMMOp", "VTAPushALUOp", "VTADepPush", "VTADepPop", "VTASynchronize"})
    EXPECT_NE(runtime::findCFunction(std::string("__") + name), nullptr) << name;
  EXPECT_EQ(runtime::findCFunction("__VTASynchronize"), reinterpret_cast<void*>(&VTASynchronize));
}

}  // namespace
}  // namespace tessera::vta
