// relay.testing's densenet and inception_v3 (python/tvm/relay/testing/{densenet,inception_v3}.py),
// call for call.
#include "layers.h"
#include "relay_testing.h"

namespace tessera::workloads {

using namespace relay;  // NOLINT: the builders read like the Python they mirror

namespace {

Conv2DAttrs convAttrs(int64_t channels, std::vector<int64_t> kernel,
                      std::vector<int64_t> strides = {1, 1},
                      std::vector<int64_t> padding = {0, 0}) {
  Conv2DAttrs a;
  a.channels = channels;
  a.kernelSize = std::move(kernel);
  a.strides = std::move(strides);
  a.padding = std::move(padding);
  return a;
}

// densenet._make_dense_layer: bn, relu, 1x1 conv to bn_size * growth_rate, bn, relu, 3x3 conv.
Expr denseLayer(Expr data, int64_t growthRate, int64_t bnSize, const std::string& index) {
  Expr net = nn::relu(layers::batchNormInfer(std::move(data), "batch_1_" + index));
  net = layers::conv2d(net, "conv2d_1_" + index, convAttrs(bnSize * growthRate, {1, 1}));
  net = nn::relu(layers::batchNormInfer(net, "batch_2_" + index));
  return layers::conv2d(net, "conv2d_2_" + index, convAttrs(growthRate, {3, 3}, {1, 1}, {1, 1}));
}

// inception_v3.Conv: conv, batch_norm (epsilon 2e-5, no scale), relu.
Expr conv(Expr data, int64_t numFilter, std::vector<int64_t> kernel, std::vector<int64_t> stride,
          std::vector<int64_t> pad, const std::string& name, const std::string& suffix = "") {
  Expr net =
      layers::conv2d(std::move(data), name + suffix + "_conv1",
                     convAttrs(numFilter, std::move(kernel), std::move(stride), std::move(pad)));
  net = layers::batchNormInfer(net, name + suffix + "_bn", {.epsilon = 2e-5, .scale = false});
  return nn::relu(net);
}

// A 1x1 Conv, the default of the Python helper.
Expr conv1x1(Expr data, int64_t numFilter, const std::string& name,
             const std::string& suffix = "") {
  return conv(std::move(data), numFilter, {1, 1}, {1, 1}, {0, 0}, name, suffix);
}

// inception_v3.Pooling; average pooling counts the padding.
Expr pooling(Expr data, int64_t kernel, int64_t stride, int64_t pad, const std::string& type) {
  if (type == "max")
    return nn::maxPool2d(
        std::move(data),
        {.poolSize = {kernel, kernel}, .strides = {stride, stride}, .padding = {pad, pad}});
  return nn::avgPool2d(std::move(data), {.poolSize = {kernel, kernel},
                                         .strides = {stride, stride},
                                         .padding = {pad, pad},
                                         .countIncludePad = true});
}

// The inception blocks, with their channel counts divided by `d` (1 for TVM's net).
struct Inception {
  int64_t d;
  int64_t w(int64_t c) const { return std::max<int64_t>(1, c / d); }

  Expr blockA(const Expr& data, int64_t n1x1, int64_t n3x3Red, int64_t n3x3a, int64_t n3x3b,
              int64_t n5x5Red, int64_t n5x5, const std::string& pool, int64_t proj,
              const std::string& name) const {
    const Expr t1 = conv1x1(data, w(n1x1), name + "_conv");
    Expr t5 = conv1x1(data, w(n5x5Red), name + "_tower", "_conv");
    t5 = conv(t5, w(n5x5), {5, 5}, {1, 1}, {2, 2}, name + "_tower", "_conv_1");
    Expr t3 = conv1x1(data, w(n3x3Red), name + "_tower_1", "_conv");
    t3 = conv(t3, w(n3x3a), {3, 3}, {1, 1}, {1, 1}, name + "_tower_1", "_conv_1");
    t3 = conv(t3, w(n3x3b), {3, 3}, {1, 1}, {1, 1}, name + "_tower_1", "_conv_2");
    const Expr cproj = conv1x1(pooling(data, 3, 1, 1, pool), w(proj), name + "_tower_2", "_conv");
    return concatenate({t1, t5, t3, cproj}, 1);
  }

  Expr blockB(const Expr& data, int64_t n3x3, int64_t nd3x3Red, int64_t nd3x3a, int64_t nd3x3b,
              const std::string& name) const {
    const Expr t3 = conv(data, w(n3x3), {3, 3}, {2, 2}, {0, 0}, name + "_conv");
    Expr td = conv1x1(data, w(nd3x3Red), name + "_tower", "_conv");
    td = conv(td, w(nd3x3a), {3, 3}, {1, 1}, {1, 1}, name + "_tower", "_conv_1");
    td = conv(td, w(nd3x3b), {3, 3}, {2, 2}, {0, 0}, name + "_tower", "_conv_2");
    return concatenate({t3, td, pooling(data, 3, 2, 0, "max")}, 1);
  }

  Expr blockC(const Expr& data, int64_t n1x1, int64_t nd7Red, int64_t nd7a, int64_t nd7b,
              int64_t nq7Red, int64_t nq7a, int64_t nq7b, int64_t nq7c, int64_t nq7d,
              const std::string& pool, int64_t proj, const std::string& name) const {
    const Expr t1 = conv1x1(data, w(n1x1), name + "_conv");
    Expr d7 = conv1x1(data, w(nd7Red), name + "_tower", "_conv");
    d7 = conv(d7, w(nd7a), {1, 7}, {1, 1}, {0, 3}, name + "_tower", "_conv_1");
    d7 = conv(d7, w(nd7b), {7, 1}, {1, 1}, {3, 0}, name + "_tower", "_conv_2");
    Expr q7 = conv1x1(data, w(nq7Red), name + "_tower_1", "_conv");
    q7 = conv(q7, w(nq7a), {7, 1}, {1, 1}, {3, 0}, name + "_tower_1", "_conv_1");
    q7 = conv(q7, w(nq7b), {1, 7}, {1, 1}, {0, 3}, name + "_tower_1", "_conv_2");
    q7 = conv(q7, w(nq7c), {7, 1}, {1, 1}, {3, 0}, name + "_tower_1", "_conv_3");
    q7 = conv(q7, w(nq7d), {1, 7}, {1, 1}, {0, 3}, name + "_tower_1", "_conv_4");
    const Expr cproj = conv1x1(pooling(data, 3, 1, 1, pool), w(proj), name + "_tower_2", "_conv");
    return concatenate({t1, d7, q7, cproj}, 1);
  }

  Expr blockD(const Expr& data, int64_t n3x3Red, int64_t n3x3, int64_t nd7Red, int64_t nd7a,
              int64_t nd7b, int64_t nd7c, const std::string& pool, const std::string& name) const {
    Expr t3 = conv1x1(data, w(n3x3Red), name + "_tower", "_conv");
    t3 = conv(t3, w(n3x3), {3, 3}, {2, 2}, {0, 0}, name + "_tower", "_conv_1");
    Expr d7 = conv1x1(data, w(nd7Red), name + "_tower_1", "_conv");
    d7 = conv(d7, w(nd7a), {1, 7}, {1, 1}, {0, 3}, name + "_tower_1", "_conv_1");
    d7 = conv(d7, w(nd7b), {7, 1}, {1, 1}, {3, 0}, name + "_tower_1", "_conv_2");
    d7 = conv(d7, w(nd7c), {3, 3}, {2, 2}, {0, 0}, name + "_tower_1", "_conv_3");
    return concatenate({t3, d7, pooling(data, 3, 2, 0, pool)}, 1);
  }

  Expr blockE(const Expr& data, int64_t n1x1, int64_t nd3Red, int64_t nd3a, int64_t nd3b,
              int64_t n3x3d3Red, int64_t n3x3, int64_t n3x3d3a, int64_t n3x3d3b,
              const std::string& pool, int64_t proj, const std::string& name) const {
    const Expr t1 = conv1x1(data, w(n1x1), name + "_conv");
    const Expr d3 = conv1x1(data, w(nd3Red), name + "_tower", "_conv");
    const Expr d3a = conv(d3, w(nd3a), {1, 3}, {1, 1}, {0, 1}, name + "_tower", "_mixed_conv");
    const Expr d3b = conv(d3, w(nd3b), {3, 1}, {1, 1}, {1, 0}, name + "_tower", "_mixed_conv_1");
    Expr t3 = conv1x1(data, w(n3x3d3Red), name + "_tower_1", "_conv");
    t3 = conv(t3, w(n3x3), {3, 3}, {1, 1}, {1, 1}, name + "_tower_1", "_conv_1");
    const Expr t3a = conv(t3, w(n3x3d3a), {1, 3}, {1, 1}, {0, 1}, name + "_tower_1", "_mixed_conv");
    const Expr t3b =
        conv(t3, w(n3x3d3b), {3, 1}, {1, 1}, {1, 0}, name + "_tower_1", "_mixed_conv_1");
    const Expr cproj = conv1x1(pooling(data, 3, 1, 1, pool), w(proj), name + "_tower_2", "_conv");
    return concatenate({t1, d3a, d3b, t3a, t3b, cproj}, 1);
  }
};

}  // namespace

IRModule denseNet(int64_t numInitFeatures, int64_t growthRate, const std::vector<int>& blockConfig,
                  std::vector<int64_t> dataShape, int64_t bnSize, int64_t classes) {
  const Expr data = var("data", dataShape);
  Expr net = layers::conv2d(data, "conv1", convAttrs(numInitFeatures, {7, 7}, {2, 2}, {3, 3}));
  net = nn::relu(layers::batchNormInfer(net, "batch1"));
  net = nn::maxPool2d(net, {.poolSize = {3, 3}, .strides = {2, 2}, .padding = {1, 1}});
  int64_t numFeatures = numInitFeatures;
  for (size_t i = 0; i < blockConfig.size(); ++i) {
    // A block concatenates its layers' outputs (not its input: TVM's densenet differs from the
    // paper's here, and the text must be TVM's).
    std::vector<Expr> blocks;
    for (int j = 0; j < blockConfig[i]; ++j) {
      net = denseLayer(net, growthRate, bnSize, std::to_string(i) + "_" + std::to_string(j));
      blocks.push_back(net);
    }
    net = concatenate(blocks, 1);
    numFeatures += blockConfig[i] * growthRate;
    if (i + 1 == blockConfig.size()) break;
    const std::string index = std::to_string(i);
    net = nn::relu(layers::batchNormInfer(net, "batch_t_" + index));
    net = layers::conv2d(net, "conv_t_" + index, convAttrs(numFeatures / 2, {1, 1}));
    net = nn::avgPool2d(net, {.poolSize = {2, 2}, .strides = {2, 2}});
    numFeatures /= 2;
  }
  net = nn::relu(layers::batchNormInfer(net, "batch2"));
  net = nn::batchFlatten(nn::avgPool2d(net, {.poolSize = {7, 7}}));
  return IRModule::fromExpr(function(layers::denseAddBias(net, classes, "dense")));
}

IRModule densenet(int densenetSize, int64_t classes, int64_t batchSize,
                  std::array<int64_t, 3> imageShape) {
  struct Spec {
    int64_t initFeatures, growthRate;
    std::vector<int> blocks;
  };
  static const std::map<int, Spec> kSpecs = {{121, {64, 32, {6, 12, 24, 16}}},
                                             {161, {96, 48, {6, 12, 36, 24}}},
                                             {169, {69, 32, {6, 12, 32, 32}}},
                                             {201, {64, 32, {6, 12, 48, 32}}}};
  const Spec& s = kSpecs.at(densenetSize);
  return denseNet(s.initFeatures, s.growthRate, s.blocks,
                  {batchSize, imageShape[0], imageShape[1], imageShape[2]}, 4, classes);
}

IRModule inceptionV3(int64_t batchSize, int64_t numClasses, std::array<int64_t, 3> imageShape,
                     int64_t widthDivisor) {
  const Inception b{widthDivisor};
  const Expr data = var("data", {batchSize, imageShape[0], imageShape[1], imageShape[2]});
  Expr net = conv(data, b.w(32), {3, 3}, {2, 2}, {0, 0}, "conv");
  net = conv(net, b.w(32), {3, 3}, {1, 1}, {0, 0}, "conv_1");
  net = conv(net, b.w(64), {3, 3}, {1, 1}, {1, 1}, "conv_2");
  net = pooling(net, 3, 2, 0, "max");
  net = conv1x1(net, b.w(80), "conv_3");
  net = conv(net, b.w(192), {3, 3}, {1, 1}, {0, 0}, "conv_4");
  net = pooling(net, 3, 2, 0, "max");
  net = b.blockA(net, 64, 64, 96, 96, 48, 64, "avg", 32, "mixed");
  net = b.blockA(net, 64, 64, 96, 96, 48, 64, "avg", 64, "mixed_1");
  net = b.blockA(net, 64, 64, 96, 96, 48, 64, "avg", 64, "mixed_2");
  net = b.blockB(net, 384, 64, 96, 96, "mixed_3");
  net = b.blockC(net, 192, 128, 128, 192, 128, 128, 128, 128, 192, "avg", 192, "mixed_4");
  net = b.blockC(net, 192, 160, 160, 192, 160, 160, 160, 160, 192, "avg", 192, "mixed_5");
  net = b.blockC(net, 192, 160, 160, 192, 160, 160, 160, 160, 192, "avg", 192, "mixed_6");
  net = b.blockC(net, 192, 192, 192, 192, 192, 192, 192, 192, 192, "avg", 192, "mixed_7");
  net = b.blockD(net, 192, 320, 192, 192, 192, 192, "max", "mixed_8");
  net = b.blockE(net, 320, 384, 384, 384, 448, 384, 384, 384, "avg", 192, "mixed_9");
  net = b.blockE(net, 320, 384, 384, 384, 448, 384, 384, 384, "max", 192, "mixed_10");
  net = nn::batchFlatten(pooling(net, 8, 1, 0, "avg"));
  Expr fc = nn::dense(net, var("fc1_weight"), {.units = numClasses});
  fc = nn::biasAdd(fc, var("fc2_bias"), {.axis = -1});
  return IRModule::fromExpr(function(nn::softmax(fc)));
}

}  // namespace tessera::workloads
