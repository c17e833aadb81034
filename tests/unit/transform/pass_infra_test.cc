// The pass infrastructure: Sequential's enable rule (opt level, required, disabled), required
// passes, function passes skipping external functions, instrumentation, and the default pipeline.
#include <gtest/gtest.h>

#include <sstream>

#include "driver/pipeline.h"
#include "relay/builder.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

// A module pass that records its runs in `log`.
Pass recordingPass(const std::string& name, int level, std::vector<std::string>* log,
                   std::vector<std::string> required = {}) {
  return makeModulePass(PassInfo{name, level, std::move(required)},
                        [name, log](const IRModule& m, PassContext&) {
                          log->push_back(name);
                          return m;
                        });
}

IRModule tinyModule() {
  return parseModule("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }", "tiny.relay");
}

TEST(PassInfra, SequentialGatesByOptLevelRequiredAndDisabled) {
  std::vector<std::string> log;
  Pass seq = sequential({recordingPass("L0", 0, &log), recordingPass("L3", 3, &log),
                         recordingPass("L4", 4, &log), recordingPass("Off", 0, &log)});
  PassContext ctx;
  ctx.optLevel = 3;
  ctx.requiredPasses = {"L4"};
  ctx.disabledPasses = {"Off"};
  (*seq)(tinyModule(), ctx);
  EXPECT_EQ(log, (std::vector<std::string>{"L0", "L3", "L4"}));
  log.clear();
  PassContext defaults;  // opt level 2: L3 and L4 skipped
  (*seq)(tinyModule(), defaults);
  EXPECT_EQ(log, (std::vector<std::string>{"L0", "Off"}));
}

TEST(PassInfra, CallingAPassDirectlyIgnoresTheOptLevel) {
  std::vector<std::string> log;
  PassContext ctx;
  ctx.optLevel = 0;
  (*recordingPass("L4", 4, &log))(tinyModule(), ctx);
  EXPECT_EQ(log, (std::vector<std::string>{"L4"}));
}

TEST(PassInfra, RequiredPassesRunFirstByName) {
  std::vector<std::string> log;
  IRModule untyped;
  Var x = var("x", {2});
  untyped.add("main", makeFunction({x}, callOp("nn.relu", {x})));
  // InferType is required, so the pass sees checked types even though the input had none.
  bool sawTypes = false;
  Pass needsTypes = makeModulePass(PassInfo{"NeedsTypes", 0, {"InferType"}},
                                   [&](const IRModule& m, PassContext&) {
                                     sawTypes = m.main()->body->checkedType != nullptr;
                                     return m;
                                   });
  PassContext ctx;
  (*sequential({needsTypes}))(untyped, ctx);
  EXPECT_TRUE(sawTypes);
}

TEST(PassInfra, FunctionPassesSkipExternalFunctionsAndRetype) {
  IRModule m = tinyModule();
  Var y = var("y", {2});
  DictAttrs external;
  external.set("Compiler", AttrValue::string("vta"));
  m.add("ext", makeFunction({y}, callOp("nn.relu", {y}), nullptr, external));
  std::vector<std::string> seen;
  Pass fp = makeFunctionPass(PassInfo{"Seen", 0, {}},
                             [&](const Function& f, const IRModule&, PassContext&) {
                               seen.push_back(printExpr(f, {.types = false}));
                               return f;
                             });
  IRModule out = (*fp)(m);
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_NE(out.main()->body->checkedType, nullptr);
}

TEST(PassInfra, InstrumentationTimesAndPrintsAfterNamedPasses) {
  std::ostringstream printed;
  PassContext ctx;
  ctx.timePasses = true;
  ctx.printAfter = {"InferType"};
  ctx.printStream = &printed;
  (*sequential({passByName("InferType"), passByName("SimplifyInference")}))(tinyModule(), ctx);
  // The Sequential first, then its members (and any passes they require) one level deeper.
  ASSERT_GE(ctx.timings.size(), 3u);
  EXPECT_EQ(ctx.timings[0].name, "Sequential");
  EXPECT_EQ(ctx.timings[0].depth, 0);
  EXPECT_EQ(ctx.timings[1].name, "InferType");
  EXPECT_EQ(ctx.timings[1].depth, 1);
  EXPECT_EQ(ctx.timings.back().name, "SimplifyInference");
  EXPECT_NE(printed.str().find("// after InferType"), std::string::npos);
  EXPECT_EQ(printed.str().find("// after SimplifyInference"), std::string::npos);
}

TEST(PassInfra, UnknownPassNamesListTheKnownOnes) {
  try {
    passByName("FoldEverything");
    FAIL() << "expected unknown_pass";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "unknown_pass");
    EXPECT_NE(e.diagnostic().message.find("FoldConstant"), std::string::npos);
  }
}

TEST(Pipeline, EveryNameResolvesAndTheResultBehavesTheSame) {
  for (const std::string& name : driver::optimizationPipelineNames())
    EXPECT_NO_THROW(passByName(name));
  IRModule m = parseModule(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32],
          %g: Tensor[(4), float32], %mu: Tensor[(4), float32], %v: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.batch_norm(%1, %g, %b, %mu, %v);
  nn.relu(%2.0)
}
)",
                           "pipeline.relay");
  // Variances must be positive for batch_norm to be defined: bind them as constants.
  NDArray variance = test::randomTensor({4}, DataType::float32(), 5, 0.5, 1.5);
  PassContext ctx;
  ctx.optLevel = 3;
  IRModule optimized = driver::optimize(m, ctx, {{"v", variance}});
  IRModule reference = bindParams(m, {{"v", variance}});
  EXPECT_TRUE(test::sameBehaviour(reference, optimized, 2, 1e-4, 1e-4));
  EXPECT_NE(printModule(optimized).find("Primitive=1"), std::string::npos);
}

}  // namespace
}  // namespace tessera::relay

namespace tessera::relay {
namespace {

// Every pipeline pass is iterative and near-linear: a 20,000-op chain goes through the whole
// pipeline at opt level 3 (and, in CI, under ASan, where recursion this deep would overflow).
TEST(Pipeline, HandlesLongChains) {
  Var x = var("x", {2});
  Expr e = x;
  for (int i = 0; i < 20000; ++i) e = callOp(i % 2 ? "copy" : "negative", {e});
  IRModule m = IRModule::fromExpr(makeFunction({x}, e));
  PassContext ctx;
  ctx.optLevel = 3;
  IRModule optimized = driver::optimize(m, ctx);
  EXPECT_TRUE(test::sameBehaviour(m, optimized, 1, 0, 0));
}

}  // namespace
}  // namespace tessera::relay
