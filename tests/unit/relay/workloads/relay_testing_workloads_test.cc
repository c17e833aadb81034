// TVM 0.16's relay.testing workloads (workloads/relay_testing.h): each, at get_workload's
// defaults, types to TVM's output type and prints text that parses back to an equal module and
// reprints identically; a small configuration of each (TVM's own arguments where it has them, a
// width divisor where the input size fixes the structure) runs on the interpreter with random
// parameters and compiles for the host through the graph executor to the same numbers. TVM's own
// printed mlp is a golden input.
#include <functional>

#include "driver/build.h"
#include "relay/interp/interpreter.h"
#include "relay/structural_equal.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay_testing.h"
#include "runtime/graph_executor/graph_executor.h"
#include "test_util.h"

namespace tessera::workloads {
namespace {

struct Workload {
  std::string name;
  std::function<relay::IRModule()> full;  ///< get_workload's defaults
  std::string outputType;                 ///< TVM's type of the full net's output
  std::function<relay::IRModule()> small;
};

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> kAll = {
      {"mlp", [] { return mlp(); }, "Tensor[(1, 10), float32]", [] { return mlp(); }},
      {"dcgan", [] { return dcgan(); }, "Tensor[(1, 3, 64, 64), float32]",
       [] { return dcgan(1, 8, 16); }},
      {"lstm", [] { return lstm(4, 128); }, "Tensor[(1, 128), float32]", [] { return lstm(2, 8); }},
      {"synthetic", [] { return synthetic(); }, "Tensor[(1, 3, 24, 12), float32]",
       [] { return synthetic(); }},
      {"mobilenet", [] { return mobilenet(); }, "Tensor[(1, 1000), float32]",
       [] {
         return mobilenet(1, 10, {3, 32, 32}, 0.125);
       }},
      {"resnet", [] { return resnet(); }, "Tensor[(1, 1000), float32]",
       [] {
         return resnet(1, 10, 8, {3, 28, 28});
       }},
      {"resnet_3d", [] { return resnet3d(); }, "Tensor[(1, 1000), float32]",
       [] {
         return resnet3d(1, 10, 8, {3, 4, 12, 12});
       }},
      {"vgg", [] { return vgg(); }, "Tensor[(1, 1000), float32]",
       [] {
         return vgg(1, 10, {3, 32, 32}, 11, true, 16);
       }},
      {"squeezenet", [] { return squeezenet(); }, "Tensor[(1, 1000), float32]",
       [] {
         return squeezenet(1, 10, "1.1", {3, 47, 47});
       }},
      {"densenet", [] { return densenet(); }, "Tensor[(4, 1000), float32]",
       [] {
         return denseNet(4, 2, {1, 2, 1, 1}, {1, 3, 224, 224}, 2, 10);
       }},
      {"inception_v3", [] { return inceptionV3(); }, "Tensor[(1, 1000), float32]",
       [] {
         return inceptionV3(1, 10, {3, 299, 299}, 32);
       }},
  };
  return kAll;
}

class RelayTestingWorkload : public ::testing::TestWithParam<Workload> {};

TEST_P(RelayTestingWorkload, TypesAndRoundTripsItsText) {
  const relay::IRModule m = relay::inferTypes(GetParam().full());
  EXPECT_EQ(typeToString(m.main()->body->checkedType), GetParam().outputType);
  std::string printed = relay::printModule(m, {.header = true});
  relay::IRModule parsed = relay::inferTypes(relay::parseModule(printed, GetParam().name));
  if (GetParam().name == "dcgan") {
    // Its batch-norm epsilon, 1e-5 + 1e-12, prints as TVM prints a double attribute (six
    // significant digits), as 1e-05f, which parses to the default 1e-5, which is not printed:
    // the text is a fixed point from the second printing on, as TVM's is.
    EXPECT_NE(printed.find("epsilon=1e-05f, scale=False"), std::string::npos);
    printed = relay::printModule(parsed, {.header = true});
    parsed = relay::inferTypes(relay::parseModule(printed, GetParam().name));
  } else {
    EXPECT_TRUE(relay::structuralEqual(parsed, m));
  }
  const std::string reprinted = relay::printModule(parsed, {.header = true});
  EXPECT_EQ(reprinted, printed);
  EXPECT_TRUE(relay::structuralEqual(
      relay::inferTypes(relay::parseModule(reprinted, GetParam().name)), parsed));
}

// Random values as relay.testing.init would place them: weights around zero, batch-norm
// variances positive (gamma, beta, means and biases random too, so that nothing multiplies by 1
// or adds 0).
std::map<std::string, NDArray> randomParams(const relay::IRModule& m, uint64_t seed) {
  std::map<std::string, NDArray> params;
  for (const relay::Var& p : m.main()->params) {
    const std::string& name = p->nameHint;
    if (name == "data") continue;
    const auto* t = p->checkedType->as<TensorTypeNode>();
    const std::vector<int64_t> shape = *staticShape(t->shape);
    const bool variance = name.ends_with("_var"), gamma = name.ends_with("_gamma");
    const double lo = variance || gamma ? 0.5 : -0.5, hi = variance || gamma ? 1.5 : 0.5;
    params[name] = test::randomTensor(shape, t->dtype, seed++, lo, hi);
  }
  return params;
}

TEST_P(RelayTestingWorkload, CompiledMatchesInterpreter) {
  // Through the text, so the compiled module is the one a user would load from TVM's output.
  const relay::IRModule built = relay::inferTypes(GetParam().small());
  const relay::IRModule m = relay::inferTypes(
      relay::parseModule(relay::printModule(built, {.header = true}), GetParam().name));
  const std::map<std::string, NDArray> params = randomParams(m, 17);
  const relay::IRModule bound = relay::bindParams(m, params);
  const std::vector<relay::Value> inputs = test::randomInputs(bound, 3);
  const relay::Value expected = relay::Interpreter(bound).run(inputs);

  const driver::Built compiled = driver::build(m, codegen::hostTarget(), params);
  runtime::GraphExecutor executor(compiled.model());
  ASSERT_EQ(executor.numInputs(), static_cast<int>(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(executor.inputName(static_cast<int>(i)), bound.main()->params[i]->nameHint);
    executor.setInput(static_cast<int>(i), inputs[i].tensor());
  }
  executor.run();
  ASSERT_EQ(executor.numOutputs(), 1);
  EXPECT_TRUE(test::allClose(executor.getOutput(0), expected.tensor(), 1e-3, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(Tvm016, RelayTestingWorkload, ::testing::ValuesIn(workloads()),
                         [](const auto& info) { return info.param.name; });

TEST(RelayTestingGolden, TvmsPrintedMlpParsesTypesAndEqualsTheBuiltOne) {
  // mlp.get_workload(1) printed by TVM (parameters annotated by InferType, PrettyPrint form).
  const std::string tvm = test::readFile(test::sourcePath("tests/golden/text/tvm016_mlp.relay"));
  const relay::IRModule golden = relay::inferTypes(relay::parseModule(tvm, "tvm016_mlp.relay"));
  EXPECT_EQ(typeToString(golden.main()->body->checkedType), "Tensor[(1, 10), float32]");
  const relay::IRModule built = relay::inferTypes(mlp());
  EXPECT_TRUE(relay::structuralEqual(golden, built));
  EXPECT_EQ(relay::printModule(built), relay::printModule(golden));
}

}  // namespace
}  // namespace tessera::workloads
