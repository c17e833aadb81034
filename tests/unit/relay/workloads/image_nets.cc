// relay.testing's mobilenet, resnet, resnet_3d, vgg and squeezenet (python/tvm/relay/testing/),
// call for call, NCHW (NCDHW) only.
#include "layers.h"
#include "relay/op/nn_conv3d.h"
#include "relay_testing.h"

namespace tessera::workloads {

using namespace relay;  // NOLINT: the builders read like the Python they mirror

namespace {

Conv2DAttrs convAttrs(int64_t channels, std::vector<int64_t> kernel, std::vector<int64_t> strides,
                      std::vector<int64_t> padding, int64_t groups = 1) {
  Conv2DAttrs a;
  a.channels = channels;
  a.kernelSize = std::move(kernel);
  a.strides = std::move(strides);
  a.padding = std::move(padding);
  a.groups = groups;
  return a;
}

BatchNormAttrs bnEps(double epsilon, bool scale = true) {
  return {.axis = 1, .epsilon = epsilon, .scale = scale};
}

// mobilenet.separable_conv_block: depthwise 3x3 (typed weight) + bn + relu, pointwise + bn + relu.
Expr separableConvBlock(Expr data, const std::string& name, int64_t depthwiseChannels,
                        int64_t pointwiseChannels, bool downsample) {
  const int64_t s = downsample ? 2 : 1;
  const Expr weight = var(name + "_weight", {depthwiseChannels, 1, 3, 3});
  Expr net = nn::conv2d(std::move(data), weight,
                        convAttrs(depthwiseChannels, {3, 3}, {s, s}, {1, 1}, depthwiseChannels));
  net = nn::relu(layers::batchNormInfer(net, name + "_bn1", bnEps(1e-5)));
  net = layers::conv2d(net, name + "_conv2", convAttrs(pointwiseChannels, {1, 1}, {1, 1}, {0, 0}));
  return nn::relu(layers::batchNormInfer(net, name + "_bn2", bnEps(1e-5)));
}

// resnet.residual_unit (2-D) and resnet_3d.residual_unit share this shape; `conv` makes one
// convolution of the dimension at hand: (data, channels, kernel, stride, pad, name).
template <typename Conv>
Expr residualUnit(Expr data, int64_t numFilter, int64_t stride, bool dimMatch,
                  const std::string& name, bool bottleNeck, Conv conv) {
  const Expr act1 = nn::relu(layers::batchNormInfer(data, name + "_bn1", bnEps(2e-5)));
  Expr body;
  if (bottleNeck) {
    const int64_t quarter = static_cast<int64_t>(numFilter * 0.25);
    Expr c1 = conv(act1, quarter, 1, stride, 0, name + "_conv1");
    Expr a2 = nn::relu(layers::batchNormInfer(c1, name + "_bn2", bnEps(2e-5)));
    Expr c2 = conv(a2, quarter, 3, 1, 1, name + "_conv2");
    Expr a3 = nn::relu(layers::batchNormInfer(c2, name + "_bn3", bnEps(2e-5)));
    body = conv(a3, numFilter, 1, 1, 0, name + "_conv3");
  } else {
    Expr c1 = conv(act1, numFilter, 3, stride, 1, name + "_conv1");
    Expr a2 = nn::relu(layers::batchNormInfer(c1, name + "_bn2", bnEps(2e-5)));
    body = conv(a2, numFilter, 3, 1, 1, name + "_conv2");
  }
  // The shortcut convolution passes no padding: the Python default, (0, 0) or (0, 0, 0).
  const Expr shortcut = dimMatch ? data : conv(act1, numFilter, 1, stride, 0, name + "_sc");
  return add(body, shortcut);
}

// resnet.get_net's choice of stages, filters and bottleneck from the depth and image height.
struct ResnetSpec {
  std::vector<int> units;
  std::vector<int64_t> filters;
  bool bottleNeck;
};

ResnetSpec resnetSpec(int numLayers, int64_t height) {
  if (height <= 28) {
    if ((numLayers - 2) % 9 == 0 && numLayers >= 164)
      return {std::vector<int>(3, (numLayers - 2) / 9), {16, 64, 128, 256}, true};
    if ((numLayers - 2) % 6 == 0 && numLayers < 164)
      return {std::vector<int>(3, (numLayers - 2) / 6), {16, 16, 32, 64}, false};
    throw std::invalid_argument("no experiments done on num_layers " + std::to_string(numLayers));
  }
  const bool bottleNeck = numLayers >= 50;
  std::vector<int64_t> filters = bottleNeck ? std::vector<int64_t>{64, 256, 512, 1024, 2048}
                                            : std::vector<int64_t>{64, 64, 128, 256, 512};
  static const std::map<int, std::vector<int>> kUnits = {
      {18, {2, 2, 2, 2}},   {34, {3, 4, 6, 3}},    {50, {3, 4, 6, 3}},   {101, {3, 4, 23, 3}},
      {152, {3, 8, 36, 3}}, {200, {3, 24, 36, 3}}, {269, {3, 30, 48, 8}}};
  auto it = kUnits.find(numLayers);
  if (it == kUnits.end())
    throw std::invalid_argument("no experiments done on num_layers " + std::to_string(numLayers));
  return {it->second, std::move(filters), bottleNeck};
}

// The stages of resnet.resnet: unit 1 of stage i > 0 strides by 2 and changes the width.
template <typename Conv>
Expr resnetStages(Expr body, const ResnetSpec& spec, Conv conv) {
  for (size_t i = 0; i < spec.units.size(); ++i) {
    const std::string stage = "stage" + std::to_string(i + 1) + "_unit";
    body = residualUnit(body, spec.filters[i + 1], i == 0 ? 1 : 2, false, stage + "1",
                        spec.bottleNeck, conv);
    for (int j = 0; j < spec.units[i] - 1; ++j)
      body = residualUnit(body, spec.filters[i + 1], 1, true, stage + std::to_string(j + 2),
                          spec.bottleNeck, conv);
  }
  return body;
}

// resnet.resnet's head: bn, relu, global average pool, flatten, dense + bias, softmax.
Function resnetHead(Expr body, int64_t numClasses, bool threeD) {
  const Expr relu1 = nn::relu(layers::batchNormInfer(body, "bn1", bnEps(2e-5)));
  const Expr pool = threeD ? nn::globalAvgPool3d(relu1) : nn::globalAvgPool2d(relu1);
  const Expr fc1 = layers::denseAddBias(nn::batchFlatten(pool), numClasses, "fc1");
  return function(nn::softmax(fc1));
}

// squeezenet._make_fire_conv and _make_fire.
Expr fireConv(Expr net, int64_t channels, int64_t kernel, int64_t padding,
              const std::string& prefix) {
  net = layers::conv2d(std::move(net), prefix + "_conv",
                       convAttrs(channels, {kernel, kernel}, {1, 1}, {padding, padding}));
  return nn::relu(nn::biasAdd(net, var(prefix + "_conv_bias")));
}

Expr fire(Expr net, int64_t squeeze, int64_t expand1x1, int64_t expand3x3,
          const std::string& prefix) {
  net = fireConv(std::move(net), squeeze, 1, 0, prefix + "_input");
  const Expr left = fireConv(net, expand1x1, 1, 0, prefix + "_left");
  const Expr right = fireConv(net, expand3x3, 3, 1, prefix + "_right");
  return concatenate({left, right}, 1);
}

Expr maxPool(Expr data, int64_t size, int64_t stride, int64_t pad = 0) {
  MaxPool2DAttrs a;
  a.poolSize = {size, size};
  a.strides = {stride, stride};
  if (pad != 0) a.padding = {pad, pad};
  return nn::maxPool2d(std::move(data), std::move(a));
}

}  // namespace

IRModule mobilenet(int64_t batchSize, int64_t numClasses, std::array<int64_t, 3> imageShape,
                   double alpha) {
  auto width = [&](int64_t c) { return static_cast<int64_t>(c * alpha); };
  const Expr data = var("data", {batchSize, imageShape[0], imageShape[1], imageShape[2]});
  Expr body =
      layers::conv2d(data, "conv_block_1_conv", convAttrs(width(32), {3, 3}, {2, 2}, {1, 1}));
  body = nn::relu(layers::batchNormInfer(body, "conv_block_1_bn", bnEps(1e-5)));
  struct Block {
    int64_t in, out;
    bool downsample;
  };
  const Block blocks[] = {{32, 64, false},    {64, 128, true},   {128, 128, false},
                          {128, 256, true},   {256, 256, false}, {256, 512, true},
                          {512, 512, false},  {512, 512, false}, {512, 512, false},
                          {512, 512, false},  {512, 512, false}, {512, 1024, true},
                          {1024, 1024, false}};
  int index = 1;
  for (const Block& b : blocks)
    body = separableConvBlock(body, "separable_conv_block_" + std::to_string(index++), width(b.in),
                              width(b.out), b.downsample);
  const Expr flatten = nn::batchFlatten(nn::globalAvgPool2d(body));
  const Expr fc =
      nn::biasAdd(nn::dense(flatten, var("fc_weight"), {.units = numClasses}), var("fc_bias"));
  return IRModule::fromExpr(function(nn::softmax(fc)));
}

IRModule resnet(int64_t batchSize, int64_t numClasses, int numLayers,
                std::array<int64_t, 3> imageShape) {
  const ResnetSpec spec = resnetSpec(numLayers, imageShape[1]);
  Expr data = var("data", {batchSize, imageShape[0], imageShape[1], imageShape[2]});
  data = layers::batchNormInfer(data, "bn_data", bnEps(2e-5, false));
  auto conv = [](Expr x, int64_t channels, int64_t k, int64_t stride, int64_t pad,
                 const std::string& name) {
    return layers::conv2d(std::move(x), name,
                          convAttrs(channels, {k, k}, {stride, stride}, {pad, pad}));
  };
  Expr body;
  if (imageShape[1] <= 32) {
    body = conv(data, spec.filters[0], 3, 1, 1, "conv0");
  } else {
    body = conv(data, spec.filters[0], 7, 2, 3, "conv0");
    body = nn::relu(layers::batchNormInfer(body, "bn0", bnEps(2e-5)));
    body = maxPool(body, 3, 2, 1);
  }
  return IRModule::fromExpr(resnetHead(resnetStages(body, spec, conv), numClasses, false));
}

IRModule resnet3d(int64_t batchSize, int64_t numClasses, int numLayers,
                  std::array<int64_t, 4> imageShape) {
  // get_net reads the height from image_shape[2] (the H of C, D, H, W); resnet() from the data's
  // axis 3, the same extent.
  const ResnetSpec spec = resnetSpec(numLayers, imageShape[2]);
  Expr data = var("data", {batchSize, imageShape[0], imageShape[1], imageShape[2], imageShape[3]});
  data = layers::batchNormInfer(data, "bn_data", bnEps(2e-5, false));
  auto conv3 = [](Expr x, int64_t channels, std::vector<int64_t> k, std::vector<int64_t> strides,
                  std::vector<int64_t> pad, const std::string& name) {
    Conv3DAttrs a;
    a.channels = channels;
    a.kernelSize = std::move(k);
    a.strides = std::move(strides);
    a.padding = std::move(pad);
    return nn::conv3d(std::move(x), var(name + "_weight"), std::move(a));
  };
  auto conv = [&](Expr x, int64_t channels, int64_t k, int64_t s, int64_t pad,
                  const std::string& name) {
    return conv3(std::move(x), channels, {k, k, k}, {s, s, s}, {pad, pad, pad}, name);
  };
  Expr body;
  if (imageShape[2] <= 32) {
    body = conv(data, spec.filters[0], 3, 1, 1, "conv0");
  } else {
    body = conv3(data, spec.filters[0], {3, 7, 7}, {1, 2, 2}, {1, 3, 3}, "conv0");
    body = nn::relu(layers::batchNormInfer(body, "bn0", bnEps(2e-5)));
  }
  return IRModule::fromExpr(resnetHead(resnetStages(body, spec, conv), numClasses, true));
}

IRModule vgg(int64_t batchSize, int64_t numClasses, std::array<int64_t, 3> imageShape,
             int numLayers, bool batchNorm, int64_t widthDivisor) {
  static const std::map<int, std::vector<int>> kLayers = {
      {11, {1, 1, 2, 2, 2}}, {13, {2, 2, 2, 2, 2}}, {16, {2, 2, 3, 3, 3}}, {19, {2, 2, 4, 4, 4}}};
  const std::vector<int64_t> filters = {64, 128, 256, 512, 512};
  auto width = [&](int64_t c) { return std::max<int64_t>(1, c / widthDivisor); };
  Expr net = var("data", {batchSize, imageShape[0], imageShape[1], imageShape[2]});
  const std::vector<int>& layers = kLayers.at(numLayers);
  for (size_t i = 0; i < layers.size(); ++i) {
    for (int j = 0; j < layers[i]; ++j) {
      const std::string name = "conv" + std::to_string(i + 1) + "_" + std::to_string(j + 1);
      net = layers::conv2d(net, name, convAttrs(width(filters[i]), {3, 3}, {1, 1}, {1, 1}));
      net = nn::biasAdd(net, var(name + "_bias"));
      if (batchNorm)
        net =
            layers::batchNormInfer(net, "bn" + std::to_string(i + 1) + "_" + std::to_string(j + 1));
      net = nn::relu(net);
    }
    net = maxPool(net, 2, 2);
  }
  net = nn::batchFlatten(net);
  net = nn::dropout(nn::relu(layers::denseAddBias(net, width(4096), "fc6")));
  net = nn::dropout(nn::relu(layers::denseAddBias(net, width(4096), "fc7")));
  net = layers::denseAddBias(net, numClasses, "fc8");
  return IRModule::fromExpr(function(nn::softmax(net)));
}

IRModule squeezenet(int64_t batchSize, int64_t numClasses, const std::string& version,
                    std::array<int64_t, 3> imageShape) {
  Expr net = var("data", {batchSize, imageShape[0], imageShape[1], imageShape[2]});
  const bool v10 = version == "1.0";
  net = layers::conv2d(
      net, "conv1",
      v10 ? convAttrs(96, {7, 7}, {2, 2}, {3, 3}) : convAttrs(64, {3, 3}, {2, 2}, {1, 1}));
  net = maxPool(nn::relu(nn::biasAdd(net, var("conv1_bias"))), 3, 2);
  if (v10) {
    net = fire(net, 16, 64, 64, "fire1");
    net = fire(net, 16, 64, 64, "fire2");
    net = fire(net, 32, 128, 128, "fire3");
    net = maxPool(net, 3, 2);
    net = fire(net, 32, 128, 128, "fire4");
    net = fire(net, 48, 192, 192, "fire5");
    net = fire(net, 48, 192, 192, "fire6");
    net = fire(net, 64, 256, 256, "fire7");
    net = maxPool(net, 3, 2);
    net = fire(net, 64, 256, 256, "fire8");
  } else {
    net = fire(net, 16, 64, 64, "fire1");
    net = fire(net, 16, 64, 64, "fire2");
    net = maxPool(net, 3, 2);
    net = fire(net, 32, 128, 128, "fire3");
    net = fire(net, 32, 128, 128, "fire4");
    net = maxPool(net, 3, 2);
    net = fire(net, 48, 192, 192, "fire5");
    net = fire(net, 48, 192, 192, "fire6");
    net = fire(net, 64, 256, 256, "fire7");
    net = fire(net, 64, 256, 256, "fire8");
  }
  net = nn::dropout(net);
  net = layers::conv2d(net, "conv_final", convAttrs(numClasses, {1, 1}, {1, 1}, {0, 0}));
  net = nn::relu(nn::biasAdd(net, var("conv_final_bias")));
  net = nn::batchFlatten(nn::globalAvgPool2d(net));
  return IRModule::fromExpr(function(nn::softmax(net)));
}

}  // namespace tessera::workloads
