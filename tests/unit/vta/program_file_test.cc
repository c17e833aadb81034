// Program files: capture of a device run, serialisation round trip, simulate/disassemble entry
// points, and the diagnostics for truncated or corrupt files.
#include "vta/rt/program_file.h"

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "support/diagnostic.h"
#include "vta/rt/reference_programs.h"
#include "vta_test_util.h"

namespace tessera::vta {
namespace {

struct Captured {
  Program program;
  Stats stats;
  std::vector<uint8_t> output;
  uint64_t outputPhys = 0;
};

// The matrix-multiply tutorial recorded as a program.
const Captured& tutorial() {
  static const Captured c = [] {
    Captured out;
    CommandQueue q;
    std::vector<Program> runs;
    q.captureRuns(&runs);
    DeviceBuffer a = test::upload(q, test::randomInts(256, -128, 127, 51), 8);
    DeviceBuffer b = test::upload(q, test::randomInts(65536, -128, 127, 52), 8);
    DeviceBuffer c = q.bufferAlloc(256);
    reference::matmulTutorial(q, a, b, c);
    out.program = runs.at(0);
    out.stats = q.stats();
    out.output.assign(q.bufferCpuPtr(c), q.bufferCpuPtr(c) + 256);
    out.outputPhys = c.physAddr;
    return out;
  }();
  return c;
}

template <typename F>
void expectFileError(F&& f, const std::string& code, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected " << code << ": " << fragment;
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(VtaProgramFile, CaptureSerializeParseSimulate) {
  const Captured& c = tutorial();
  EXPECT_EQ(c.program.instructions.size(), 56u);
  const std::vector<uint8_t> bytes = serializeProgram(c.program);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "TSVTAPRG");
  const Program parsed = parseProgram(bytes, "mem");
  EXPECT_EQ(parsed, c.program);
  const SimulationResult result = simulateProgram(parsed);
  EXPECT_EQ(result.stats, c.stats);
  EXPECT_EQ(simulate(parsed), test::makeStats(256, 65536, 0, 8, 256, 256, 0));
  bool found = false;
  for (const DramSegment& seg : result.dram) {
    if (seg.physAddr != c.outputPhys) continue;
    found = true;
    EXPECT_EQ(std::vector<uint8_t>(seg.bytes.begin(), seg.bytes.begin() + 256), c.output);
  }
  EXPECT_TRUE(found);
}

TEST(VtaProgramFile, SaveAndLoadAFile) {
  const std::string path = ::testing::TempDir() + "/vta_program_test.vtaprog";
  saveProgram(tutorial().program, path);
  EXPECT_EQ(loadProgram(path), tutorial().program);
  std::remove(path.c_str());
  expectFileError([&] { loadProgram(path); }, "vta_program", "cannot open program file");
}

TEST(VtaProgramFile, TruncatedFilesAreDiagnosed) {
  const std::vector<uint8_t> bytes = serializeProgram(tutorial().program);
  std::vector<size_t> cuts;
  for (size_t n = 0; n < 400; ++n) cuts.push_back(n);
  for (size_t n = 900; n < 1200; n += 7) cuts.push_back(n);
  for (size_t n = bytes.size() - 300; n < bytes.size(); ++n) cuts.push_back(n);
  cuts.push_back(bytes.size() / 2);
  for (size_t n : cuts) {
    SCOPED_TRACE(n);
    expectFileError([&] { parseProgram(std::span(bytes).subspan(0, n), "cut.vtaprog"); },
                    "vta_program", "truncated program file");
  }
}

TEST(VtaProgramFile, CorruptFilesAreDiagnosed) {
  std::vector<uint8_t> bytes = serializeProgram(tutorial().program);
  auto corrupt = [&](size_t offset, uint8_t value) {
    std::vector<uint8_t> copy = bytes;
    copy[offset] = value;
    return copy;
  };
  expectFileError([&] { parseProgram(corrupt(0, 'X')); }, "vta_program", "not a VTA program file");
  expectFileError([&] { parseProgram(corrupt(8, 2)); }, "vta_program",
                  "unsupported program file version 2");
  std::vector<uint8_t> trailing = bytes;
  trailing.push_back(0);
  expectFileError([&] { parseProgram(trailing); }, "vta_program", "trailing bytes");
  expectFileError([&] { parseProgram(corrupt(bytes.size() - 1, 'X')); }, "vta_program",
                  "missing end marker");
  // A configuration the simulator cannot run.
  Program badConfig = tutorial().program;
  std::vector<uint8_t> cfgBytes = serializeProgram(badConfig);
  const std::string text(cfgBytes.begin(), cfgBytes.end());
  const size_t pos = text.find("\"LOG_ACC_WIDTH\": 5");
  ASSERT_NE(pos, std::string::npos);
  cfgBytes[pos + 17] = '4';
  expectFileError([&] { parseProgram(cfgBytes); }, "vta_config", "LOG_ACC_WIDTH must be 5");
  // Overlapping DRAM segments.
  Program overlap = tutorial().program;
  overlap.dram.push_back(overlap.dram.front());
  expectFileError([&] { parseProgram(serializeProgram(overlap)); }, "vta_program",
                  "overlaps another allocation");
  // A bad instruction word is reported when simulating, naming the instruction.
  Program badInsn = tutorial().program;
  badInsn.instructions[3] = EncodedInstruction{7, 0};
  const Program parsed = parseProgram(serializeProgram(badInsn));
  expectFileError([&] { simulate(parsed); }, "vta_decode", "instruction 3");
}

TEST(VtaProgramFile, DisassemblyOfAProgram) {
  const std::string text = disassemble(tutorial().program);
  EXPECT_EQ(text.rfind("; VTA program for sim_1x16_i8w8a32_15_15_18_17: 56 instructions", 0), 0u)
      << text;
  EXPECT_NE(text.find("    55  FINISH"), std::string::npos);
  const std::string withUops = disassemble(tutorial().program, true);
  EXPECT_NE(withUops.find("     0  LOAD UOP          -                   sram 0"),
            std::string::npos)
      << withUops;
  EXPECT_NE(withUops.find("        uop 0: dst 0 src 0 wgt 0\n     1  GEMM reset"),
            std::string::npos)
      << withUops;
}

TEST(VtaProgramFile, Seed004ProgramReproducesTheSeedCounters) {
  CommandQueue q;
  std::vector<Program> runs;
  q.captureRuns(&runs);
  const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(q.config());
  DeviceBuffer data = q.bufferAlloc(reference::conv2dDataBytes(q.config(), w));
  DeviceBuffer kernel = q.bufferAlloc(reference::conv2dKernelBytes(q.config(), w));
  DeviceBuffer res = q.bufferAlloc(reference::conv2dOutputBytes(q.config(), w));
  q.simulator().setSkipExecution(true);  // counters only: the file replay does the arithmetic
  reference::conv2d(q, w, data, kernel, res);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].instructions.size(), 3366u);
  const Program parsed = parseProgram(serializeProgram(runs[0]));
  EXPECT_EQ(simulate(parsed), test::makeStats(114688, 1179648, 0, 1144, 50176, 451584, 9408));
}

}  // namespace
}  // namespace tessera::vta
