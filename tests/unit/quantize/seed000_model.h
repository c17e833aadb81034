// Seed 000's model (000_116a324a724edcb2.txt) as TVM's PyTorch frontend gives it, shared by the
// quantization and VTA graph-packing tests.
#pragma once

#include <cmath>
#include <regex>
#include <string>

#include "relay/builder.h"
#include "relay/type_infer.h"
#include "test_util.h"

namespace tessera::relay::quantize {

// A golden file of tests/golden/text without its `//` header and without `span=...` in comments.
inline std::string goldenText(const std::string& file) {
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

inline Expr uniform(const std::vector<int64_t>& shape, double bound, uint64_t seed) {
  return constant(test::randomTensor(shape, DataType::float32(), seed, -bound, bound));
}

inline Expr filled(int64_t n, double value) {
  return constant(test::tensorOf({n}, DataType::float32(), std::vector<double>(n, value)));
}

// Seed 000's model as the PyTorch frontend gives it: conv (with bias, PyTorch's initialisation
// bounds) + freshly initialised batch norm (gamma 1, beta 0, mean 0, var 1) + relu.
inline IRModule seed000Model() {
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

}  // namespace tessera::relay::quantize
