// relay.testing's mlp, dcgan, lstm and synthetic (python/tvm/relay/testing/{mlp,dcgan,lstm,
// synthetic}.py), call for call.
#include "layers.h"
#include "relay/op/nn_conv_transpose.h"
#include "relay_testing.h"

namespace tessera::workloads {

using namespace relay;  // NOLINT: the builders read like the Python they mirror

namespace {

const DataType kF32 = DataType::float32();

// dcgan.deconv2d: stride-2 deconvolution from `ishape` to `oshape` (C, H, W) with a 4 x 4 kernel;
// output_padding makes up what the padding cannot.
Expr deconv2d(Expr data, std::array<int64_t, 3> oshape, std::array<int64_t, 2> kshape,
              const std::string& name) {
  const int64_t padY = (kshape[0] - 1) / 2, padX = (kshape[1] - 1) / 2;
  const int64_t adjY = (oshape[1] + 2 * padY - kshape[0]) % 2;
  const int64_t adjX = (oshape[2] + 2 * padX - kshape[1]) % 2;
  Conv2DTransposeAttrs a;
  a.kernelSize = std::vector<int64_t>{kshape[0], kshape[1]};
  a.strides = {2, 2};
  a.channels = oshape[0];
  a.padding = {padY, padX};
  a.outputPadding = {adjY, adjX};
  return nn::conv2dTranspose(std::move(data), var(name + "_weight"), std::move(a));
}

Expr deconv2dBnRelu(Expr data, std::array<int64_t, 3> oshape, const std::string& prefix) {
  Expr net = deconv2d(std::move(data), oshape, {4, 4}, prefix + "_deconv");
  net = layers::batchNormInfer(net, prefix + "_batch_norm",
                               {.axis = 1, .epsilon = 1e-5 + 1e-12, .scale = false});
  return nn::relu(net);
}

// lstm.lstm_cell: a function of (inputs, states, i2h weight and bias, h2h weight and bias)
// returning (next_h, (next_h, next_c)), its body a chain of typed lets. (TVM's cell takes a name
// it only hands to layers.dense_add_bias, which ignores it when the weights are given.)
Function lstmCell(int64_t numHidden, int64_t batchSize) {
  const Type input = tensorType({batchSize, numHidden}, kF32);
  const Type weight = tensorType({4 * numHidden, numHidden}, kF32);
  const Type bias = tensorType({4 * numHidden}, kF32);
  const Type dense = tensorType({batchSize, 4 * numHidden}, kF32);
  const Type slices = tupleType({input, input, input, input});
  const Type state = tupleType({input, input});
  const Type ret = tupleType({input, state});
  const Var inputs = makeVar("inputs", input), states = makeVar("states", state);
  const Var i2hWeight = makeVar("i2h_weight", weight), i2hBias = makeVar("i2h_bias", bias);
  const Var h2hWeight = makeVar("h2h_weight", weight), h2hBias = makeVar("h2h_bias", bias);
  auto denseAddBias = [&](Expr data, const Var& w, const Var& b) {
    return nn::biasAdd(nn::dense(std::move(data), w, {.units = numHidden * 4}), b, {.axis = -1});
  };
  // ScopeBuilder: each let's body is the next binding; built innermost first.
  std::vector<std::pair<Var, Expr>> lets;
  auto let = [&](const std::string& n, const Type& t, Expr value) {
    lets.emplace_back(makeVar(n, t), std::move(value));
    return Expr(lets.back().first);
  };
  const Expr i2h = let("i2h", dense, denseAddBias(inputs, i2hWeight, i2hBias));
  const Expr h2h = let("h2h", dense, denseAddBias(tupleGetItem(states, 0), h2hWeight, h2hBias));
  const Expr gates = let("gates", dense, add(i2h, h2h));
  const Expr slice = let("slice_gates", slices, split(gates, 4, 1));
  const Expr inGate = let("in_gate", input, sigmoid(tupleGetItem(slice, 0)));
  const Expr forgetGate = let("forget_gate", input, sigmoid(tupleGetItem(slice, 1)));
  const Expr inTransform = let("in_transform", input, tanh(tupleGetItem(slice, 2)));
  const Expr outGate = let("out_gate", input, sigmoid(tupleGetItem(slice, 3)));
  const Expr nextC =
      let("next_c", input,
          add(multiply(forgetGate, tupleGetItem(states, 1)), multiply(inGate, inTransform)));
  const Expr nextH = let("next_h", input, multiply(outGate, tanh(nextC)));
  const Expr result = let("ret", ret, tuple({nextH, tuple({nextH, nextC})}));
  Expr body = result;
  for (auto it = lets.rbegin(); it != lets.rend(); ++it)
    body = makeLet(it->first, it->second, body);
  return makeFunction({inputs, states, i2hWeight, i2hBias, h2hWeight, h2hBias}, body, ret);
}

}  // namespace

IRModule mlp(int64_t batchSize, int64_t numClasses, std::array<int64_t, 3> imageShape) {
  Expr data = var("data", {batchSize, imageShape[0], imageShape[1], imageShape[2]});
  data = nn::batchFlatten(data);
  Expr fc1 = nn::biasAdd(nn::dense(data, var("fc1_weight"), {.units = 128}), var("fc1_bias"),
                         {.axis = -1});
  Expr fc2 = nn::biasAdd(nn::dense(nn::relu(fc1), var("fc2_weight"), {.units = 64}),
                         var("fc2_bias"), {.axis = -1});
  Expr fc3 = nn::biasAdd(nn::dense(nn::relu(fc2), var("fc3_weight"), {.units = numClasses}),
                         var("fc3_bias"), {.axis = -1});
  return IRModule::fromExpr(function(nn::softmax(fc3)));
}

IRModule dcgan(int64_t batchSize, int64_t ngf, int64_t randomLen) {
  const Expr code = var("data", {batchSize, randomLen});
  Expr net = nn::relu(nn::dense(code, var("dense_weight"), {.units = 4 * 4 * ngf * 8}));
  net = reshape(net, {-1, ngf * 8, 4, 4});
  net = deconv2dBnRelu(net, {ngf * 4, 8, 8}, "g2");
  net = deconv2dBnRelu(net, {ngf * 2, 16, 16}, "g3");
  net = deconv2dBnRelu(net, {ngf, 32, 32}, "g4");
  net = deconv2d(net, {3, 64, 64}, {4, 4}, "g5_deconv");
  return IRModule::fromExpr(function(tanh(net)));
}

IRModule lstm(int iterations, int64_t numHidden, int64_t batchSize) {
  const Type input = tensorType({batchSize, numHidden}, kF32);
  const Type weight = tensorType({4 * numHidden, numHidden}, kF32);
  const Type bias = tensorType({4 * numHidden}, kF32);
  const Type state = tupleType({input, input});
  const Type cell = tupleType({input, state});
  std::vector<std::pair<Var, Expr>> lets;
  auto let = [&](const std::string& n, const Type& t, Expr value) {
    lets.emplace_back(makeVar(n, t), std::move(value));
    return Expr(lets.back().first);
  };
  const Expr zerosVar = let("zeros", input, zeros({batchSize, numHidden}, kF32));
  Expr states = let("init_states", state, tuple({zerosVar, zerosVar}));
  Expr out;
  for (int i = 0; i < iterations; ++i) {
    const std::string n = std::to_string(i);
    // Every cell reads its own variable named "data", as in TVM.
    const Expr call =
        let("call_" + n, cell,
            makeCall(lstmCell(numHidden, batchSize),
                     {makeVar("data", input), states, makeVar("i2h_" + n + "_weight", weight),
                      makeVar("i2h_" + n + "_bias", bias), makeVar("h2h_" + n + "_weight", weight),
                      makeVar("h2h_" + n + "_bias", bias)}));
    out = let("out_" + n, input, tupleGetItem(call, 0));
    states = let("states_" + n, state, tupleGetItem(call, 1));
  }
  Expr body = out;
  for (auto it = lets.rbegin(); it != lets.rend(); ++it)
    body = makeLet(it->first, it->second, body);
  return IRModule::fromExpr(makeFunction(freeVars(body), body, input));
}

IRModule synthetic(std::array<int64_t, 4> inputShape) {
  const Expr data = var("data", {inputShape[0], inputShape[1], inputShape[2], inputShape[3]});
  const std::vector<int64_t> denseShape = {-1, inputShape[3]};
  const std::vector<int64_t> wShape = {inputShape[3], inputShape[3]};
  const std::vector<int64_t> convShape = {inputShape[1], inputShape[1], 3, 3};
  Conv2DAttrs conv3x3;
  conv3x3.padding = {1};
  conv3x3.kernelSize = std::vector<int64_t>{3};
  Expr dense = nn::relu(nn::dense(reshape(data, denseShape), var("dense_weight", wShape)));
  dense = reshapeLike(dense, data);
  Expr conv = nn::softmax(nn::conv2d(data, var("conv_weight", convShape), conv3x3));
  const Expr biased =
      layers::batchNormInfer(nn::biasAdd(add(dense, conv), var("bias")), "batch_norm");
  dense = nn::relu(nn::dense(reshape(biased, denseShape), var("dense2_weight", wShape)));
  dense = reshapeLike(dense, data);
  conv = nn::softmax(nn::conv2d(biased, var("conv2_weight", convShape), conv3x3));
  return IRModule::fromExpr(function(add(dense, conv)));
}

}  // namespace tessera::workloads
