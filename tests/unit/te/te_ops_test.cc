// The op strategy against the reference interpreter: every case of the three tables, the
// catalogue coverage check (every op has a compute and a case) and lowering errors.
#include <gtest/gtest.h>

#include <set>

#include "lower/relay/lower_primitive.h"
#include "relay/op_registry.h"
#include "relay/strategy/strategy.h"
#include "relay/text/parser.h"
#include "relay/type_infer.h"
#include "te_ops_util.h"
#include "test_util.h"
#include "tir/eval/eval.h"

namespace tessera::test {
namespace {

class OpDiffTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(OpDiffTest, LoweredMatchesInterpreter) {
  EXPECT_TRUE(matchesInterpreter(GetParam()));
}

// The same cases compiled to x86 code (schedules, lowering, LLVM) and run by the graph executor.
TEST_P(OpDiffTest, CompiledMatchesInterpreter) {
  EXPECT_TRUE(compiledMatchesInterpreter(GetParam()));
}

// The same cases compiled as plain loop nests (opt level 0, no default schedules): what LLVM's
// optimizer makes of unscheduled kernels, e.g. fully unrolled small reductions.
TEST_P(OpDiffTest, PlainCompiledMatchesInterpreter) {
  EXPECT_TRUE(compiledMatchesInterpreter(GetParam(), /*plainLoops=*/true));
}

std::string caseName(const ::testing::TestParamInfo<OpCase>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Elementwise, OpDiffTest, ::testing::ValuesIn(elementwiseCases()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Tensor, OpDiffTest, ::testing::ValuesIn(tensorCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Nn, OpDiffTest, ::testing::ValuesIn(nnCases()), caseName);

TEST(OpStrategyTest, EveryCatalogueOpHasAComputeAndADifferentialCase) {
  relay::strategy::registerComputes();
  EXPECT_TRUE(relay::strategy::opsWithoutCompute().empty());
  std::set<std::string> covered;
  for (const auto* table : {&elementwiseCases(), &tensorCases(), &nnCases()})
    for (const OpCase& c : *table)
      for (const std::string& op : opsCalled(c.text)) covered.insert(op);
  // VM builtins have no compute by design (op_dynamic_test.cc, op_scatter_test.cc).
  for (const std::string& op : relay::OpRegistry::global().names())
    if (!relay::OpRegistry::global().find(op)->vmBuiltin)
      EXPECT_TRUE(covered.count(op)) << "no differential case calls " << op;
}

TEST(OpStrategyTest, VmBuiltinsAreExactlyTheOpsWithoutACompute) {
  relay::strategy::registerComputes();
  std::set<std::string> builtins;
  for (const std::string& op : relay::OpRegistry::global().names()) {
    const relay::OpDef* def = relay::OpRegistry::global().find(op);
    EXPECT_TRUE(!def->dataDependentShape || def->vmBuiltin) << op;
    if (def->vmBuiltin) builtins.insert(op);
    EXPECT_EQ(relay::strategy::kComputeMap.get(op) == nullptr, def->vmBuiltin) << op;
  }
  EXPECT_EQ(builtins, (std::set<std::string>{"argwhere", "dyn.reshape", "dyn.strided_slice",
                                             "dyn.topk", "scatter_elements", "shape_of", "unique",
                                             "vision.all_class_non_max_suppression"}));
}

TEST(OpStrategyTest, RegisterComputesIsIdempotent) {
  relay::strategy::registerComputes();
  relay::strategy::registerComputes();
  EXPECT_NE(relay::strategy::kComputeMap.get("add"), nullptr);
}

TEST(OpStrategyTest, LoweredFunctionNamesAndParameters) {
  const relay::IRModule m =
      relay::inferTypes(relay::parseModule("def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(4, "
                                           "8), float32]) { nn.relu(nn.dense(%x, %w)) }"));
  tir::PrimFunc f = lower::lowerToPrimFunc(m.main());
  ASSERT_EQ(f->params.size(), 3u);
  EXPECT_EQ(f->bufferMap[0].second->name, "x");
  EXPECT_EQ(f->bufferMap[1].second->name, "w");
  EXPECT_EQ(f->bufferMap[2].second->name, "T_relu");
}

// A non-scalar constant inside a primitive function becomes an extra parameter after the inputs.
TEST(OpStrategyTest, TensorConstantBecomesExtraParameter) {
  relay::Var x = relay::makeVar("x", tensorType({2, 3}, DataType::float32()));
  NDArray c = tensorOf({2, 3}, DataType::float32(), {1, 2, 3, 4, 5, 6});
  relay::Function f = relay::exprAs<relay::FunctionNode>(relay::inferExprTypes(relay::makeFunction(
      {x}, relay::makeCall(relay::opByName("add"), {x, relay::makeConstant(c)}))));
  lower::LoweredFunction lowered = lower::lowerPrimitive(f);
  ASSERT_EQ(lowered.constants.size(), 1u);
  ASSERT_EQ(lowered.func->params.size(), 3u);
  NDArray xv = tensorOf({2, 3}, DataType::float32(), {10, 20, 30, 40, 50, 60});
  NDArray out = NDArray::empty({2, 3}, DataType::float32());
  tir::evaluate(lowered.func, {xv, lowered.constants[0], out});
  EXPECT_TRUE(allClose(out, tensorOf({2, 3}, DataType::float32(), {11, 22, 33, 44, 55, 66})));
}

// An output that is an input passed through (dropout's data) gets its own copy stage.
TEST(OpStrategyTest, PassThroughOutputIsCopied) {
  const relay::IRModule m = relay::inferTypes(
      relay::parseModule("def @main(%x: Tensor[(4), float32]) { nn.dropout(%x) }"));
  tir::PrimFunc f = lower::lowerToPrimFunc(m.main());
  ASSERT_EQ(f->params.size(), 3u);
  EXPECT_NE(f->bufferMap[1].second, f->bufferMap[0].second);
}

// A `?` extent is a size variable of the kernel, bound from its buffers (TVM's any_dim); a compute
// that needs constant extents refuses it with a diagnostic.
TEST(OpStrategyErrorsTest, DynamicShapeLowersToASymbolicExtent) {
  const relay::IRModule m = relay::inferTypes(
      relay::parseModule("def @main(%x: Tensor[(?, 4), float32]) { nn.relu(%x) }"));
  tir::PrimFunc f = lower::lowerToPrimFunc(m.main());
  ASSERT_EQ(f->bufferMap.size(), 2u);
  const tir::Buffer& in = f->bufferMap[0].second;
  ASSERT_EQ(in->shape.size(), 2u);
  EXPECT_FALSE(tir::asConstInt(in->shape[0]));
  EXPECT_EQ(*tir::asConstInt(in->shape[1]), 4);

  const relay::IRModule conv = relay::inferTypes(relay::parseModule(
      "def @main(%x: Tensor[(?, 2, 5, 5), float32], %w: Tensor[(3, 2, 3, 3), float32]) { "
      "nn.conv2d(%x, %w, kernel_size=[3, 3]) }"));
  Diagnostic d = diagnosticOf([&] { lower::lowerToPrimFunc(conv.main()); });
  EXPECT_EQ(d.code, "topi_dynamic") << d.message;
}

TEST(OpStrategyErrorsTest, ControlFlowIsADiagnostic) {
  const relay::IRModule m = relay::inferTypes(relay::parseModule(
      "def @main(%c: bool, %x: Tensor[(4), float32]) { if (%c) { %x } else { nn.relu(%x) } }"));
  Diagnostic d = diagnosticOf([&] { lower::lowerToPrimFunc(m.main()); });
  EXPECT_EQ(d.code, "lower_te");
}

TEST(OpStrategyErrorsTest, UntypedFunctionIsADiagnostic) {
  relay::Var x = relay::makeVar("x");
  relay::Function f = relay::makeFunction({x}, relay::makeCall(relay::opByName("nn.relu"), {x}));
  Diagnostic d = diagnosticOf([&] { lower::lowerToPrimFunc(f); });
  EXPECT_EQ(d.code, "lower_te");
}

}  // namespace
}  // namespace tessera::test
