// FuseOps: TVM's grouping on a ResNet-style block, an MLP and transposed / 3-D convolutions, opt
// level 0, the depth limit, stop_fusion, and differential checks with the interpreter.
#include <gtest/gtest.h>

#include <unordered_map>

#include "../../test_util.h"
#include "relay/op_registry.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

// The ops of each Primitive function called from main, in post order, e.g. "nn.conv2d add".
std::vector<std::string> fusedGroups(const IRModule& m) {
  std::vector<std::string> groups;
  postOrderVisit(m.main()->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto fn = call ? exprAs<FunctionNode>(call->op) : nullptr;
    if (!fn || !fn->attrs.has("Primitive")) return;
    std::string ops;
    postOrderVisit(fn->body, [&](const Expr& inner) {
      const auto* c = inner->as<CallNode>();
      const auto* op = c ? c->op->as<OpNode>() : nullptr;
      if (op) ops += (ops.empty() ? "" : " ") + op->name;
    });
    groups.push_back(ops);
  });
  return groups;
}

IRModule runFuse(const IRModule& m, int optLevel = 2, int maxDepth = -1) {
  PassContext ctx;
  ctx.optLevel = optLevel;
  if (maxDepth > 0) ctx.config["relay.FuseOps.max_depth"] = AttrValue::integer(maxDepth);
  return (*fuseOpsPass())(m, ctx);
}

const char* kResNetBlock =
    R"(def @main(%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(4, 4, 3, 3), float32], %b1: Tensor[(4, 1, 1), float32], %w2: Tensor[(4, 4, 3, 3), float32], %b2: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = add(%0, %b1);
  %2 = nn.relu(%1);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1, 1, 1]);
  %4 = add(%3, %b2);
  %5 = add(%4, %x);
  nn.relu(%5)
})";

const char* kMlp =
    R"(def @main(%x: Tensor[(2, 8), float32], %w1: Tensor[(16, 8), float32], %b1: Tensor[(16), float32], %w2: Tensor[(4, 16), float32], %b2: Tensor[(4), float32]) {
  %0 = nn.dense(%x, %w1);
  %1 = nn.bias_add(%0, %b1);
  %2 = nn.relu(%1);
  %3 = nn.dense(%2, %w2);
  nn.bias_add(%3, %b2)
})";

TEST(FuseOps, ResNetBlockFusesEachConvWithItsElementwiseTail) {
  const IRModule m = parseModule(kResNetBlock);
  const IRModule fused = runFuse(m);
  // The residual add and the final relu join the second conv's group; %x enters as a parameter.
  EXPECT_EQ(fusedGroups(fused),
            (std::vector<std::string>{"nn.conv2d add nn.relu", "nn.conv2d add add nn.relu"}));
  EXPECT_TRUE(test::sameBehaviour(m, fused));
}

TEST(FuseOps, MlpFusesDenseBiasAndRelu) {
  const IRModule m = parseModule(kMlp);
  const IRModule fused = runFuse(m);
  EXPECT_EQ(fusedGroups(fused),
            (std::vector<std::string>{"nn.dense nn.bias_add nn.relu", "nn.dense nn.bias_add"}));
  EXPECT_TRUE(test::sameBehaviour(m, fused));
}

TEST(FuseOps, PrintsPrimitiveFunctionsWithNumberedParameters) {
  const IRModule fused = runFuse(parseModule(kMlp));
  const std::string text = printModule(fused);
  // The printer disambiguates the first function's p0.. as p01.. (as TVM's does).
  EXPECT_NE(text.find("fn (%p0: Tensor[(2, 16), float32] /* ty=Tensor[(2, 16), float32] */, %p1: "
                      "Tensor[(4, 16), float32] /* ty=Tensor[(4, 16), float32] */, %p2: "
                      "Tensor[(4), float32] /* ty=Tensor[(4), float32] */, Primitive=1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%5(%4, %w2, %b2)"), std::string::npos) << text;
}

TEST(FuseOps, OptLevelZeroWrapsEveryOpAlone) {
  const IRModule m = parseModule(kMlp);
  const IRModule fused = runFuse(m, 0);
  EXPECT_EQ(fusedGroups(fused), (std::vector<std::string>{"nn.dense", "nn.bias_add", "nn.relu",
                                                          "nn.dense", "nn.bias_add"}));
  EXPECT_TRUE(test::sameBehaviour(m, fused));
}

TEST(FuseOps, MaxDepthLimitsGroupSize) {
  const IRModule fused = runFuse(parseModule(kMlp), 2, 2);
  EXPECT_EQ(fusedGroups(fused),
            (std::vector<std::string>{"nn.dense nn.bias_add", "nn.relu", "nn.dense nn.bias_add"}));
}

TEST(FuseOps, StopFusionEndsAGroupAndDisappears) {
  const IRModule m = parseModule(R"(def @main(%x: Tensor[(4), float32]) {
  %0 = multiply(%x, 2f);
  %1 = annotation.stop_fusion(%0);
  %2 = nn.relu(%1);
  add(%2, 1f)
})");
  const IRModule fused = runFuse(m);
  EXPECT_EQ(fusedGroups(fused), (std::vector<std::string>{"multiply", "nn.relu add"}));
  EXPECT_EQ(printModule(fused).find("stop_fusion"), std::string::npos);
  EXPECT_TRUE(test::sameBehaviour(m, fused));
}

// Injective ops fuse with each other but not into a reduction; elementwise ops do (TVM).
TEST(FuseOps, InjectiveChainStaysApartFromReduction) {
  const IRModule m = parseModule(R"(def @main(%x: Tensor[(2, 3, 4), float32]) {
  %0 = transpose(%x, axes=[0, 2, 1]);
  %1 = reshape(%0, newshape=[8, 3]);
  %2 = exp(%1);
  sum(%2, axis=[1])
})");
  const IRModule fused = runFuse(m);
  EXPECT_EQ(fusedGroups(fused), (std::vector<std::string>{"transpose reshape", "exp sum"}));
  EXPECT_TRUE(test::sameBehaviour(m, fused));
}

TEST(FuseOps, DiamondReconvergesIntoOneGroup) {
  const IRModule m = parseModule(R"(def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = nn.relu(%0);
  %2 = negative(%0);
  add(%1, %2)
})");
  const IRModule fused = runFuse(m);
  EXPECT_EQ(fusedGroups(fused), (std::vector<std::string>{"exp nn.relu negative add"}));
  EXPECT_TRUE(test::sameBehaviour(m, fused));
}

TEST(FuseOps, TwoConvsNeverShareAGroup) {
  const IRModule m = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(2, 2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w);
  nn.conv2d(%0, %w)
})");
  EXPECT_EQ(fusedGroups(runFuse(m)), (std::vector<std::string>{"nn.conv2d", "nn.conv2d"}));
}

// nn.conv2d_transpose and nn.conv3d are kOutEWiseFusable like nn.conv2d (as in TVM): their
// elementwise tails join their groups (DCGAN's deconvolution, resnet_3d's convolution).
TEST(FuseOps, TransposedAnd3dConvolutionsFuseTheirElementwiseTails) {
  const IRModule deconv = parseModule(
      R"(def @main(%x: Tensor[(1, 4, 4, 4), float32], %w: Tensor[(4, 2, 4, 4), float32], %b: Tensor[(2), float32], %v: Tensor[(2, 2, 4, 4), float32]) {
  %0 = nn.conv2d_transpose(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  nn.conv2d_transpose(%2, %v, strides=[2, 2], padding=[1, 1, 1, 1])
})");
  const IRModule fusedDeconv = runFuse(deconv);
  EXPECT_EQ(
      fusedGroups(fusedDeconv),
      (std::vector<std::string>{"nn.conv2d_transpose nn.bias_add nn.relu", "nn.conv2d_transpose"}));
  EXPECT_TRUE(test::sameBehaviour(deconv, fusedDeconv));
  const IRModule conv3d = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 3, 4, 4), float32], %w: Tensor[(3, 2, 3, 3, 3), float32], %c: Tensor[(3, 1, 1, 1), float32]) {
  %0 = nn.conv3d(%x, %w, padding=[1, 1, 1, 1, 1, 1]);
  %1 = add(%0, %c);
  %2 = nn.relu(%1);
  nn.adaptive_avg_pool3d(%2, output_size=[1, 1, 1])
})");
  const IRModule fused3d = runFuse(conv3d);
  EXPECT_EQ(fusedGroups(fused3d),
            (std::vector<std::string>{"nn.conv3d add nn.relu", "nn.adaptive_avg_pool3d"}));
  EXPECT_TRUE(test::sameBehaviour(conv3d, fused3d));
}

// No recursion over the graph: a long elementwise chain fuses into max_depth-sized groups.
TEST(FuseOps, DeepChainIsFusedIteratively) {
  const Var x = makeVar("x", tensorType({4}, DataType::float32()));
  Expr e = x;
  const Op relu = opByName("nn.relu");
  for (int i = 0; i < 30000; ++i) e = makeCall(relu, {e});
  IRModule m;
  m.add("main", makeFunction({x}, e));
  const IRModule fused = runFuse(m);
  EXPECT_EQ(fusedGroups(fused).size(), (30000u + 255) / 256);
}

// Seed 001: inlining the fused module's Primitive functions (each output behind
// annotation.stop_fusion, as the quantized graph has them) and fusing again gives the seed back.
Expr inlinePrimitiveCalls(const Expr& body) {
  const Op stopFusion = opByName("annotation.stop_fusion");
  return rewriteBottomUp(body, [&](const Expr& node, const std::vector<Expr>& kids) {
    const Expr e = withChildren(node, kids);
    const auto* call = e->as<CallNode>();
    const auto fn = call ? exprAs<FunctionNode>(call->op) : nullptr;
    if (!fn || !fn->attrs.has("Primitive")) return e;
    std::unordered_map<const ExprNode*, Expr> bound;
    for (size_t i = 0; i < fn->params.size(); ++i) bound[fn->params[i].get()] = call->args[i];
    const Expr inlined =
        rewriteBottomUp(fn->body, [&](const Expr& inner, const std::vector<Expr>& innerKids) {
          auto it = bound.find(inner.get());
          return it != bound.end() ? it->second : withChildren(inner, innerKids);
        });
    return makeCall(stopFusion, {inlined});
  });
}

TEST(FuseOps, Seed001QuantizedModelFusesAsTheSeedPrints) {
  std::string text = test::readFile(test::sourcePath("tests/golden/text/seed001_fuse_ops.relay"));
  while (text.rfind("//", 0) == 0) text = text.substr(text.find('\n') + 1);
  const IRModule expected = parseModule(text, "seed001");
  const Function main = expected.main();
  IRModule unfused;
  unfused.add("main", makeFunction(main->params, inlinePrimitiveCalls(main->body), main->retType,
                                   main->attrs, main->span));
  const IRModule fused = runFuse(unfused);
  EXPECT_EQ(printModule(fused), printModule(expected));
}

}  // namespace
}  // namespace tessera::relay
