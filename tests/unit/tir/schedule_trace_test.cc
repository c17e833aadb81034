// Seed 002's stochastic matmul schedule: sample_perfect_tile + split + reorder +
// decompose_reduction. The trace prints as the seed shows it, round-trips through JSON, replays,
// and every possible decision gives a function that computes the original result.
#include "schedule_test_util.h"
#include "tir/schedule/instruction.h"
#include "tir/schedule/trace.h"

namespace tessera::tir {
namespace {

using testing::expectSameResults;
using testing::scheduleError;

// The seed's stochastic_schedule_mm.
void stochasticScheduleMM(Schedule& sch, std::optional<std::vector<int64_t>> decision = {}) {
  BlockRV c = sch.getBlock("C", "main");
  std::vector<LoopRV> l = sch.getLoops(c);
  std::vector<ExprRV> f = sch.samplePerfectTile(l[1], 2, 16, decision);
  std::vector<LoopRV> j = sch.split(l[1], {f[0], f[1]});
  sch.reorder({l[0], j[0], l[2], j[1]});
  sch.decomposeReduction(c, l[2]);
}

std::string seedTrace(const std::string& decision) {
  return "# from tvm import tir\n"
         "def apply_trace(sch: tir.Schedule) -> None:\n"
         "  b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
         "  l1, l2, l3 = sch.get_loops(block=b0)\n"
         "  v4, v5 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=" +
         decision +
         ")\n"
         "  l6, l7 = sch.split(loop=l2, factors=[v4, v5], preserve_unit_iters=True, "
         "disable_predication=False)\n"
         "  sch.reorder(l1, l6, l3, l7)\n"
         "  b8 = sch.decompose_reduction(block=b0, loop=l3)\n";
}

TEST(ScheduleTrace, SeedTracePrintsAsTheSeed) {
  Schedule sch(testing::matmul(), 3);
  stochasticScheduleMM(sch, std::vector<int64_t>{8, 16});
  EXPECT_EQ(sch.trace().str(), seedTrace("[8, 16]"));
}

TEST(ScheduleTrace, FreshSamplingOnlyDrawsTheFiveTilings) {
  std::set<std::vector<int64_t>> seen;
  for (int seed = 0; seed < 200; ++seed) {
    Schedule sch(testing::matmul(), seed);
    LoopRV j = sch.getLoops(sch.getBlock("C"))[1];
    std::vector<ExprRV> f = sch.samplePerfectTile(j, 2, 16);
    seen.insert({sch.get(f[0]), sch.get(f[1])});
  }
  std::set<std::vector<int64_t>> expected = {{8, 16}, {16, 8}, {32, 4}, {64, 2}, {128, 1}};
  EXPECT_EQ(seen, expected);
}

TEST(ScheduleTrace, SameSeedSameDecisions) {
  Schedule a(testing::matmul(), 11);
  Schedule b(testing::matmul(), 11);
  stochasticScheduleMM(a);
  stochasticScheduleMM(b);
  EXPECT_EQ(a.trace().str(), b.trace().str());
  EXPECT_EQ(toScript(a.func()), toScript(b.func()));
}

TEST(ScheduleTrace, JsonRoundTripAndReplayForEveryDecision) {
  const std::vector<std::vector<int64_t>> all = {{8, 16}, {16, 8}, {32, 4}, {64, 2}, {128, 1}};
  PrimFunc original = testing::matmul();
  for (const auto& d : all) {
    Schedule sch(original, 1);
    stochasticScheduleMM(sch, d);
    std::string json = sch.trace().toJson();
    std::string dec = "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "]";
    EXPECT_EQ(json,
              "[[[\"GetBlock\",[],[\"C\",\"main\"],[\"b0\"]],[\"GetLoops\",[\"b0\"],[],[\"l1\","
              "\"l2\",\"l3\"]],"
              "[\"SamplePerfectTile\",[\"l2\"],[2,16],[\"v4\",\"v5\"]],[\"Split\",[\"l2\",\"v4\","
              "\"v5\"],[1,0],"
              "[\"l6\",\"l7\"]],[\"Reorder\",[\"l1\",\"l6\",\"l3\",\"l7\"],[],[]],["
              "\"DecomposeReduction\","
              "[\"b0\",\"l3\"],[],[\"b8\"]]],[[2," +
                  dec + "]]]");
    Trace parsed = Trace::fromJson(json);
    EXPECT_EQ(parsed.str(), sch.trace().str());
    EXPECT_EQ(parsed.toJson(), json);
    Schedule replay(original, 99);
    applyTrace(replay, parsed);
    EXPECT_EQ(toScript(replay.func()), toScript(sch.func()));
    EXPECT_EQ(replay.trace().str(), sch.trace().str());
    expectSameResults(original, replay.func());
  }
}

TEST(ScheduleTrace, ReplayWithNewDecisionAndRepair) {
  PrimFunc original = testing::matmul();
  Schedule sch(original, 1);
  stochasticScheduleMM(sch, std::vector<int64_t>{8, 16});
  // A mutator's move: replace the decision of instruction 2 and replay.
  Schedule other(original, 1);
  applyTrace(other,
             sch.trace().withDecision(
                 2, AttrValue::array({AttrValue::integer(64), AttrValue::integer(2)}), false));
  EXPECT_EQ(other.trace().str(), seedTrace("[64, 2]"));
  // A stale decision is repaired: 3 does not divide 128, so the inner factor becomes 128.
  Schedule repaired(original, 1);
  applyTrace(repaired, sch.trace(),
             {{2, AttrValue::array({AttrValue::integer(5), AttrValue::integer(3)})}});
  EXPECT_EQ(repaired.trace().str(), seedTrace("[1, 128]"));
  expectSameResults(original, repaired.func());
}

TEST(ScheduleTrace, DecomposedMatmulPrintsAsTheSpec) {
  Schedule sch(testing::matmul(), 1);
  stochasticScheduleMM(sch, std::vector<int64_t>{16, 8});
  std::string text = toScript(sch.func());
  for (const char* line :
       {"for i, j_0 in T.grid(128, 16):", "for j_1_init in range(8):", "with T.block(\"C_init\"):",
        "vi = T.axis.spatial(128, i)", "vj = T.axis.spatial(128, j_0 * 8 + j_1_init)", "T.reads()",
        "for k, j_1 in T.grid(128, 8):", "with T.block(\"C_update\"):",
        "T.reads(C[vi, vj], A[vi, vk], B[vk, vj])"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

TEST(ScheduleTrace, SimplifiedDropsUnusedPureInstructions) {
  Schedule sch(testing::matmul(), 1);
  BlockRV c = sch.getBlock("C");
  sch.getLoops(c);                                         // unused
  sch.sampleCategorical({1, 2, 4}, {0.5, 0.25, 0.25}, 2);  // unused
  sch.parallel(sch.getLoops(c)[0]);
  Trace t = sch.trace().simplified(true);
  EXPECT_EQ(t.str(),
            "# from tvm import tir\n"
            "def apply_trace(sch: tir.Schedule) -> None:\n"
            "  b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
            "  l1, l2, l3 = sch.get_loops(block=b0)\n"
            "  sch.parallel(loop=l1)\n");
}

TEST(ScheduleTrace, EmptyTraceAndCategorical) {
  Schedule sch(testing::addOne(4), 1);
  EXPECT_EQ(sch.trace().str(),
            "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n  pass\n");
  ExprRV v = sch.sampleCategorical({0, 16, 64, 512}, {0.25, 0.25, 0.25, 0.25}, 1);
  EXPECT_EQ(sch.get(v), 16);
  EXPECT_EQ(sch.trace().str(),
            "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n"
            "  v0 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, "
            "0.25], decision=1)\n");
  ExprRV w = sch.sampleCategorical({1, 2}, {0.2, 0.8});
  EXPECT_TRUE(sch.get(w) == 1 || sch.get(w) == 2);
  EXPECT_NE(sch.trace().str().find("probs=[0.20000000000000001, 0.80000000000000004]"),
            std::string::npos);
  Trace parsed = Trace::fromJson(sch.trace().toJson());
  EXPECT_EQ(parsed.str(), sch.trace().str());
}

TEST(ScheduleTrace, SamplingErrors) {
  Schedule sch(testing::matmul(), 1);
  LoopRV j = sch.getLoops(sch.getBlock("C"))[1];
  EXPECT_NE(scheduleError([&] {
              sch.samplePerfectTile(j, 2, 16, std::vector<int64_t>{128});
            }).find("decision has 1 factors"),
            std::string::npos);
  EXPECT_NE(scheduleError([&] { sch.sampleCategorical({1, 2}, {0.5}); }).find("equal length"),
            std::string::npos);
  EXPECT_NE(
      scheduleError([&] { sch.sampleCategorical({1, 2}, {0.5, 0.5}, 2); }).find("outside [0, 2)"),
      std::string::npos);
}

TEST(ScheduleTrace, MalformedJsonIsADiagnostic) {
  for (const char* bad :
       {"nope", "[[]]", "[[[\"Bogus\",[],[],[]]],[]]", "[[[\"GetLoops\",[\"b9\"],[],[]]],[]]"}) {
    try {
      Trace::fromJson(bad);
      ADD_FAILURE() << bad;
    } catch (const DiagnosticError& e) {
      EXPECT_EQ(e.diagnostic().code, "trace");
    }
  }
}

// Each kind's arity is checked when a trace is read: a hand-written instruction with too few or
// too many inputs or attributes is a located error, not a failed replay.
TEST(ScheduleTrace, InstructionsOfTheWrongArityAreDiagnosed) {
  const std::string getBlock = R"(["GetBlock",[],["B","main"],["b0"]])";
  struct Case {
    std::string instruction;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {R"(["GetBlock",[],["B"],["b0"]])", "GetBlock: 1 attributes, expected 2"},
           {getBlock + R"(,["GetLoops",["b0","b0"],[],["l1"]])", "GetLoops: 2 inputs, expected 1"},
           {getBlock + R"(,["ComputeInline",["b0"],[1],[]])",
            "ComputeInline: 1 attributes, expected 0"},
           {getBlock + R"(,["GetLoops",["b0"],[],["l1"]],["Split",["l1"],[1],["l2"]])",
            "Split: 1 inputs, expected at least 2"},
           {getBlock + R"(,["GetLoops",["b0"],[],["l1"]],["Split",["l1",4],[1,0,1],["l2"]])",
            "Split: 3 attributes, expected 1 to 2"},
       }) {
    const std::string json = "[[" + c.instruction + "],[]]";
    try {
      Trace::fromJson(json);
      ADD_FAILURE() << json;
    } catch (const DiagnosticError& e) {
      EXPECT_EQ(e.diagnostic().code, "trace");
      EXPECT_NE(e.diagnostic().message.find(c.expected), std::string::npos)
          << e.diagnostic().message;
    }
  }
  // Every row declares a valid range and a Python name.
  for (const InstructionKind& kind : instructionKinds()) {
    EXPECT_GE(kind.inputs.max == Arity::kVariadic ? 1000 : kind.inputs.max, kind.inputs.min)
        << kind.name;
    EXPECT_GE(kind.attrs.max, kind.attrs.min) << kind.name;
    EXPECT_FALSE(kind.pythonName.empty()) << kind.name;
  }
}

TEST(ScheduleTrace, NTilingsCoverEveryPerfectTiling) {
  // n = 3 over 12 with no innermost limit reaches all 18 ordered factorizations.
  std::set<std::vector<int64_t>> seen;
  for (int seed = 0; seed < 400; ++seed) {
    Schedule sch(testing::addOne(12), seed);
    LoopRV i = sch.getLoops(sch.getBlock("B"))[0];
    std::vector<ExprRV> f = sch.samplePerfectTile(i, 3, -1);
    std::vector<int64_t> t = {sch.get(f[0]), sch.get(f[1]), sch.get(f[2])};
    EXPECT_EQ(t[0] * t[1] * t[2], 12);
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 18u);
}

}  // namespace
}  // namespace tessera::tir

namespace tessera::tir {
namespace {

// The line the spec quotes from the anchor tuning database (TVM's older Split attrs [1]).
TEST(ScheduleTrace, ReplaysTheAnchorDatabaseLine) {
  const char* json =
      "[[[\"GetBlock\",[],[\"C\",\"main\"],[\"b0\"]],[\"GetLoops\",[\"b0\"],[],[\"l1\",\"l2\","
      "\"l3\"]],"
      "[\"SamplePerfectTile\",[\"l2\"],[2,16],[\"v4\",\"v5\"]],[\"Split\",[\"l2\",\"v4\",\"v5\"],["
      "1],[\"l6\","
      "\"l7\"]],[\"Reorder\",[\"l1\",\"l6\",\"l3\",\"l7\"],[],[]],[\"DecomposeReduction\",[\"b0\","
      "\"l3\"],[],"
      "[\"b8\"]],[\"EnterPostproc\",[],[],[]]],[[2,[64,2]]]]";
  Trace trace = Trace::fromJson(json);
  EXPECT_EQ(trace.insts().size(), 7u);
  EXPECT_NE(trace.str().find("  sch.enter_postproc()\n"), std::string::npos);
  PrimFunc original = testing::matmul();
  Schedule sch(original, 1);
  applyTrace(sch, trace, {}, /*removePostproc=*/true);
  EXPECT_EQ(sch.trace().str(), seedTrace("[64, 2]"));
  EXPECT_TRUE(isConstInt(sch.get(sch.getLoops(sch.getBlock("C_update"))[3])->extent, 2));
  expectSameResults(original, sch.func());
}

}  // namespace
}  // namespace tessera::tir
