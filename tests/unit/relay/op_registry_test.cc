#include "relay/op_registry.h"

#include <gtest/gtest.h>

#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

TEST(OpRegistry, EveryOpIsComplete) {
  OpRegistry& registry = OpRegistry::global();
  std::vector<std::string> names = registry.names();
  EXPECT_GE(names.size(), 80u);
  for (const std::string& name : names) {
    const OpDef* def = registry.find(name);
    ASSERT_NE(def, nullptr);
    EXPECT_TRUE(def->typeRelation) << name << " has no type relation";
    EXPECT_TRUE(def->kernel) << name << " has no reference kernel";
    EXPECT_FALSE(def->summary.empty()) << name << " has no summary";
    if (!def->attrs.typeKey.empty()) {
      EXPECT_TRUE(AttrsRegistry::global().create(def->attrs.typeKey))
          << name << ": attrs type " << def->attrs.typeKey << " is not registered for parsing";
    }
  }
}

TEST(OpRegistry, CatalogueNamedByTheFoundationIssueIsPresent) {
  const char* required[] = {"nn.conv2d",
                            "nn.dense",
                            "nn.batch_matmul",
                            "nn.batch_norm",
                            "nn.bias_add",
                            "nn.relu",
                            "nn.leaky_relu",
                            "nn.max_pool2d",
                            "nn.avg_pool2d",
                            "nn.global_avg_pool2d",
                            "nn.adaptive_avg_pool2d",
                            "nn.pad",
                            "nn.softmax",
                            "nn.log_softmax",
                            "nn.batch_flatten",
                            "nn.layer_norm",
                            "nn.dropout",
                            "reshape",
                            "transpose",
                            "broadcast_to",
                            "expand_dims",
                            "squeeze",
                            "concatenate",
                            "split",
                            "strided_slice",
                            "take",
                            "where",
                            "add",
                            "subtract",
                            "multiply",
                            "divide",
                            "power",
                            "maximum",
                            "minimum",
                            "negative",
                            "exp",
                            "log",
                            "sqrt",
                            "rsqrt",
                            "tanh",
                            "sigmoid",
                            "erf",
                            "round",
                            "floor",
                            "ceil",
                            "abs",
                            "clip",
                            "cast",
                            "sum",
                            "mean",
                            "max",
                            "min",
                            "argmax",
                            "fixed_point_multiply",
                            "right_shift",
                            "left_shift",
                            "annotation.stop_fusion",
                            "annotation.cast_hint",
                            "layout_transform",
                            "zeros",
                            "ones",
                            "full"};
  for (const char* name : required) EXPECT_NE(OpRegistry::global().find(name), nullptr) << name;
}

TEST(OpRegistry, PatternKindsFollowTvm) {
  auto pattern = [](const char* name) { return OpRegistry::global().find(name)->pattern; };
  EXPECT_EQ(pattern("nn.conv2d"), OpPattern::kOutEWiseFusable);
  EXPECT_EQ(pattern("add"), OpPattern::kBroadcast);
  EXPECT_EQ(pattern("nn.relu"), OpPattern::kElemWise);
  EXPECT_EQ(pattern("reshape"), OpPattern::kInjective);
  EXPECT_EQ(pattern("sum"), OpPattern::kCommReduce);
  EXPECT_EQ(pattern("annotation.stop_fusion"), OpPattern::kOpaque);
  EXPECT_TRUE(OpRegistry::global().find("nn.dropout")->stateful);
  EXPECT_TRUE(OpRegistry::global().find("reshape")->reshapeOnly);
}

TEST(OpRegistry, AttributeMapsHonourPriorityLevels) {
  OpRegistry& r = OpRegistry::global();
  const std::string key = "TestRewrite";
  r.resetAttr("nn.relu", key);
  r.setAttr("nn.relu", key, std::string("default"), 10);
  EXPECT_EQ(*getOpAttr<std::string>("nn.relu", key), "default");
  // The same level twice is an error, as in TVM.
  EXPECT_THROW(r.setAttr("nn.relu", key, std::string("again"), 10), DiagnosticError);
  // A lower level does not replace a higher one; a higher one does.
  r.setAttr("nn.relu", key, std::string("low"), 5);
  EXPECT_EQ(*getOpAttr<std::string>("nn.relu", key), "default");
  r.setAttr("nn.relu", key, std::string("user"), 11);
  EXPECT_EQ(*getOpAttr<std::string>("nn.relu", key), "user");
  // Reset removes it, so any level may register again (seed 001's reset_attr + register).
  r.resetAttr("nn.relu", key);
  EXPECT_EQ(getOpAttr<std::string>("nn.relu", key), nullptr);
  r.setAttr("nn.relu", key, std::string("after reset"), 10);
  EXPECT_EQ(*getOpAttr<std::string>("nn.relu", key), "after reset");
  r.resetAttr("nn.relu", key);
  // Wrong value type reads as absent rather than crashing.
  r.setAttr("nn.relu", key, 42);
  EXPECT_EQ(getOpAttr<std::string>("nn.relu", key), nullptr);
  r.resetAttr("nn.relu", key);
}

TEST(OpRegistry, UnknownOpsAreDiagnostics) {
  EXPECT_THROW(OpRegistry::global().get("nn.conv7d"), DiagnosticError);
  EXPECT_THROW(OpRegistry::global().setAttr("nn.conv7d", "X", 1), DiagnosticError);
}

}  // namespace
}  // namespace tessera::relay
