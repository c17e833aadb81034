// The C++ builder API: seed 003's conv block in about ten readable lines, printing what TVM prints.
#include "relay/builder.h"

#include <gtest/gtest.h>

#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

TEST(Builder, Seed003ConvBlockInTenLines) {
  Var data = var("data", {1, 3, 224, 224});
  Expr conv =
      nn::conv2d(data, var("graph_conv_weight"),
                 {.strides = {2, 2}, .padding = {1, 1}, .channels = 32, .kernelSize = {{3, 3}}});
  Expr bn = nn::batchNorm(conv, var("graph_bn_gamma"), var("graph_bn_beta"),
                          var("graph_bn_moving_mean"), var("graph_bn_moving_var"));
  Function fn = function(nn::relu(tupleGetItem(bn, 0)));
  IRModule m = inferTypes(IRModule::fromExpr(fn));

  const std::string expected =
      "def @main(%data: Tensor[(1, 3, 224, 224), float32] /* ty=Tensor[(1, 3, 224, 224), float32] "
      "*/, "
      "%graph_conv_weight: Tensor[(32, 3, 3, 3), float32] /* ty=Tensor[(32, 3, 3, 3), float32] */, "
      "%graph_bn_gamma: Tensor[(32), float32] /* ty=Tensor[(32), float32] */, "
      "%graph_bn_beta: Tensor[(32), float32] /* ty=Tensor[(32), float32] */, "
      "%graph_bn_moving_mean: Tensor[(32), float32] /* ty=Tensor[(32), float32] */, "
      "%graph_bn_moving_var: Tensor[(32), float32] /* ty=Tensor[(32), float32] */) -> "
      "Tensor[(1, 32, 112, 112), float32] {\n"
      "  %0 = nn.conv2d(%data, %graph_conv_weight, strides=[2, 2], padding=[1, 1, 1, 1], "
      "channels=32, "
      "kernel_size=[3, 3]) /* ty=Tensor[(1, 32, 112, 112), float32] */;\n"
      "  %1 = nn.batch_norm(%0, %graph_bn_gamma, %graph_bn_beta, %graph_bn_moving_mean, "
      "%graph_bn_moving_var) /* ty=(Tensor[(1, 32, 112, 112), float32], Tensor[(32), float32], "
      "Tensor[(32), float32]) */;\n"
      "  %2 = %1.0 /* ty=Tensor[(1, 32, 112, 112), float32] */;\n"
      "  nn.relu(%2) /* ty=Tensor[(1, 32, 112, 112), float32] */\n"
      "}\n";
  EXPECT_EQ(printModule(m), expected);
}

TEST(Builder, CallOpBuildsAttrsByName) {
  Var x = var("x", {1, 8});
  Expr c =
      callOp("clip", {x}, {{"a_min", AttrValue::floating(0)}, {"a_max", AttrValue::floating(6)}});
  EXPECT_EQ(
      printExpr(c, {.types = false}).find("clip(%x, a_min=0f, a_max=6f)") != std::string::npos,
      true)
      << printExpr(c, {.types = false});
  EXPECT_THROW(callOp("clip", {x}, {{"a_min", AttrValue::floating(0)}}), DiagnosticError);
  EXPECT_THROW(callOp("nn.relu", {x}, {{"alpha", AttrValue::floating(0)}}), DiagnosticError);
  EXPECT_THROW(callOp("nn.nope", {x}), DiagnosticError);
}

TEST(Builder, FunctionTakesFreeVariablesInFirstUseOrder) {
  Var a = var("a", {2});
  Var b = var("b", {2});
  Function f = function(add(b, a));
  ASSERT_EQ(f->params.size(), 2u);
  EXPECT_EQ(f->params[0], b);
  EXPECT_EQ(f->params[1], a);
}

}  // namespace
}  // namespace tessera::relay
