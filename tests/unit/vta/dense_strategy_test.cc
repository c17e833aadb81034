// VTA's dense strategy on a graph function as graph packing and fusion leave it (a packed dense
// with bias, relu, rounding, shift, clip and the cast to int8): compiled for VTA and run on the
// simulator, it gives what the reference interpreter gives for the same function, byte for byte;
// vtaGraphKernel picks dense_packed for it; what VTA cannot run is an error at the op.
#include <gtest/gtest.h>

#include <cstring>

#include "relay/builder.h"
#include "relay/interp/interpreter.h"
#include "relay/op/nn.h"
#include "relay/type_infer.h"
#include "test_util.h"
#include "vta/strategy/dense_strategy.h"
#include "vta/strategy/graph_kernel.h"
#include "vta/tir/host_program.h"

namespace tessera::vta {
namespace {

using namespace relay;

// data (n, k/16, 1, 16) int8, weight (o/16, k/16, 16, 16) int8, bias (o/16, 1, 16) int32.
Function packedDenseFunction(int64_t n, int64_t k, int64_t o, DataType dtype = DataType::int8(),
                             bool withMultiply = false) {
  const Var data = var("data", {n, k / 16, 1, 16}, dtype);
  const Var weight = var("weight", {o / 16, k / 16, 16, 16}, dtype);
  const Var bias = var("bias", {o / 16, 1, 16}, DataType::int32());
  Expr y = add(nn::dense(data, weight, {.outDtype = DataType::int32()}), bias);
  y = nn::relu(y);
  if (withMultiply) y = multiply(y, scalar(3, DataType::int32()));  // no VTA ALU operation
  y = add(y, scalar(128, DataType::int32()));
  y = rightShift(y, scalar(8, DataType::int32()));
  y = cast(clip(y, -127, 127), DataType::int8());
  return makeFunction({data, weight, bias}, y);
}

std::vector<int8_t> runOnSimulator(const tir::PrimFunc& lowered, const Config& cfg,
                                   const std::vector<relay::Value>& inputs, size_t resultBytes,
                                   Stats* stats = nullptr) {
  CommandQueue q(cfg);
  std::vector<DeviceBuffer> args;
  for (const relay::Value& v : inputs) {
    const NDArray& t = v.tensor();
    args.push_back(q.bufferAlloc(t.nbytes()));
    q.bufferCopyIn(t.data(), args.back(), 0, t.nbytes());
  }
  args.push_back(q.bufferAlloc(resultBytes));
  runOnVta(lowered, q, args);
  std::vector<int8_t> result(resultBytes);
  q.bufferCopyOut(args.back(), 0, result.data(), result.size());
  if (stats) *stats = q.stats();
  return result;
}

TEST(VtaDenseStrategy, FusedFunctionOnTheSimulatorEqualsTheInterpreter) {
  const Config cfg = Config::defaults();
  for (auto [n, k, o] : {std::tuple{1, 784, 128}, std::tuple{1, 64, 256}, std::tuple{4, 32, 512},
                         std::tuple{1, 16, 16}}) {
    SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(k) + "->" + std::to_string(o));
    const IRModule module = inferTypes(IRModule::fromExpr(packedDenseFunction(n, k, o)));
    const Function fn = module.main();
    const VtaDenseKernel kernel = readDenseKernel(fn, cfg);
    ASSERT_EQ(kernel.shape.epilogueOps().size(), 6u);  // bias, max 0, +128, >>8, min, max
    EXPECT_EQ(kernel.shape.batch, n);
    EXPECT_EQ(kernel.shape.inFeatures, k);
    EXPECT_EQ(kernel.shape.outFeatures, o);
    EXPECT_EQ(kernel.operandParams, std::vector<int>{2});
    const std::vector<relay::Value> inputs = {
        relay::Value(test::randomTensor({n, k / 16, 1, 16}, DataType::int8(), 1, -128, 127)),
        relay::Value(test::randomTensor({o / 16, k / 16, 16, 16}, DataType::int8(), 2, -128, 127)),
        relay::Value(test::randomTensor({o / 16, 1, 16}, DataType::int32(), 3, -3000, 3000))};
    const NDArray expected = Interpreter(module).run(inputs).tensor();
    Stats stats;
    const std::vector<int8_t> result =
        runOnSimulator(compileDenseKernel(kernel, cfg), cfg, inputs, expected.nbytes(), &stats);
    EXPECT_EQ(std::memcmp(result.data(), expected.data(), result.size()), 0);
    EXPECT_EQ(stats.gemmCounter, uint64_t(n * k * o / 256));
  }
}

TEST(VtaDenseStrategy, GraphKernelPicksDensePacked) {
  const IRModule module = inferTypes(IRModule::fromExpr(packedDenseFunction(1, 64, 32)));
  const std::optional<VtaGraphKernel> k =
      vtaGraphKernel(module.main(), Config::defaults(), "vta_kernel_0");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->implementation, "dense_packed.vta");
  EXPECT_EQ(k->params, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(k->func->name, "vta_kernel_0");
}

TEST(VtaDenseStrategy, WhatVtaCannotRunIsALocatedError) {
  const Config cfg = Config::defaults();
  auto errorOf = [&](const Function& fn) {
    const IRModule module = inferTypes(IRModule::fromExpr(fn));
    return test::diagnosticOf([&] { vtaGraphKernel(module.main(), cfg, "k"); });
  };
  // An ALU operation VTA does not have.
  const Diagnostic mul = errorOf(packedDenseFunction(1, 32, 16, DataType::int8(), true));
  EXPECT_EQ(mul.code, "vta_strategy");
  EXPECT_EQ(mul.context, "multiply");
  EXPECT_NE(mul.message.find("'multiply' cannot run on VTA"), std::string::npos) << mul.message;
  // int16 operands.
  const Diagnostic wide = errorOf(packedDenseFunction(1, 32, 16, DataType::int16()));
  EXPECT_EQ(wide.code, "vta_strategy");
  EXPECT_EQ(wide.context, "nn.dense");
  EXPECT_NE(wide.message.find("int8 x int8 -> int32, found int16 x int16 -> int32"),
            std::string::npos)
      << wide.message;
  // Blocks of 8 lanes where the configuration has 16.
  const Var data = var("data", {1, 4, 1, 8}, DataType::int8());
  const Var weight = var("weight", {2, 4, 8, 8}, DataType::int8());
  const Diagnostic lanes = errorOf(makeFunction(
      {data, weight},
      cast(nn::dense(data, weight, {.outDtype = DataType::int32()}), DataType::int8())));
  EXPECT_EQ(lanes.context, "nn.dense");
  EXPECT_NE(lanes.message.find("a VTA dense needs data (N/1, K/16, 1, 16)"), std::string::npos)
      << lanes.message;
  // A float result.
  const Var d = var("data", {1, 2, 1, 16}, DataType::int8());
  const Var w = var("weight", {1, 2, 16, 16}, DataType::int8());
  const Diagnostic floatResult = errorOf(makeFunction(
      {d, w}, cast(nn::dense(d, w, {.outDtype = DataType::int32()}), DataType::float32())));
  EXPECT_EQ(floatResult.code, "vta_strategy");
  EXPECT_NE(floatResult.message.find("a cast to float32 cannot run there"), std::string::npos)
      << floatResult.message;
}

// An accumulator of 2 entries cannot hold two threads' tiles with their bias: the schedule's
// error points at the dense.
TEST(VtaDenseStrategy, SramOverflowIsAScheduleErrorAtTheDense) {
  const Config tiny = parseConfig(R"({"TARGET": "sim", "HW_VER": "0.0.2", "LOG_INP_WIDTH": 3,
      "LOG_WGT_WIDTH": 3, "LOG_ACC_WIDTH": 5, "LOG_BATCH": 0, "LOG_BLOCK": 4,
      "LOG_UOP_BUFF_SIZE": 15, "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18,
      "LOG_ACC_BUFF_SIZE": 7})");
  ASSERT_EQ(tiny.accBuffDepth(), 2);
  const IRModule module = inferTypes(IRModule::fromExpr(packedDenseFunction(1, 32, 64)));
  const VtaDenseKernel kernel = readDenseKernel(module.main(), tiny);
  const Diagnostic d = test::diagnosticOf([&] { compileDenseKernel(kernel, tiny); });
  EXPECT_EQ(d.code, "vta_schedule");
  EXPECT_EQ(d.context, "nn.dense");
  EXPECT_NE(d.message.find("dense_packed: not even one block"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::vta
