// The pass context reaches every stage of build(): TIR passes added through the config at each
// phase run on every kernel, `tir.disable_vectorize` and disabled passes are honoured, and a
// context entered as a scope is what build() runs under when given none. The schedule seam: a
// provider's trace schedules the kernel of its workload key; a trace that does not apply is
// reported and the default schedule used.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "build_test_util.h"
#include "lower/relay/schedule_provider.h"
#include "relay/builder.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"
#include "tir/transform/pass.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

// relu(dense(x, W) + b): one fused kernel.
relay::IRModule denseRelu() {
  Expr x = relay::var("x", {4, 64});
  Expr w = relay::constant(tessera::test::randomTensor({32, 64}, DataType::float32(), 7));
  return relay::inferTypes(
      relay::IRModule::fromExpr(relay::function(relay::nn::relu(relay::nn::dense(x, w)))));
}

// Runs `built` and the interpreter on the same seeded input.
::testing::AssertionResult sameAsInterpreter(const relay::IRModule& module, const Built& built) {
  const std::vector<relay::Value> inputs = tessera::test::randomInputs(module, 3);
  const std::vector<NDArray> expected = flatten(relay::Interpreter(module).run(inputs));
  runtime::GraphExecutor executor(built.model());
  executor.setInput("x", inputs[0].tensor());
  executor.run();
  return tessera::test::allClose(executor.getOutput(0), expected[0], 1e-4, 1e-5);
}

bool hasBlocks(const tir::PrimFunc& f) {
  bool found = false;
  tir::preOrderVisit(f->body, [&](const tir::Stmt& s) {
    found = found || s->kind == tir::StmtKind::kBlock;
    return !found;
  });
  return found;
}

TEST(PassConfig, UserTirPassesAtEachPhaseRunInBuild) {
  relay::PassContext ctx;
  std::vector<std::string> log;
  for (int phase = 0; phase <= 3; ++phase) {
    const std::string name = "CountPhase" + std::to_string(phase);
    tir::transform::addLowerPass(
        ctx, phase,
        tir::transform::makePrimFuncPass(
            {name, 0, {}}, [&log, name](const tir::PrimFunc& f, relay::PassContext&) {
              log.push_back(name + (hasBlocks(f) ? " blocks" : " flat"));
              return f;
            }));
  }
  const relay::IRModule module = denseRelu();
  const Built built = build(module, codegen::hostTarget(), {}, {.context = &ctx});
  ASSERT_EQ(built.kernels.size(), 1u);
  // Phase 0 sees the scheduled kernel before lowering starts; from phase 1 on it is flat.
  EXPECT_EQ(log, (std::vector<std::string>{"CountPhase0 blocks", "CountPhase1 flat",
                                           "CountPhase2 flat", "CountPhase3 flat"}));
  EXPECT_TRUE(sameAsInterpreter(module, built));
}

TEST(PassConfig, DisableVectorizeAndDisabledPassesReachBuild) {
  const relay::IRModule module = denseRelu();
  const Built plain = build(module, codegen::hostTarget());
  ASSERT_NE(tir::toScript(plain.kernels[0]).find("T.Broadcast"), std::string::npos)
      << "the default schedule vectorizes";

  relay::PassContext ctx;
  ctx.setConfig("tir.disable_vectorize", "true");
  ctx.disabledPasses.insert("CommonSubexprElimTIR");
  ctx.timePasses = true;
  const Built serial = build(module, codegen::hostTarget(), {}, {.context = &ctx});
  EXPECT_EQ(tir::toScript(serial.kernels[0]).find("T.Broadcast"), std::string::npos);
  bool cseRan = false, vectorizeRan = false;
  for (const relay::PassTiming& t : ctx.timings) {
    cseRan = cseRan || t.name == "CommonSubexprElimTIR";
    vectorizeRan = vectorizeRan || t.name == "VectorizeLoop";
  }
  EXPECT_FALSE(cseRan);
  EXPECT_TRUE(vectorizeRan);
  EXPECT_TRUE(sameAsInterpreter(module, serial));
}

// The VM path (control flow) lowers its kernels through the same TIR passes, by name.
TEST(PassConfig, TheVmPathShowsEveryTirPassByName) {
  const relay::IRModule module = parse(R"(def @main(%c: bool, %x: Tensor[(4, 16), float32]) {
  if (%c) { nn.relu(%x) } else { exp(%x) }
})");
  relay::PassContext ctx;
  ctx.printAfterAll = true;
  std::ostringstream printed;
  ctx.printStream = &printed;
  const Built built =
      build(module, codegen::hostTarget(), {}, {.context = &ctx, .executor = Executor::kAuto});
  ASSERT_TRUE(built.isVM());
  for (const std::string& pass : tir::transform::lowerPassNames())
    EXPECT_NE(printed.str().find("// after " + pass + "\n"), std::string::npos) << pass;
}

TEST(PassConfig, BuildRunsUnderTheEnteredContext) {
  relay::PassContext outer;
  outer.setConfig("tir.disable_vectorize", "true");
  {
    relay::PassContext::Scope scope(outer);
    EXPECT_EQ(&relay::PassContext::current(), &outer);
    const Built built = build(denseRelu(), codegen::hostTarget());
    EXPECT_EQ(tir::toScript(built.kernels[0]).find("T.Broadcast"), std::string::npos);
    EXPECT_EQ(outer.optLevel, 2) << "the build's level 3 holds only while it runs";
  }
  EXPECT_NE(&relay::PassContext::current(), &outer);
  EXPECT_EQ(relay::PassContext::current().optLevel, 2);
}

// A provider with one trace per workload key, as a tuning database would hold them.
class TraceTable : public lower::ScheduleProvider {
 public:
  std::map<uint64_t, tir::Trace> traces;
  mutable int asked = 0;
  std::optional<tir::Trace> scheduleFor(uint64_t key, const tir::PrimFunc&,
                                        const target::Target&) const override {
    ++asked;
    auto it = traces.find(key);
    if (it == traces.end()) return std::nullopt;
    return it->second;
  }
};

// The unscheduled kernel build() would schedule: what a tuner searches on.
tir::PrimFunc unscheduledKernel(const relay::IRModule& module) {
  relay::PassContext ctx;
  CompileState state{.module = module, .target = codegen::hostTarget()};
  runPipeline(state, ctx, "LowerGraphToTIR");
  return state.kernels.at(0);
}

// A known trace: the outermost loop of the last block split in two and made parallel.
tir::Trace splitParallelTrace(const tir::PrimFunc& kernel) {
  tir::Schedule sch(kernel, 0);
  const std::vector<tir::BlockRV> blocks = sch.getChildBlocks(sch.getBlock("root"));
  const std::vector<tir::LoopRV> loops = sch.getLoops(blocks.back());
  const std::vector<tir::LoopRV> parts = sch.split(loops[0], {std::monostate{}, int64_t{2}});
  sch.parallel(parts[0]);
  return sch.trace();
}

TEST(ScheduleProvider, AKnownTraceSchedulesItsKernel) {
  const relay::IRModule module = denseRelu();
  const tir::PrimFunc kernel = unscheduledKernel(module);
  auto table = std::make_shared<TraceTable>();
  table->traces[lower::workloadKey(kernel)] = splitParallelTrace(kernel);

  const Built built = build(module, codegen::hostTarget(), {}, {.scheduleProvider = table});
  EXPECT_EQ(table->asked, 1);
  ASSERT_EQ(built.strategies.size(), 1u);
  EXPECT_EQ(built.strategies[0].anchor.tuned, "applied");
  const std::vector<std::string> lines = explainStrategy(built.strategies[0]);
  EXPECT_EQ(lines.back(), "  schedule: tuned (a schedule provider's trace)");
  // The trace's schedule, not the default one: the split loop is parallel and nothing is
  // vectorized (the default x86 dense schedule vectorizes its inner loop).
  const std::string text = tir::toScript(built.kernels[0]);
  EXPECT_NE(text.find("T.parallel(2)"), std::string::npos) << text;
  EXPECT_EQ(text.find("T.Broadcast"), std::string::npos) << text;
  EXPECT_TRUE(sameAsInterpreter(module, built));
}

TEST(ScheduleProvider, ATraceThatNoLongerAppliesIsReportedAndTheDefaultUsed) {
  const relay::IRModule module = denseRelu();
  const tir::PrimFunc kernel = unscheduledKernel(module);
  // A trace recorded on another kernel: its block does not exist here.
  const tir::Trace stale = tir::Trace::fromJson(R"([[["GetBlock",[],["no_such_block",")" +
                                                kernel->name + R"("],["b0"]]],[]])");
  auto table = std::make_shared<TraceTable>();
  table->traces[lower::workloadKey(kernel)] = stale;
  const Built built = build(module, codegen::hostTarget(), {}, {.scheduleProvider = table});
  const relay::strategy::AnchorReport& anchor = built.strategies.at(0).anchor;
  EXPECT_NE(anchor.tuned, "applied");
  EXPECT_NE(anchor.tuned.find("no_such_block"), std::string::npos) << anchor.tuned;
  EXPECT_TRUE(anchor.answer.applies) << "the default schedule applied instead";
  const std::vector<std::string> lines = explainStrategy(built.strategies[0]);
  EXPECT_NE(lines[lines.size() - 2].find("tuned schedule does not apply"), std::string::npos);
  EXPECT_TRUE(sameAsInterpreter(module, built));
}

}  // namespace
}  // namespace tessera::driver::test
