// nn.conv2d_transpose compiled: at opt level 3 Legalize turns it into the stride-dilated input
// convolved with the flipped weight (so it gets the conv2d kernels, and its bias and relu fuse
// into them); at opt level 0 its own TE compute runs. Both against the interpreter, including
// groups, dilation, asymmetric padding, output_padding and padding larger than the window (a crop).
#include <gtest/gtest.h>

#include "build_test_util.h"
#include "relay/strategy/op_strategy.h"
#include "relay/transform/passes.h"

namespace tessera::driver::test {
namespace {

std::string module(const std::string& data, const std::string& weight, const std::string& attrs,
                   const std::string& epilogue = "") {
  return "#[version = \"0.0.5\"]\n"
         "def @main(%x: Tensor[" +
         data + ", float32], %w: Tensor[" + weight +
         ", float32]) {\n"
         "  %0 = nn.conv2d_transpose(%x, %w, " +
         attrs + ");\n" + (epilogue.empty() ? "  %0\n" : epilogue) + "}\n";
}

const std::string kCases[] = {
    module("(1, 4, 5, 6)", "(4, 3, 3, 3)",
           "channels=3, kernel_size=[3, 3], strides=[2, 2], output_padding=[1, 1], "
           "padding=[1, 1, 1, 1]"),
    module("(2, 6, 5, 4)", "(6, 2, 3, 2)",
           "channels=4, kernel_size=[3, 2], strides=[3, 2], output_padding=[2, 0], "
           "padding=[2, 0, 1, 1], dilation=[1, 2], groups=2"),
    module("(1, 2, 4, 4)", "(2, 2, 2, 2)", "strides=[2, 2], padding=[2, 2, 2, 2]"),
    module("(1, 16, 8, 8)", "(16, 8, 4, 4)", "strides=[2, 2], padding=[1, 1, 1, 1]",
           "  %1 = nn.bias_add(%0, meta[relay.Constant][0] /* ty=Tensor[(8), float32] */);\n"
           "  nn.relu(%1)\n"),
};

TEST(BuildConvTranspose, CompiledMatchesInterpreterAtEveryOptLevel) {
  uint64_t seed = 11;
  for (const std::string& text : kCases) {
    const relay::IRModule m = withRandomConstants(parse(text), seed);
    EXPECT_TRUE(matchesInterpreter(m, seed, 1e-4, 1e-5, 3)) << text;
    EXPECT_TRUE(matchesInterpreter(m, seed + 1, 1e-4, 1e-5, 0)) << text;
    seed += 2;
  }
}

TEST(BuildConvTranspose, LegalizeLeavesAForwardConvolution) {
  relay::strategy::registerStrategies();
  const relay::IRModule m = parse(kCases[0]);
  const relay::Function out = relay::legalize(m.main());
  bool conv = false, transposed = false;
  relay::postOrderVisit(out, [&](const relay::Expr& e) {
    const auto* call = e->as<relay::CallNode>();
    const auto* op = call ? call->op->as<relay::OpNode>() : nullptr;
    if (!op) return;
    conv = conv || op->name == "nn.conv2d";
    transposed = transposed || op->name == "nn.conv2d_transpose";
  });
  EXPECT_TRUE(conv);
  EXPECT_FALSE(transposed);
}

}  // namespace
}  // namespace tessera::driver::test
