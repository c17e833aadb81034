// Graph packing for VTA (spec vta.md §8): seed 000's second and third printouts byte for byte,
// TVM's start/stop variant on the §8.2 example, chains of convolutions packed once, channel
// padding undone at the region's end, and every packed module checked against the original on
// the reference interpreter (exactly: the graphs are integer up to the final float scale).
#include <gtest/gtest.h>

#include <regex>

#include "../quantize/seed000_model.h"
#include "relay/builder.h"
#include "relay/quantize/quantize.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "test_util.h"
#include "vta/graph/graph_pack.h"
#include "vta/graph/vta_composite.h"

namespace tessera::vta {
namespace {

using namespace relay;

IRModule seed000Quantized() {
  quantize::QConfig cfg = quantize::QConfig::scoped();
  cfg.skipConvLayers = std::vector<int64_t>{};
  cfg.weightScale = "max";
  quantize::QConfigScope scope(cfg);
  PassContext ctx;
  ctx.optLevel = 3;
  PassContext::Scope level3(ctx);
  return quantize::quantize(quantize::seed000Model());
}

// `fn`'s packed result (N/b, C'/c, H, W, b, c) back in NCHW with the padded channels dropped, so
// the seed variant's output compares with the original module's.
IRModule withUnpackedResult(const Function& fn, std::vector<int64_t> nchw, int64_t paddedC) {
  Expr out = transpose(fn->body, std::vector<int64_t>{0, 4, 1, 5, 2, 3});
  out = reshape(out, {nchw[0], paddedC, nchw[2], nchw[3]});
  out = stridedSlice(out, {0, 0, 0, 0}, nchw);
  return inferTypes(IRModule::fromExpr(makeFunction(fn->params, out)));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

TEST(GraphPackSeed000, SecondPrintoutByteForByte) {
  const IRModule quantized = seed000Quantized();
  const IRModule packed = graphPackModule(quantized, {});
  EXPECT_EQ(printModule(packed), quantize::goldenText("seed000_graph_pack.relay"));
}

TEST(GraphPackSeed000, ThirdPrintoutByteForByte) {
  const IRModule packed = graphPackModule(seed000Quantized(), {});
  const IRModule composite = (*vtaCompositePass())(packed);
  EXPECT_EQ(printModule(composite), quantize::goldenText("seed000_merge_composite.relay"));
}

TEST(GraphPackSeed000, PackedModuleComputesTheSameValues) {
  const IRModule quantized = seed000Quantized();
  const Function packed = graphPack(quantized.main(), {});
  EXPECT_TRUE(test::sameBehaviour(quantized, withUnpackedResult(packed, {1, 36, 4, 4}, 48)));
  // The composite module too: folding and outlining change no value.
  const IRModule composite = (*vtaCompositePass())(IRModule::fromExpr(packed));
  EXPECT_TRUE(test::sameBehaviour(IRModule::fromExpr(packed), composite));
}

// Spec §8.2's example: int8 (1,32,8,8) -> max_pool2d -> conv 32->32 -> add bias -> right_shift ->
// clip -> cast -> stop_fusion -> cast -> global_avg_pool2d, packed with (1, 16, 8).
Function tvmExample(int64_t channels = 32, int64_t outChannels = 32) {
  Expr x = var("x", {1, channels, 8, 8}, DataType::int8());
  x = nn::maxPool2d(x, {.poolSize = {2, 2}, .strides = {1, 1}, .padding = {0, 0, 1, 1}});
  nn::Conv2DAttrs conv;
  conv.padding = {1, 1, 1, 1};
  conv.channels = outChannels;
  conv.kernelSize = std::vector<int64_t>{3, 3};
  conv.outDtype = DataType::int32();
  Expr y = nn::conv2d(
      x, constant(test::randomTensor({outChannels, channels, 3, 3}, DataType::int8(), 1, -20, 20)),
      conv);
  y = add(y, constant(test::randomTensor({outChannels, 1, 1}, DataType::int32(), 2, -500, 500)));
  y = rightShift(y, scalar(8, DataType::int32()));
  y = clip(y, -127, 127);
  y = stopFusion(cast(y, DataType::int8()));
  y = nn::globalAvgPool2d(cast(y, DataType::int32()));
  return function(y);
}

GraphPackOptions tvmRegion() {
  GraphPackOptions o;
  o.startName = "nn.max_pool2d";
  o.stopName = "nn.global_avg_pool2d";
  return o;
}

TEST(GraphPackTvm, SpecExampleShapesAndValues) {
  const IRModule original = inferTypes(IRModule::fromExpr(tvmExample()));
  const IRModule packed = graphPackModule(original, tvmRegion());
  const std::string text = printModule(packed);
  for (const char* expected :
       {"reshape(%0, newshape=[1, 1, 2, 16, 8, 8])", "transpose(%1, axes=[0, 2, 4, 5, 1, 3])",
        "newshape=[2, 16, 2, 16, 3, 3]", "Tensor[(2, 2, 3, 3, 16, 16), int8]",
        "newshape=[2, 16, 1, 1, 1]", "broadcast_to(", "shape=[2, 1, 1, 1, 16]",
        "data_layout=\"NCHW1n16c\", kernel_layout=\"OIHW16o16i\"", "axes=[0, 4, 1, 5, 2, 3]",
        "newshape=[1, 32, 8, 8]", "Tensor[(1, 2, 8, 8, 1, 16), int8]"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_EQ(text.find("strided_slice"), std::string::npos) << text;  // no padded channels
  EXPECT_EQ(count(text, "transpose("), 4u) << text;                  // data, weight, bias, unpack
  EXPECT_TRUE(test::sameBehaviour(original, packed));
}

TEST(GraphPackTvm, PaddedOutputChannelsAreSlicedOffAtTheStop) {
  // TVM fails here ("reshape (1,1,2,16,8,8) -> (1,20,8,8)"); Tessera slices the padding off.
  const IRModule original = inferTypes(IRModule::fromExpr(tvmExample(32, 20)));
  const IRModule packed = graphPackModule(original, tvmRegion());
  const std::string text = printModule(packed);
  EXPECT_NE(text.find("strided_slice("), std::string::npos) << text;
  EXPECT_NE(text.find("channels=32"), std::string::npos) << text;
  EXPECT_TRUE(test::sameBehaviour(original, packed));
}

// A residual block: conv -> relu -> conv, added to the block's input, twice. Every value between
// the start and the stop stays packed: one data pack, one unpack.
Function residualChain(int64_t c) {
  auto conv = [c](Expr x, uint64_t seed) {
    nn::Conv2DAttrs attrs;
    attrs.padding = {1, 1, 1, 1};
    attrs.channels = c;
    attrs.kernelSize = std::vector<int64_t>{3, 3};
    attrs.outDtype = DataType::int32();
    Expr y = nn::conv2d(
        x, constant(test::randomTensor({c, c, 3, 3}, DataType::int8(), seed, -8, 8)), attrs);
    y = clip(rightShift(y, scalar(6, DataType::int32())), -127, 127);
    return cast(y, DataType::int8());
  };
  Expr x = nn::maxPool2d(var("x", {2, c, 6, 6}, DataType::int8()), {.poolSize = {1, 1}});
  for (uint64_t block = 0; block < 2; ++block) {
    Expr y = nn::relu(conv(x, 10 * block + 1));
    y = cast(add(cast(conv(y, 10 * block + 2), DataType::int32()), cast(x, DataType::int32())),
             DataType::int32());
    x = cast(clip(y, -127, 127), DataType::int8());
  }
  return function(nn::globalAvgPool2d(cast(x, DataType::int32())));
}

TEST(GraphPackTvm, ChainsOfConvolutionsArePackedOnce) {
  const IRModule original = inferTypes(IRModule::fromExpr(residualChain(32)));
  GraphPackOptions options = tvmRegion();
  options.bfactor = 2;
  const IRModule packed = graphPackModule(original, options);
  const std::string text = printModule(packed);
  EXPECT_EQ(count(text, "newshape=[1, 2, 2, 16, 6, 6]"), 1u) << text;  // the one data pack
  EXPECT_EQ(count(text, "axes=[0, 4, 1, 5, 2, 3]"), 1u) << text;       // the one unpack
  EXPECT_EQ(count(text, "data_layout=\"NCHW2n16c\""), 4u) << text;
  EXPECT_TRUE(test::sameBehaviour(original, packed));
}

TEST(GraphPackSeedVariant, ChainsOfConvolutionsArePackedOnce) {
  // The seed's tool would pack each conv's input again; here only the first conv's input and the
  // first residual (an int32 cast of the unpacked pool output) are packed.
  const Function fn = residualChain(16);
  const IRModule original = inferTypes(IRModule::fromExpr(fn));
  const Function packed = graphPack(original.main(), {});
  const std::string text = printModule(IRModule::fromExpr(packed));
  EXPECT_EQ(count(text, "newshape=[2, 1, 1, 16, 6, 6]"), 2u) << text;
  EXPECT_EQ(count(text, "data_layout=\"NCHW1n16c\""), 4u) << text;
  EXPECT_TRUE(test::sameBehaviour(original, IRModule::fromExpr(packed)));
}

TEST(GraphPackTvm, AnOpThatCannotTakePackedDataGetsItUnpacked) {
  // A max pool inside the region: its input is unpacked, and the next conv packs again.
  Expr x = nn::maxPool2d(var("x", {1, 16, 6, 6}, DataType::int8()), {.poolSize = {1, 1}});
  nn::Conv2DAttrs attrs;
  attrs.channels = 16;
  attrs.kernelSize = std::vector<int64_t>{1, 1};
  attrs.outDtype = DataType::int32();
  auto conv = [&](Expr in, uint64_t seed) {
    Expr w = constant(test::randomTensor({16, 16, 1, 1}, DataType::int8(), seed, -8, 8));
    return cast(clip(rightShift(nn::conv2d(in, w, attrs), scalar(4, DataType::int32())), -127, 127),
                DataType::int8());
  };
  Expr y = nn::maxPool2d(conv(x, 1), {.poolSize = {2, 2}, .strides = {2, 2}});
  y = nn::globalAvgPool2d(cast(conv(y, 2), DataType::int32()));
  const IRModule original = inferTypes(IRModule::fromExpr(function(y)));
  const IRModule packed = graphPackModule(original, tvmRegion());
  const std::string text = printModule(packed);
  EXPECT_EQ(count(text, "data_layout=\"NCHW1n16c\""), 2u) << text;
  EXPECT_EQ(count(text, "axes=[0, 4, 1, 5, 2, 3]"), 2u) << text;
  EXPECT_TRUE(test::sameBehaviour(original, packed));
}

TEST(GraphPackTvm, BiasAddBecomesAnAddOfThePackedBias) {
  Expr x = nn::maxPool2d(var("x", {1, 16, 4, 4}, DataType::int8()), {.poolSize = {1, 1}});
  nn::Conv2DAttrs attrs;
  attrs.channels = 16;
  attrs.kernelSize = std::vector<int64_t>{1, 1};
  attrs.outDtype = DataType::int32();
  Expr y = nn::conv2d(x, constant(test::randomTensor({16, 16, 1, 1}, DataType::int8(), 3, -9, 9)),
                      attrs);
  y = nn::biasAdd(y, constant(test::randomTensor({16}, DataType::int32(), 4, -99, 99)));
  const IRModule original =
      inferTypes(IRModule::fromExpr(function(nn::globalAvgPool2d(nn::relu(y)))));
  const IRModule packed = graphPackModule(original, tvmRegion());
  const std::string text = printModule(packed);
  EXPECT_EQ(text.find("nn.bias_add"), std::string::npos) << text;
  EXPECT_NE(text.find("shape=[1, 1, 1, 1, 16]"), std::string::npos) << text;
  EXPECT_TRUE(test::sameBehaviour(original, packed));
}

std::string packError(const Function& fn, const GraphPackOptions& options) {
  return test::diagnosticOf([&] { graphPack(fn, options); }).message;
}

TEST(GraphPackErrors, NamedAndLocated) {
  GraphPackOptions noStart;
  noStart.startName = "nn.avg_pool2d";
  noStart.stopName = "nn.global_avg_pool2d";
  EXPECT_NE(packError(tvmExample(), noStart).find("no a call of 'nn.avg_pool2d'"),
            std::string::npos);
  GraphPackOptions noStop = tvmRegion();
  noStop.stopName = "nn.softmax";
  EXPECT_NE(packError(tvmExample(), noStop).find("'nn.softmax'"), std::string::npos);
  GraphPackOptions half;
  half.startName = "nn.max_pool2d";
  EXPECT_NE(packError(tvmExample(), half).find("both a start and a stop"), std::string::npos);

  // The region starts at 20 channels: TVM asserts, Tessera names the op and the block.
  EXPECT_NE(packError(tvmExample(20, 16), tvmRegion()).find("not a multiple of the channel block"),
            std::string::npos);
  GraphPackOptions batch2 = tvmRegion();
  batch2.bfactor = 2;
  EXPECT_NE(packError(tvmExample(), batch2).find("not divisible by the VTA batch factor 2"),
            std::string::npos);
  GraphPackOptions bits = tvmRegion();
  bits.weightBits = 4;
  EXPECT_NE(packError(tvmExample(), bits).find("weight_bits 4"), std::string::npos);
}

TEST(GraphPackErrors, ConvolutionsVtaCannotRun) {
  nn::Conv2DAttrs dilated;
  dilated.channels = 16;
  dilated.kernelSize = std::vector<int64_t>{3, 3};
  dilated.dilation = {2, 2};
  dilated.outDtype = DataType::int32();
  Expr w8 = constant(test::randomTensor({16, 16, 3, 3}, DataType::int8(), 5, -3, 3));
  const Expr x8 = var("x", {1, 16, 8, 8}, DataType::int8());
  const Diagnostic d =
      test::diagnosticOf([&] { graphPack(function(nn::conv2d(x8, w8, dilated)), {}); });
  EXPECT_EQ(d.code, "graph_pack");
  EXPECT_NE(d.message.find("dilation 1, found 2"), std::string::npos) << d.message;

  // A float convolution inside the region.
  nn::Conv2DAttrs plain;
  plain.channels = 16;
  plain.kernelSize = std::vector<int64_t>{1, 1};
  Expr xf = nn::maxPool2d(var("x", {1, 16, 4, 4}), {.poolSize = {1, 1}});
  Expr yf =
      nn::conv2d(xf, constant(test::randomTensor({16, 16, 1, 1}, DataType::float32(), 6)), plain);
  GraphPackOptions region = tvmRegion();
  EXPECT_NE(packError(function(nn::globalAvgPool2d(yf)), region).find("int8 x int8 -> int32"),
            std::string::npos);
  // The seed variant leaves float convolutions alone.
  const Function untouched = graphPack(function(nn::globalAvgPool2d(yf)), {});
  EXPECT_EQ(printModule(IRModule::fromExpr(untouched)).find("NCHW1n16c"), std::string::npos);
}

}  // namespace
}  // namespace tessera::vta
