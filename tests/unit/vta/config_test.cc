// VTA configuration: the shipped default file, every derived quantity of spec §1.2, non-default
// configurations, and the validation errors of spec §1.3.
#include "vta/rt/config.h"

#include <gtest/gtest.h>

#include "support/diagnostic.h"
#include "vta_test_util.h"

namespace tessera::vta {
namespace {

std::string configText(const std::string& replaceKey = "", const std::string& value = "") {
  Config cfg;
  std::string text = cfg.toJson();
  if (replaceKey.empty()) return text;
  const std::string needle = "\"" + replaceKey + "\": ";
  const size_t pos = text.find(needle);
  EXPECT_NE(pos, std::string::npos) << replaceKey;
  const size_t end = text.find_first_of(",\n", pos + needle.size());
  return text.substr(0, pos + needle.size()) + value + text.substr(end);
}

void expectConfigError(const std::string& text, const std::string& fragment) {
  try {
    parseConfig(text, "test.json");
    FAIL() << "expected a vta_config diagnostic containing: " << fragment;
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "vta_config");
    EXPECT_EQ(e.diagnostic().context, "test.json");
    EXPECT_NE(e.diagnostic().message.find(fragment), std::string::npos) << e.diagnostic().message;
  }
}

TEST(VtaConfig, ShippedFileIsTheDefault) {
  Config cfg = loadConfig(TESSERA_VTA_CONFIG_JSON);
  EXPECT_EQ(cfg, Config::defaults());
}

TEST(VtaConfig, DerivedQuantitiesOfTheDefault) {
  const Config c = Config::defaults();
  EXPECT_EQ(c.logOutWidth(), 3);
  EXPECT_EQ(c.logOutBuffSize(), 15);
  EXPECT_EQ(c.inpWidth(), 8);
  EXPECT_EQ(c.wgtWidth(), 8);
  EXPECT_EQ(c.accWidth(), 32);
  EXPECT_EQ(c.outWidth(), 8);
  EXPECT_EQ(c.batch(), 1);
  EXPECT_EQ(c.blockIn(), 16);
  EXPECT_EQ(c.blockOut(), 16);
  EXPECT_EQ(c.uopBuffSize(), 32768);
  EXPECT_EQ(c.inpBuffSize(), 32768);
  EXPECT_EQ(c.wgtBuffSize(), 262144);
  EXPECT_EQ(c.accBuffSize(), 131072);
  EXPECT_EQ(c.outBuffSize(), 32768);
  EXPECT_EQ(c.inpElemBits(), 128);
  EXPECT_EQ(c.wgtElemBits(), 2048);
  EXPECT_EQ(c.accElemBits(), 512);
  EXPECT_EQ(c.outElemBits(), 128);
  EXPECT_EQ(c.inpElemBytes(), 16);
  EXPECT_EQ(c.wgtElemBytes(), 256);
  EXPECT_EQ(c.accElemBytes(), 64);
  EXPECT_EQ(c.outElemBytes(), 16);
  EXPECT_EQ(Config::kUopElemBytes, 4);
  EXPECT_EQ(Config::kInsnElemBytes, 16);
  EXPECT_EQ(c.logUopBuffDepth(), 13);
  EXPECT_EQ(c.logInpBuffDepth(), 11);
  EXPECT_EQ(c.logWgtBuffDepth(), 10);
  EXPECT_EQ(c.logAccBuffDepth(), 11);
  EXPECT_EQ(c.uopBuffDepth(), 8192);
  EXPECT_EQ(c.inpBuffDepth(), 2048);
  EXPECT_EQ(c.wgtBuffDepth(), 1024);
  EXPECT_EQ(c.accBuffDepth(), 2048);
  EXPECT_EQ(c.outBuffDepth(), 2048);
  EXPECT_EQ(c.inpDtype(), "int8");
  EXPECT_EQ(c.wgtDtype(), "int8");
  EXPECT_EQ(c.accDtype(), "int32");
  EXPECT_EQ(c.outDtype(), "int8");
  EXPECT_EQ(c.bitstream(), "1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(c.model(), "sim_1x16_i8w8a32_15_15_18_17");
}

TEST(VtaConfig, NonDefaultDerivedQuantities) {
  const Config b2 = test::configBatch2();
  EXPECT_EQ(b2.batch(), 2);
  EXPECT_EQ(b2.inpElemBytes(), 32);
  EXPECT_EQ(b2.accElemBytes(), 128);
  EXPECT_EQ(b2.outElemBytes(), 32);
  EXPECT_EQ(b2.inpBuffDepth(), 1024);
  EXPECT_EQ(b2.accBuffDepth(), 1024);
  EXPECT_EQ(b2.bitstream(), "2x16_i8w8a32_15_15_18_17");
  const Config b32 = test::configBlock32();
  EXPECT_EQ(b32.blockIn(), 32);
  EXPECT_EQ(b32.wgtElemBytes(), 1024);
  EXPECT_EQ(b32.wgtBuffDepth(), 256);
  EXPECT_EQ(b32.logUopSrcDepth(), 10);
  const Config i4 = test::configInt4();
  EXPECT_EQ(i4.inpElemBytes(), 8);
  EXPECT_EQ(i4.wgtElemBytes(), 128);
  EXPECT_EQ(i4.outWidth(), 4);
  EXPECT_EQ(i4.inpDtype(), "int4");
  for (const Config& c : {b2, b32, i4, test::configBlock8()}) {
    EXPECT_NO_THROW(c.validate());
    EXPECT_EQ(parseConfig(c.toJson()), c);  // JSON round trip
  }
}

TEST(VtaConfig, ReadsAFileWithNonDefaultValues) {
  const Config cfg = parseConfig(configText("LOG_BLOCK", "5"));
  EXPECT_EQ(cfg.blockIn(), 32);
  const Config other = parseConfig(R"({"TARGET": "pynq", "LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3,
      "LOG_ACC_WIDTH": 5, "LOG_BATCH": 1, "LOG_BLOCK": 4, "LOG_UOP_BUFF_SIZE": 15,
      "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18, "LOG_ACC_BUFF_SIZE": 17,
      "EXTRA_TOOL_KEY": true})");
  EXPECT_EQ(other.target, "pynq");
  EXPECT_EQ(other.hwVer, "0.0.2");  // optional
  EXPECT_EQ(other.model(), "pynq_2x16_i8w8a32_15_15_18_17");
}

TEST(VtaConfig, RejectsMalformedFiles) {
  expectConfigError("{", "malformed JSON");
  expectConfigError("[1, 2]", "expected a JSON object");
  expectConfigError(R"({"TARGET": "sim"})", "missing key \"LOG_INP_WIDTH\"");
  expectConfigError(configText("LOG_BLOCK", "4.5"), "\"LOG_BLOCK\" must be an integer");
  expectConfigError(configText("LOG_BLOCK", "\"4\""), "\"LOG_BLOCK\" must be an integer");
  expectConfigError(configText("LOG_BATCH", "-1"), "must be an integer in [0, 31]");
  expectConfigError(configText("TARGET", "\"fpga9000\""), "unknown TARGET \"fpga9000\"");
  expectConfigError(configText("TARGET", "7"), "\"TARGET\" must be a string");
}

TEST(VtaConfig, RejectsInconsistentConfigurations) {
  // The micro-op must fit 32 bits: deeper buffers need more index bits.
  expectConfigError(configText("LOG_INP_BUFF_SIZE", "17"), "micro-op needs 34 bits");
  // An element larger than a page cannot be moved by the DMA engine.
  expectConfigError(configText("LOG_BLOCK", "7"), "more than the 4096-byte page");
  // Sub-byte elements do not exist: 1 lane of 1 bit is not a whole byte.
  Config tiny;
  tiny.logBlock = 0;
  tiny.logInpWidth = 0;
  tiny.logWgtWidth = 0;
  EXPECT_THROW(tiny.validate(), DiagnosticError);
  // A buffer smaller than one entry.
  expectConfigError(configText("LOG_WGT_BUFF_SIZE", "7"), "WGT buffer is smaller than one");
  // Only 32-bit accumulators are simulated.
  expectConfigError(configText("LOG_ACC_WIDTH", "4"), "LOG_ACC_WIDTH must be 5");
  // Deep micro-op buffers push the GEMM/ALU loop fields past 64 bits.
  expectConfigError(configText("LOG_UOP_BUFF_SIZE", "17"), "does not fit 128 bits");
}

}  // namespace
}  // namespace tessera::vta
