// The AMX permission counts (runtime/amx_permission.h): when the kernel refuses the tiles (forced
// here with TESSERA_AMX_DENY=1), the host target has no AMX, so an int8 convolution AMX would
// take is built from the VNNI or AVX2 rows and matches the interpreter; code compiled for AMX
// anyway refuses to run instead of faulting. The selection is tested on a host with AMX features
// added (usableHostFeatures), compiled on every x86 host; AMX execution is x86_int8_amx_test's.
#include <gtest/gtest.h>

#include <cstdlib>

#include "codegen/llvm/target.h"
#include "int8_kernel_test_util.h"
#include "runtime/amx_permission.h"

namespace tessera::driver::test {
namespace {

// Sets TESSERA_AMX_DENY for the scope of the object.
class ForceAmxRefusal {
 public:
  ForceAmxRefusal() { setenv(runtime::kAmxDenyEnv, "1", 1); }
  ~ForceAmxRefusal() { unsetenv(runtime::kAmxDenyEnv); }
  ForceAmxRefusal(const ForceAmxRefusal&) = delete;
  ForceAmxRefusal& operator=(const ForceAmxRefusal&) = delete;
};

// A 3x3 int8 convolution with the requantizing epilogue, of a shape the AMX row takes.
relay::IRModule amxShapedConv() {
  relay::Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 64;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  attrs.outDtype = DataType::int32();
  relay::Expr y = relay::nn::conv2d(relay::var("x", tensorType({1, 64, 14, 14}, DataType::int8())),
                                    int8Constant({64, 64, 3, 3}, 3), attrs);
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(requantize(y))));
}

// The host's features with AVX-512 VNNI and AMX-INT8 turned on: what a Sapphire Rapids host
// reports (the AMX row also needs VNNI). Code for it is compiled here, not run.
std::string amxHostFeatures() {
  std::string f = "," + codegen::hostTarget().features + ",";
  for (const std::string feature : {"amx-int8", "amx-tile", "avx512f", "avx512bw", "avx512dq",
                                    "avx512vl", "avx512vnni", "evex512"}) {
    const size_t at = f.find(",-" + feature + ",");
    if (at != std::string::npos)
      f[at + 1] = '+';
    else if (f.find(",+" + feature + ",") == std::string::npos)
      f += "+" + feature + ",";
  }
  return f.substr(1, f.size() - 2);
}

bool hostHasVnni() {
  const target::Target host = codegen::hostTarget();
  return host.hasFeature("avx512vnni") && host.hasFeature("avx512bw");
}

target::Target withFeatures(const std::string& features) {
  target::Target t = codegen::hostTarget();
  t.features = features;
  return t;
}

TEST(AmxPermission, RefusalTurnsTheHostsAmxFeaturesOff) {
  EXPECT_EQ(codegen::usableHostFeatures("+amx-bf16,+amx-int8,+amx-tile,+avx2,-avx512f", false),
            "-amx-bf16,-amx-int8,-amx-tile,+avx2,-avx512f");
  EXPECT_EQ(codegen::usableHostFeatures("+amx-int8,+amx-tile,+avx2", true),
            "+amx-int8,+amx-tile,+avx2");
}

TEST(AmxPermission, ForcedRefusalIsReportedAndTheHostTargetHasNoAmx) {
  ForceAmxRefusal refuse;
  EXPECT_FALSE(runtime::requestAmxTileData());
  EXPECT_EQ(runtime::amxRefusal(), "TESSERA_AMX_DENY is set");
  const target::Target host = codegen::hostTarget();
  EXPECT_FALSE(host.hasFeature("amx-int8") || host.hasFeature("amx-tile")) << host.features;
  // On any host, the int8 convolution then comes from a non-AMX row, bit-exact.
  EXPECT_FALSE(kernelsOf(amxShapedConv()).mentions("nn.conv2d: conv2d_nchw_int8_amx.x86"));
  EXPECT_TRUE(matchesInterpreter(amxShapedConv(), 5));
}

// An AMX host: granted, the AMX row takes the convolution; refused, the same host's usable
// features pick the VNNI row (run and compared with the interpreter where the host has VNNI).
TEST(AmxPermission, RefusedAmxHostPicksTheVnniKernels) {
  const relay::IRModule conv = amxShapedConv();
  const BuiltKernels amx =
      kernelsOf(conv, withFeatures(codegen::usableHostFeatures(amxHostFeatures(), true)));
  EXPECT_TRUE(amx.mentions("nn.conv2d: conv2d_nchw_int8_amx.x86"))
      << ::testing::PrintToString(amx.implementations);
  EXPECT_TRUE(amx.calls("llvm.x86.tdpbssd"));

  const target::Target refused =
      withFeatures(codegen::usableHostFeatures(amxHostFeatures(), false));
  const BuiltKernels fallback = kernelsOf(conv, refused);
  EXPECT_TRUE(fallback.mentions("nn.conv2d: conv2d_nchw_int8_vnni.x86"))
      << ::testing::PrintToString(fallback.implementations);
  EXPECT_FALSE(fallback.calls("llvm.x86.tdp") || fallback.calls("llvm.x86.tile"));
  EXPECT_TRUE(fallback.callsVnni());
  if (hostHasVnni()) EXPECT_TRUE(matchesInterpreter(conv, 5, 0, 0, 3, refused));
}

// Code built for AMX (an explicit -mattr=+amx-tile,+amx-int8) where the process may not use the
// tiles binds, but refuses to run with a located error naming the reason and the way out.
TEST(AmxPermission, AmxCodeRefusesToRunWithoutThePermission) {
  ForceAmxRefusal refuse;
  const Built built = build(amxShapedConv(), withFeatures(amxHostFeatures()));
  const Diagnostic d = tessera::test::diagnosticOf([&] { GraphExecutor executor(built.model()); });
  EXPECT_EQ(d.code, "amx_permission");
  EXPECT_NE(d.message.find("uses AMX tiles"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("TESSERA_AMX_DENY is set"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("-mattr=-amx-tile,-amx-int8"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::driver::test
