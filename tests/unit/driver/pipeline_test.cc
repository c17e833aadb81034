// The pipeline of driver/pipeline.cc: every step runs instrumented (timed, printable), in order;
// lowerGraphToTIR and the tuning tasks of a model (workload keys shared by equal kernels, weights
// counting calls).
#include <gtest/gtest.h>

#include <sstream>

#include "build_test_util.h"
#include "driver/pipeline.h"
#include "lower/relay/to_graph.h"
#include "relay/builder.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

relay::IRModule moduleOf(const Expr& body) {
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(body)));
}

Expr weight(const std::vector<int64_t>& shape, uint64_t seed) {
  return relay::constant(tessera::test::randomTensor(shape, DataType::float32(), seed));
}

// Two dense + relu layers of the same shape and one of another: three fused kernels, two of them
// the same computation.
relay::IRModule threeLayers() {
  Expr x = relay::var("x", {4, 64});
  x = relay::nn::relu(relay::nn::dense(x, weight({64, 64}, 1)));
  x = relay::nn::relu(relay::nn::dense(x, weight({64, 64}, 2)));
  x = relay::nn::relu(relay::nn::dense(x, weight({32, 64}, 3)));
  return moduleOf(x);
}

TEST(Pipeline, EveryStepIsTimedAndPrintedInOrder) {
  relay::PassContext ctx;
  ctx.timePasses = true;
  ctx.printAfterAll = true;
  std::ostringstream printed;
  ctx.printStream = &printed;
  BuildOptions options;
  options.context = &ctx;
  const Built built = build(threeLayers(), codegen::hostTarget(), {}, options);
  EXPECT_EQ(built.kernels.size(), 2u);  // the two 64x64 layers share a kernel

  std::vector<std::string> topLevel;
  for (const relay::PassTiming& t : ctx.timings)
    if (t.depth == 0) topLevel.push_back(t.name);
  std::vector<std::string> steps;
  for (const CompileStep& s : compileSteps()) steps.push_back(s.name);
  EXPECT_EQ(topLevel, steps);
  // Graph passes and TIR passes are listed inside their steps.
  auto depthOf = [&](const std::string& name) {
    for (const relay::PassTiming& t : ctx.timings)
      if (t.name == name) return t.depth;
    return -1;
  };
  EXPECT_EQ(depthOf("FuseOps"), 2);  // Optimize > OptimizationPipeline > FuseOps
  EXPECT_EQ(depthOf("FlattenBuffer"), 1);
  const std::string text = printed.str();
  size_t last = 0;
  for (const std::string& step : steps) {
    const size_t at = text.find("// after " + step + "\n");
    ASSERT_NE(at, std::string::npos) << step;
    EXPECT_GT(at, last) << step << " printed out of order";
    last = at;
  }
  EXPECT_NE(text.find("// after FlattenBuffer\n"), std::string::npos);
  EXPECT_NE(text.find("define "), std::string::npos);  // LLVM IR after CodegenLLVM
}

TEST(Pipeline, StopsAfterANamedStep) {
  relay::PassContext ctx;
  CompileState state{.module = threeLayers(), .target = codegen::hostTarget()};
  runPipeline(state, ctx, "ScheduleKernels");
  ASSERT_EQ(state.kernels.size(), 2u);
  ASSERT_EQ(state.anchors.size(), 2u);
  EXPECT_TRUE(state.anchors[0].answer.applies) << state.anchors[0].answer.reason;
  EXPECT_EQ(state.anchors[0].implementation, "dense_pack.x86");
  EXPECT_EQ(state.lowered.graph.plannedBytes, 0);  // PlanMemory has not run
}

TEST(TuningTasks, EqualKernelsShareAKeyAndAddTheirCalls) {
  relay::PassContext ctx;
  const relay::IRModule optimized = optimize(threeLayers(), ctx);
  const target::Target cpu = codegen::hostTarget();
  const lower::LoweredGraph lowered = lower::lowerGraphToTIR(optimized, &cpu);
  const std::vector<lower::TuningTask> tasks = lower::tuningTasks(lowered);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].weight, 2);
  EXPECT_EQ(tasks[1].weight, 1);
  EXPECT_EQ(tasks[0].implementation, "dense_pack.x86");
  EXPECT_NE(tasks[0].workloadKey, tasks[1].workloadKey);
  // The key is the computation's, not the model's: lowering again (new variables, a kernel of
  // another name in another model) gives the same key.
  const relay::IRModule other = optimize(
      moduleOf(relay::nn::relu(relay::nn::dense(relay::var("y", {4, 64}), weight({32, 64}, 9)))),
      ctx);
  const std::vector<lower::TuningTask> again =
      lower::tuningTasks(lower::lowerGraphToTIR(other, &cpu));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].workloadKey, tasks[1].workloadKey);
}

}  // namespace
}  // namespace tessera::driver::test
