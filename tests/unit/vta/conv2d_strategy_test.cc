// VTA's conv2d strategy on a graph function as graph packing and fusion leave it (a packed
// convolution with bias, relu, rounding, shift, clip and the cast to int8): compiled for VTA and
// run on the simulator, it gives what the reference interpreter gives for the same function, byte
// for byte; an op VTA cannot run is an error naming it.
#include <gtest/gtest.h>

#include <cstring>

#include "relay/builder.h"
#include "relay/interp/interpreter.h"
#include "relay/type_infer.h"
#include "test_util.h"
#include "vta/strategy/conv2d_strategy.h"
#include "vta/tir/host_program.h"

namespace tessera::vta {
namespace {

using namespace relay;

// data (1, C/16, H, W, 1, 16) int8, weight (O/16, C/16, k, k, 16, 16) int8, bias (O/16,1,1,1,16).
Function packedConvFunction(int64_t c, int64_t h, int64_t o, int64_t k, int64_t stride,
                            bool withMultiply = false) {
  const Var data = var("data", {1, c / 16, h, h, 1, 16}, DataType::int8());
  const Var weight = var("weight", {o / 16, c / 16, k, k, 16, 16}, DataType::int8());
  const Var bias = var("bias", {o / 16, 1, 1, 1, 16}, DataType::int32());
  nn::Conv2DAttrs attrs;
  attrs.channels = o;
  attrs.kernelSize = std::vector<int64_t>{k, k};
  attrs.strides = {stride, stride};
  attrs.padding = {k / 2, k / 2, k / 2, k / 2};
  attrs.dataLayout = "NCHW1n16c";
  attrs.kernelLayout = "OIHW16o16i";
  attrs.outDtype = DataType::int32();
  Expr y = add(nn::conv2d(data, weight, attrs), bias);
  y = nn::relu(y);
  if (withMultiply) y = multiply(y, scalar(3, DataType::int32()));  // no VTA ALU operation
  y = add(y, scalar(128, DataType::int32()));
  y = rightShift(y, scalar(8, DataType::int32()));
  y = cast(clip(y, -127, 127), DataType::int8());
  return makeFunction({data, weight, bias}, y);
}

TEST(VtaConv2dStrategy, FusedFunctionOnTheSimulatorEqualsTheInterpreter) {
  const Config cfg = Config::defaults();
  for (auto [c, h, o, k, stride] : {std::tuple{32, 14, 32, 3, 1}, std::tuple{16, 8, 48, 1, 2}}) {
    const IRModule module = inferTypes(IRModule::fromExpr(packedConvFunction(c, h, o, k, stride)));
    const Function fn = module.main();
    const VtaConv2dKernel kernel = readConv2dKernel(fn, cfg);
    ASSERT_EQ(kernel.shape.epilogueOps().size(), 6u);  // bias, max 0, +128, >>8, min, max
    const tir::PrimFunc lowered = compileConv2dKernel(kernel, cfg);

    const std::vector<Value> inputs = {
        Value(test::randomTensor({1, c / 16, h, h, 1, 16}, DataType::int8(), 1, -128, 127)),
        Value(test::randomTensor({o / 16, c / 16, k, k, 16, 16}, DataType::int8(), 2, -128, 127)),
        Value(test::randomTensor({o / 16, 1, 1, 1, 16}, DataType::int32(), 3, -3000, 3000))};
    const NDArray expected = Interpreter(module).run(inputs).tensor();

    CommandQueue q(cfg);
    std::vector<DeviceBuffer> args;
    for (const Value& v : inputs) {
      const NDArray& t = v.tensor();
      args.push_back(q.bufferAlloc(t.nbytes()));
      q.bufferCopyIn(t.data(), args.back(), 0, t.nbytes());
    }
    args.push_back(q.bufferAlloc(expected.nbytes()));
    runOnVta(lowered, q, args);
    std::vector<int8_t> result(expected.nbytes());
    q.bufferCopyOut(args.back(), 0, result.data(), result.size());
    EXPECT_EQ(std::memcmp(result.data(), expected.data(), result.size()), 0);
  }
}

TEST(VtaConv2dStrategy, AnOpVtaCannotRunIsALocatedError) {
  const IRModule module =
      inferTypes(IRModule::fromExpr(packedConvFunction(16, 8, 16, 3, 1, /*withMultiply=*/true)));
  const Diagnostic d =
      test::diagnosticOf([&] { readConv2dKernel(module.main(), Config::defaults()); });
  EXPECT_EQ(d.code, "vta_strategy");
  EXPECT_NE(d.message.find("'multiply' cannot run on VTA"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::vta
