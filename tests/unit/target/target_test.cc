// Target strings: kinds, options, canonical form, VTA configs, and the errors for what is wrong.
#include "target/target.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace tessera::target {
namespace {

using tessera::test::diagnosticOf;

TEST(Target, ParsesLlvmOptions) {
  const Target t =
      Target::parse("llvm -mcpu=znver4 -mattr=+avx2 -mtriple=x86_64-pc-linux-gnu --num-cores=2");
  EXPECT_EQ(t.kind, TargetKind::kLlvm);
  EXPECT_EQ(t.cpu, "znver4");
  EXPECT_EQ(t.features, "+avx2");
  EXPECT_EQ(t.triple, "x86_64-pc-linux-gnu");
  EXPECT_EQ(t.numCores, 2);
  EXPECT_EQ(t.keys, std::vector<std::string>{"cpu"});
  EXPECT_EQ(t.str(), "llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4 -mattr=+avx2 -num-cores=2");
  // Options left out stay empty: codegen fills in the host's.
  EXPECT_TRUE(Target::parse("llvm").cpu.empty());
  EXPECT_EQ(Target::parse("llvm").str(), "llvm");
}

TEST(Target, CanonicalStringParsesToAnEqualTarget) {
  for (const char* text : {"llvm -mcpu=skylake-avx512 -num-cores=4", "llvm -keys=cpu,x86", "vta",
                           "ext_dev -device=vta -keys=vta,cpu", "llvm  -mattr=+avx512f"}) {
    const Target t = Target::parse(text);
    EXPECT_EQ(Target::parse(t.str()), t) << text;
  }
}

TEST(Target, VectorWidthFollowsTheFeatures) {
  EXPECT_EQ(Target::parse("llvm -mattr=+avx512f,+avx2").vectorBytes(), 64);
  EXPECT_EQ(Target::parse("llvm -mattr=+avx2,-avx512f").vectorBytes(), 32);
  EXPECT_EQ(Target::parse("llvm -mattr=+sse4.2").vectorBytes(), 16);
  EXPECT_TRUE(Target::parse("llvm -mattr=+avx512vnni").hasFeature("avx512vnni"));
  EXPECT_FALSE(Target::parse("llvm -mattr=-avx512vnni").hasFeature("avx512vnni"));
}

TEST(Target, VtaCarriesItsConfiguration) {
  const Target vta = Target::parse("vta");
  EXPECT_TRUE(vta.isVta());
  EXPECT_EQ(vta.keys, (std::vector<std::string>{"vta", "cpu"}));
  ASSERT_TRUE(vta.vtaConfig);
  EXPECT_EQ(vta.vtaConfig->model(), "sim_1x16_i8w8a32_15_15_18_17");
  EXPECT_EQ(vta.str(), "vta -model=sim_1x16_i8w8a32_15_15_18_17");
  // TVM's spelling of the same target.
  const Target ext = Target::parse("ext_dev -keys=vta,cpu -device=vta");
  EXPECT_TRUE(ext.isVta());
  EXPECT_EQ(ext.keys, vta.keys);
  EXPECT_EQ(*ext.vtaConfig, *vta.vtaConfig);
  EXPECT_NO_THROW(Target::parse("vta -model=sim_1x16_i8w8a32_15_15_18_17"));
}

TEST(Target, VtaReadsItsJsonConfig) {
  vta::Config config;
  config.logBlock = 5;
  const std::string path = ::testing::TempDir() + "/target_test_vta_config.json";
  std::ofstream(path) << config.toJson();
  const Target t = Target::parse("vta -config=" + path);
  ASSERT_TRUE(t.vtaConfig);
  EXPECT_EQ(t.vtaConfig->logBlock, 5);
  EXPECT_EQ(Target::parse(t.str()), t);
}

TEST(Target, RejectsWhatItDoesNotKnow) {
  EXPECT_EQ(diagnosticOf([] { Target::parse("cuda"); }).message,
            "unknown target kind 'cuda' (expected 'llvm', 'vta', 'ext_dev')");
  EXPECT_EQ(diagnosticOf([] { Target::parse(""); }).message,
            "empty target (expected 'llvm', 'vta', 'ext_dev')");
  EXPECT_EQ(diagnosticOf([] { Target::parse("llvm -foo=1"); }).message,
            "unknown option 'foo' for target kind 'llvm' (expected mtriple, mcpu, mattr, "
            "num-cores or keys)");
  EXPECT_EQ(diagnosticOf([] { Target::parse("vta -mcpu=znver4"); }).message,
            "unknown option 'mcpu' for target kind 'vta' (expected config, model or keys)");
  EXPECT_EQ(diagnosticOf([] { Target::parse("llvm -num-cores=x"); }).message,
            "num-cores must be a positive integer, found 'x'");
  EXPECT_EQ(diagnosticOf([] { Target::parse("llvm mcpu=znver4"); }).message,
            "expected '-key=value' but found 'mcpu=znver4'");
  EXPECT_EQ(diagnosticOf([] { Target::parse("llvm -mcpu"); }).message,
            "expected '-key=value' but found '-mcpu'");
  EXPECT_EQ(diagnosticOf([] { Target::parse("ext_dev"); }).message, "ext_dev needs -device=vta");
  EXPECT_EQ(diagnosticOf([] { Target::parse("ext_dev -device=gpu"); }).message,
            "unknown device 'gpu' (expected 'vta')");
  EXPECT_EQ(diagnosticOf([] { Target::parse("vta -model=sim_1x32_i8w8a32_15_15_18_17"); }).message,
            "model 'sim_1x32_i8w8a32_15_15_18_17' does not match the VTA config, whose model is "
            "'sim_1x16_i8w8a32_15_15_18_17'");
  const Diagnostic missing = diagnosticOf([] { Target::parse("vta -config=/nonexistent.json"); });
  EXPECT_EQ(missing.code, "target");
  EXPECT_EQ(missing.context, "target 'vta -config=/nonexistent.json'");
  EXPECT_NE(missing.message.find("cannot use VTA config '/nonexistent.json'"), std::string::npos);
}

}  // namespace
}  // namespace tessera::target
