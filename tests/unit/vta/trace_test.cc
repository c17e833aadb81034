// The Chrome trace of the cycle model: valid JSON in the Trace Event Format, one named track per
// module plus the critical path, and slices whose times are the model's.
#include "vta/rt/trace.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim_rig.h"
#include "support/diagnostic.h"

namespace tessera::vta {
namespace {

using test::deps;

// load -> compute -> store -> FINISH with tokens (the chain of timing_test.cc): 546 cycles.
std::vector<Instruction> chain() {
  return {test::memInsn(Opcode::kLoad, MemType::kInp, {.y = 8, .x = 14, .stride = 14},
                        deps(false, false, false, true)),
          test::gemmInsn(test::LoopArgs{.uopEnd = 4, .iterOut = 2, .iterIn = 3}, false,
                         deps(true, false, false, true)),
          test::memInsn(Opcode::kStore, MemType::kOut, {}, deps(true, false, true, false)),
          test::finishInsn(deps(false, true, false, false))};
}

TEST(VtaTrace, ChromeTraceEventsAndTracks) {
  const Config cfg;
  const std::vector<Instruction> program = chain();
  const TimingReport r = estimateTiming(cfg, program);
  const nlohmann::json j = nlohmann::json::parse(chromeTrace(cfg, program, r));
  ASSERT_TRUE(j["traceEvents"].is_array());
  EXPECT_EQ(j["otherData"]["time_unit"], "1 trace microsecond = 1 simulated cycle");
  EXPECT_EQ(j["otherData"]["total_cycles"], 546);

  std::map<int, std::string> threadNames;
  std::vector<nlohmann::json> insns, waits, critical;
  for (const nlohmann::json& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e.dump();
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      threadNames[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    }
    if (e["ph"] != "X") continue;
    ASSERT_TRUE(e["ts"].is_number_unsigned() && e["dur"].is_number_unsigned()) << e.dump();
    if (e["cat"] == "insn") insns.push_back(e);
    if (e["cat"] == "wait") waits.push_back(e);
    if (e["cat"] == "critical") critical.push_back(e);
  }
  EXPECT_EQ(threadNames, (std::map<int, std::string>{{kTraceLoadTid, "load"},
                                                     {kTraceComputeTid, "compute"},
                                                     {kTraceStoreTid, "store"},
                                                     {kTraceCriticalTid, "critical path"}}));
  ASSERT_EQ(insns.size(), 4u);
  for (const nlohmann::json& e : insns) {
    const size_t i = e["args"]["index"].get<size_t>();
    EXPECT_EQ(e["ts"], r.instructions[i].start);
    EXPECT_EQ(e["dur"], r.instructions[i].cost());
    EXPECT_EQ(e["tid"], int(program[i].module()));
    EXPECT_EQ(e["args"]["critical"], true);  // every instruction of a chain is critical
  }
  EXPECT_EQ(insns[0]["name"], "LOAD INP");
  EXPECT_EQ(insns[1]["name"], "GEMM");
  EXPECT_EQ(insns[2]["name"], "STORE");
  EXPECT_EQ(insns[3]["name"], "FINISH");
  // Compute waits 481 for the load and 35 for the store; the store waits 510 for compute.
  ASSERT_EQ(waits.size(), 3u);
  EXPECT_EQ(waits[0]["name"], "wait load->compute");
  EXPECT_EQ(std::tuple(waits[0]["tid"], waits[0]["ts"], waits[0]["dur"]),
            std::tuple(nlohmann::json(2), nlohmann::json(0), nlohmann::json(481)));
  EXPECT_EQ(waits[0]["args"]["token_from"], 0);
  EXPECT_EQ(waits[1]["name"], "wait compute->store");
  EXPECT_EQ(waits[1]["dur"], 510);
  EXPECT_EQ(waits[2]["name"], "wait store->compute");
  EXPECT_EQ(std::tuple(waits[2]["ts"], waits[2]["dur"]),
            std::tuple(nlohmann::json(510), nlohmann::json(35)));
  ASSERT_EQ(critical.size(), 4u);
  for (const nlohmann::json& e : critical) EXPECT_EQ(e["tid"], kTraceCriticalTid);
}

TEST(VtaTrace, WritesTheFileAndReportsUnwritablePaths) {
  const Config cfg;
  const std::vector<Instruction> program = chain();
  const TimingReport r = estimateTiming(cfg, program);
  const std::string path = ::testing::TempDir() + "/vta_trace_test.json";
  writeChromeTrace(path, cfg, program, r);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_GT(j["traceEvents"].size(), 10u);
  std::filesystem::remove(path);
  try {
    writeChromeTrace("/nonexistent-dir/trace.json", cfg, program, r);
    FAIL() << "no diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "vta_trace");
  }
}

}  // namespace
}  // namespace tessera::vta
