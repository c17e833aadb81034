// Runs each reference workload of spec §7 on a fresh command queue with deterministic random
// tensors and returns the device output next to the plain reference, the counters and the stream.
#pragma once

#include <vector>

#include "vta/rt/reference_programs.h"
#include "vta_test_util.h"

namespace tessera::vta::test {

struct RunResult {
  std::vector<int32_t> out;       ///< lanes read back from the output tensor
  std::vector<int32_t> expected;  ///< the reference lanes
  Stats stats;
  std::vector<Instruction> stream;  ///< the instruction stream of the (last) run
};

RunResult runMatmulTutorial(const Config& cfg);
RunResult runBlockedMatmul(const Config& cfg);
RunResult runConv2d(const Config& cfg, const reference::Conv2dWorkload& w);
/// A small conv2d that fits every test configuration: C = 4·BLOCK_IN, O = 8·BLOCK_OUT, 8×8.
reference::Conv2dWorkload smallConv2d(const Config& cfg);
RunResult runGemm(const Config& cfg, bool smt);
RunResult runSaveLoadOut(const Config& cfg);
RunResult runPaddedLoad(const Config& cfg, int yBefore, int xBefore, int yAfter, int xAfter);
/// `imm` random in [1, 4] as the TVM test; SHL is expressed as SHR with -imm.
RunResult runAluImm(const Config& cfg, AluOpcode op, int32_t imm, bool shiftLeft = false);
RunResult runAluTensor(const Config& cfg, AluOpcode op);
RunResult runRelu(const Config& cfg);
RunResult runShiftAndScale(const Config& cfg, int32_t immShift, int32_t immScale);

}  // namespace tessera::vta::test
