// Memory planning (buffers shared along a chain, never between a call's inputs and outputs),
// graph.json round trips and rejections, and time_evaluator.
#include <gtest/gtest.h>

#include "build_test_util.h"
#include "runtime/time_evaluator.h"

namespace tessera::driver::test {

using runtime::GraphDescription;
using runtime::KernelCall;
using runtime::planMemory;

namespace {

// A chain of `n` calls over float32 tensors of `elements` each: input -> t1 -> ... -> output.
GraphDescription chain(int n, int64_t elements) {
  GraphDescription g;
  for (int i = 0; i <= n; ++i) g.entries.push_back({{elements}, DataType::float32(), -1});
  g.inputs.push_back({"x", 0});
  for (int i = 0; i < n; ++i) g.calls.push_back({"k", {i}, {i + 1}});
  g.outputs.push_back(n);
  return g;
}

TEST(GraphPlan, ChainPingPongsBetweenTwoBuffers) {
  GraphDescription g = chain(6, 100);
  planMemory(g);
  // Input and output own a buffer each; the five intermediates alternate between two.
  EXPECT_EQ(g.storageBytes.size(), 4u);
  EXPECT_EQ(g.naiveBytes, 7 * 400);
  EXPECT_EQ(g.plannedBytes, 4 * 400);
  for (const KernelCall& c : g.calls)
    EXPECT_NE(g.entries[c.inputs[0]].storage, g.entries[c.outputs[0]].storage);
  EXPECT_EQ(g.entries[1].storage, g.entries[3].storage);
}

TEST(GraphPlan, LongLivedTensorKeepsItsBuffer) {
  // t1 is read by the last call, so nothing produced in between may reuse its buffer.
  GraphDescription g = chain(4, 10);
  g.calls.back().inputs.push_back(1);
  planMemory(g);
  for (int e = 2; e <= 3; ++e) EXPECT_NE(g.entries[e].storage, g.entries[1].storage) << e;
}

TEST(GraphPlan, BestFitAndGrowth) {
  // x -> a (100 floats) -> b (10) -> c (50) -> out: c reuses a's buffer (best fit, a is dead).
  GraphDescription g;
  for (int64_t n : {1, 100, 10, 50, 1}) g.entries.push_back({{n}, DataType::float32(), -1});
  g.inputs.push_back({"x", 0});
  g.calls = {{"k", {0}, {1}}, {"k", {1}, {2}}, {"k", {2}, {3}}, {"k", {3}, {4}}};
  g.outputs = {4};
  planMemory(g);
  EXPECT_EQ(g.entries[3].storage, g.entries[1].storage);
  // Growing: a later, larger tensor takes the largest free buffer and enlarges it.
  GraphDescription h = chain(3, 10);
  h.entries[2].shape = {30};
  planMemory(h);
  EXPECT_EQ(h.storageBytes.size(), 4u);
  EXPECT_EQ(h.plannedBytes, 40 + 40 + 40 + 120);
}

TEST(GraphPlan, BuiltChainOfLayersReusesMemory) {
  const Built built = build(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(16, 64), float32], %w: Tensor[(64, 64), float32]) {
  %0 = nn.dense(%x, %w, units=64);
  %1 = nn.relu(%0);
  %2 = nn.dense(%1, %w, units=64);
  %3 = nn.relu(%2);
  %4 = nn.dense(%3, %w, units=64);
  %5 = nn.relu(%4);
  %6 = nn.dense(%5, %w, units=64);
  nn.relu(%6)
}
)"),
                            codegen::hostTarget());
  EXPECT_EQ(built.graph.naiveBytes, 16 * 64 * 4 * 5 + 64 * 64 * 4);
  EXPECT_EQ(built.graph.plannedBytes, 16 * 64 * 4 * 4 + 64 * 64 * 4);
}

TEST(GraphJson, RoundTripsExactly) {
  GraphDescription g = chain(3, 5);
  g.entries.push_back({{2, 3}, DataType::int8(), -1});
  g.params.push_back({"p0", 4});
  g.calls[1].inputs.push_back(4);
  g.calls[0].kernel = "fused_\"quoted\"\\name";
  planMemory(g);
  const std::string json = g.toJson();
  const GraphDescription back = GraphDescription::fromJson(json, "g.json");
  EXPECT_EQ(back.toJson(), json);
  EXPECT_EQ(back.calls[0].kernel, g.calls[0].kernel);
  EXPECT_EQ(back.entries[4].dtype, DataType::int8());
}

TEST(GraphJson, RejectsMalformedDescriptions) {
  GraphDescription g = chain(2, 5);
  planMemory(g);
  const std::string good = g.toJson();
  auto errorFor = [](const std::string& text) {
    return tessera::test::diagnosticOf([&] { GraphDescription::fromJson(text, "bad.json"); });
  };
  Diagnostic d = errorFor(good.substr(0, good.size() / 2));
  EXPECT_EQ(d.code, "graph_json");
  EXPECT_EQ(d.context, "bad.json");
  std::string wrong = good;
  wrong.replace(wrong.rfind("\"outputs\": [2]"), 14, "\"outputs\": [9]");
  EXPECT_NE(errorFor(wrong).message.find("outputs refers to entry 9 but there are 3"),
            std::string::npos);
  wrong = good;
  wrong.replace(wrong.find("float32"), 7, "float77");
  EXPECT_NE(errorFor(wrong).message.find("unknown dtype 'float77'"), std::string::npos);
  EXPECT_NE(errorFor("{\"format\": \"other\"}").message.find("unsupported format"),
            std::string::npos);
  EXPECT_NE(errorFor(std::string(100, '[')).message.find("nesting too deep"), std::string::npos);
}

TEST(TimeEvaluator, RunsNumberTimesRepeatPlusWarmup) {
  int calls = 0;
  TimeEvaluatorOptions options;
  options.number = 3;
  options.repeat = 4;
  options.warmup = 2;
  const TimingResult r = timeEvaluator([&] { ++calls; }, options);
  EXPECT_EQ(calls, 3 * 4 + 2);
  EXPECT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.number, 3);
  EXPECT_LE(r.min, r.median);
  EXPECT_LE(r.median, r.max);
}

TEST(TimeEvaluator, MinRepeatMsGrowsNumber) {
  TimeEvaluatorOptions options;
  options.minRepeatMs = 2;
  volatile double sink = 0;
  const TimingResult r = timeEvaluator(
      [&] {
        for (int i = 0; i < 1000; ++i) sink = sink + i;
      },
      options);
  EXPECT_GT(r.number, 1);
  EXPECT_GE(r.results[0] * r.number * 1e3, 2.0 * 0.9);
}

TEST(TimeEvaluator, StatisticsAndErrors) {
  const TimingResult r = summarizeTimings({4, 1, 3, 2}, 1);
  EXPECT_DOUBLE_EQ(r.mean, 2.5);
  EXPECT_DOUBLE_EQ(r.median, 2.5);
  EXPECT_DOUBLE_EQ(r.min, 1);
  EXPECT_DOUBLE_EQ(r.max, 4);
  EXPECT_EQ(r.str(), "mean 2.500 s, median 2.500 s, min 1.000 s, max 4.000 s (4 x 1 runs)");
  TimeEvaluatorOptions bad;
  bad.repeat = 0;
  EXPECT_EQ(tessera::test::diagnosticOf([&] { timeEvaluator([] {}, bad); }).code, "time_evaluator");
}

}  // namespace
}  // namespace tessera::driver::test
