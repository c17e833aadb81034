// partition_conversions (qconfig partition_conversions "enabled" / "fully_integral"): a quantized
// conv + relu + dense model split into @quantize_inputs, @quantized_main, @dequantize_outputs and
// a @main calling them; the split module computes what the unsplit one does (interpreter) and
// compiles (build() inlines the calls); "fully_integral" accepts an integer @quantized_main and
// names the op that is not; the text form re-parses.
#include <gtest/gtest.h>

#include "../driver/build_test_util.h"
#include "relay/builder.h"
#include "relay/quantize/partition_conversions.h"
#include "relay/quantize/quantize.h"
#include "relay/text/printer.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

// conv2d (8 -> 16 channels) + relu + conv2d, with a softmax between them when `softmax`.
IRModule model(bool softmax) {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1};
  attrs.channels = 16;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr x = var("data", {1, 8, 10, 10});
  Expr w = constant(test::randomTensor({16, 8, 3, 3}, DataType::float32(), 1, -1, 1));
  Expr y = callOp("nn.relu", {nn::conv2d(x, w, attrs)});
  if (softmax) y = callOp("nn.softmax", {y}, {{"axis", AttrValue::integer(1)}});
  y = nn::conv2d(y, constant(test::randomTensor({16, 16, 3, 3}, DataType::float32(), 2, -1, 1)),
                 attrs);
  return inferTypes(IRModule::fromExpr(function(y)));
}

IRModule quantizedWith(const IRModule& m, const std::string& partition) {
  QConfig cfg = QConfig::scoped();
  cfg.skipConvLayers = std::vector<int64_t>{};
  cfg.partitionConversions = partition;
  QConfigScope scope(cfg);
  return quantize(m);
}

std::vector<std::string> functionNames(const IRModule& m) {
  std::vector<std::string> names;
  for (const auto& [name, fn] : m.functions()) names.push_back(name);
  return names;
}

TEST(QuantizePartitionConversions, SplitsIntoThreeFunctionsThatComputeTheSame) {
  const IRModule m = model(false);
  const IRModule whole = quantizedWith(m, "disabled");
  const IRModule split = quantizedWith(m, "enabled");
  EXPECT_EQ(functionNames(split), (std::vector<std::string>{"dequantize_outputs", "main",
                                                            "quantize_inputs", "quantized_main"}));
  // The input's conversion (multiply, round, clip, cast to int8) is all @quantize_inputs does;
  // @quantized_main takes int8 and returns an integer; @dequantize_outputs returns float32.
  const Function& q = split.lookup("quantized_main");
  ASSERT_EQ(q->params.size(), 1u);
  EXPECT_EQ(q->params[0]->nameHint, "data");
  EXPECT_EQ(q->params[0]->checkedType->as<TensorTypeNode>()->dtype, DataType::int8());
  const DataType out = q->body->checkedType->as<TensorTypeNode>()->dtype;
  EXPECT_TRUE(out == DataType::int8() || out == DataType::int32()) << out.name();
  EXPECT_EQ(split.main()->body->checkedType->as<TensorTypeNode>()->dtype, DataType::float32());
  const std::string text = printModule(split);
  EXPECT_NE(text.find("@quantize_inputs(%data)"), std::string::npos) << text;
  EXPECT_NE(text.find("@quantized_main("), std::string::npos);
  EXPECT_NE(text.find("@dequantize_outputs("), std::string::npos);
  // The same values on the interpreter, and compiled.
  const std::vector<Value> inputs = test::randomInputs(whole, 7);
  const std::vector<NDArray> a = test::flattenTensors(Interpreter(whole).run(inputs));
  const std::vector<NDArray> b = test::flattenTensors(Interpreter(split).run(inputs));
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(test::allClose(a[0], b[0], 0, 0));
  EXPECT_TRUE(driver::test::matchesInterpreter(split, 7));
  // "fully_integral" holds here: nothing in @quantized_main is float.
  EXPECT_NO_THROW(quantizedWith(m, "fully_integral"));
}

TEST(QuantizePartitionConversions, FullyIntegralNamesTheFloatOp) {
  // softmax has no quantization rule: it stays float between the two quantized convolutions.
  const IRModule m = model(true);
  EXPECT_NO_THROW(quantizedWith(m, "enabled"));
  try {
    quantizedWith(m, "fully_integral");
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "quantize_partition");
    EXPECT_NE(e.diagnostic().message.find("not fully integral: 'nn.softmax' computes"),
              std::string::npos)
        << e.diagnostic().message;
  }
}

TEST(QuantizePartitionConversions, RefusesAModuleOfSeveralFunctions) {
  IRModule m = model(false);
  m.add("helper", function(var("y", {1})));
  try {
    partitionConversions(m, {DataType::int8(), DataType::int32()}, false);
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "quantize_partition");
  }
}

}  // namespace
}  // namespace tessera::relay::quantize
