// TVM 0.16's relay.testing workloads built with the C++ API, call for call as the Python package
// builds them (python/tvm/relay/testing/*.py), so that their printed text is TVM's. Each builder
// takes get_workload's arguments with its defaults; a few take a `widthDivisor` that is not
// TVM's (channel counts divided by it, at least 1) so the tests can run a net whose input size
// the structure fixes (inception_v3's 299 x 299, densenet's 224 x 224) in a fraction of a second.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "relay/module.h"

namespace tessera::workloads {

/// mlp.get_workload: batch_flatten, three dense + bias_add (+ relu), softmax.
relay::IRModule mlp(int64_t batchSize = 1, int64_t numClasses = 10,
                    std::array<int64_t, 3> imageShape = {1, 28, 28});
/// dcgan.get_workload: the generator (dense, reshape, four conv2d_transpose with batch_norm and
/// relu, tanh) for a 3 x 64 x 64 image.
relay::IRModule dcgan(int64_t batchSize = 1, int64_t ngf = 128, int64_t randomLen = 100);
/// lstm.get_workload: `iterations` LSTM cells unrolled, each a function literal called once.
relay::IRModule lstm(int iterations, int64_t numHidden, int64_t batchSize = 1);
/// synthetic.get_workload: dense, conv2d, softmax, reshape_like, bias_add and batch_norm.
relay::IRModule synthetic(std::array<int64_t, 4> inputShape = {1, 3, 24, 12});
/// mobilenet.get_workload (mobile_net with `alpha`, which get_workload fixes at 1.0).
relay::IRModule mobilenet(int64_t batchSize = 1, int64_t numClasses = 1000,
                          std::array<int64_t, 3> imageShape = {3, 224, 224}, double alpha = 1.0);
/// resnet.get_workload: imagenet structure above 28 pixels, the cifar one at or below.
relay::IRModule resnet(int64_t batchSize = 1, int64_t numClasses = 1000, int numLayers = 18,
                       std::array<int64_t, 3> imageShape = {3, 224, 224});
/// resnet_3d.get_workload (NCDHW).
relay::IRModule resnet3d(int64_t batchSize = 1, int64_t numClasses = 1000, int numLayers = 18,
                         std::array<int64_t, 4> imageShape = {3, 16, 112, 112});
/// vgg.get_workload.
relay::IRModule vgg(int64_t batchSize = 1, int64_t numClasses = 1000,
                    std::array<int64_t, 3> imageShape = {3, 224, 224}, int numLayers = 11,
                    bool batchNorm = false, int64_t widthDivisor = 1);
/// squeezenet.get_workload, version "1.0" or "1.1".
relay::IRModule squeezenet(int64_t batchSize = 1, int64_t numClasses = 1000,
                           const std::string& version = "1.0",
                           std::array<int64_t, 3> imageShape = {3, 224, 224});
/// densenet.get_workload (sizes 121, 161, 169, 201).
relay::IRModule densenet(int densenetSize = 121, int64_t classes = 1000, int64_t batchSize = 4,
                         std::array<int64_t, 3> imageShape = {3, 224, 224});
/// densenet's _make_dense_net with its own configuration (what get_workload looks up by size).
relay::IRModule denseNet(int64_t numInitFeatures, int64_t growthRate,
                         const std::vector<int>& blockConfig, std::vector<int64_t> dataShape,
                         int64_t bnSize = 4, int64_t classes = 1000);
/// inception_v3.get_workload.
relay::IRModule inceptionV3(int64_t batchSize = 1, int64_t numClasses = 1000,
                            std::array<int64_t, 3> imageShape = {3, 299, 299},
                            int64_t widthDivisor = 1);

}  // namespace tessera::workloads
