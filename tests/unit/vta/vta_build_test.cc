// Heterogeneous builds (issue 25 items 4 and 7): a packed module compiled with `--target vta`
// runs its packed convolutions on the VTA simulator and everything else on the CPU in one graph,
// with copies at the device boundaries and memory planned per device. The oracle is the same
// module compiled for the CPU alone: the results must be equal bit for bit. Generated graphs
// (chains of int8 convolutions with requantization, residual adds, relus and pools, as
// relay.quantize leaves them) exercise shapes no seed has.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "driver/build.h"
#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/type_infer.h"
#include "runtime/graph_executor/graph_executor.h"
#include "support/diagnostic.h"
#include "test_util.h"
#include "vta/graph/graph_pack.h"
#include "vta/rt/device.h"

namespace tessera::vta {
namespace {

using namespace relay;

int64_t pickInt(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

struct Value {
  Expr e;
  int64_t c, h;
};

// conv2d (int8 x int8 -> int32) + optional per-channel bias, then requantization to int8 as
// realize leaves it (shift, clip, cast, stop_fusion).
Value convBlock(const Value& in, int64_t out, int64_t k, int64_t stride, int64_t shift, bool bias,
                uint64_t seed) {
  nn::Conv2DAttrs attrs;
  attrs.channels = out;
  attrs.kernelSize = std::vector<int64_t>{k, k};
  attrs.strides = {stride, stride};
  attrs.padding = {k / 2, k / 2, k / 2, k / 2};
  attrs.outDtype = DataType::int32();
  Expr w = constant(test::randomTensor({out, in.c, k, k}, DataType::int8(), seed, -20, 20));
  Expr acc = nn::conv2d(in.e, w, attrs);
  if (bias)
    acc =
        add(acc, constant(test::randomTensor({out, 1, 1}, DataType::int32(), seed + 1, -300, 300)));
  acc = rightShift(acc, scalar(double(shift), DataType::int32()));
  Expr q = cast(clip(acc, -127, 127), DataType::int8());
  return {stopFusion(q), out, (in.h + 2 * (k / 2) - k) / stride + 1};
}

// TVM's classification layout: max_pool2d, then the packed region, then global_avg_pool2d.
IRModule packedModule(const Expr& body) {
  const IRModule m =
      inferTypes(IRModule::fromExpr(function(nn::globalAvgPool2d(cast(body, DataType::int32())))));
  GraphPackOptions pack;
  pack.startName = "nn.max_pool2d";
  pack.stopName = "nn.global_avg_pool2d";
  return graphPackModule(m, pack);
}

Value input(int64_t c, int64_t h) {
  return {nn::maxPool2d(var("x", {1, c, h, h}, DataType::int8()), {.poolSize = {1, 1}}), c, h};
}

struct BuiltRun {
  driver::Built built;
  NDArray output;
};

BuiltRun buildAndRun(const IRModule& m, const target::Target& target, const NDArray& x) {
  BuiltRun r{driver::build(m, target), {}};
  runtime::GraphExecutor executor(r.built.model());
  executor.setInput(0, x);
  executor.run();
  r.output = executor.getOutput(0).copy();
  return r;
}

int vtaKernels(const driver::Built& built, const std::string& implementation = "") {
  int n = 0;
  for (const tir::PrimFunc& k : built.kernels) {
    const AttrValue* impl = k->attrs.find("tessera.implementation");
    n += k->attrs.has("tessera.device_type") &&
         (implementation.empty() || (impl && impl->asString() == implementation));
  }
  return n;
}

TEST(VtaBuild, GeneratedGraphsOnVtaEqualTheCpuBitForBit) {
  const target::Target vta = target::Target::parse("vta");
  const target::Target cpu = target::Target::parse("llvm");
  int compiled = 0, onVta = 0, onAlu = 0;
  for (uint32_t trial = 0; trial < 10; ++trial) {
    std::mt19937 rng(trial + 1000);
    const int64_t c0 = 16 * pickInt(rng, 1, 2), h0 = pickInt(rng, 0, 1) ? 8 : 6;
    std::vector<Value> values = {input(c0, h0)};
    const int blocks = int(pickInt(rng, 2, 5));
    for (int b = 0; b < blocks; ++b) {
      const Value& last = values.back();
      const int64_t pick = pickInt(rng, 0, 5);
      if (pick <= 2) {
        const int64_t k = pickInt(rng, 0, 2) ? 3 : 1;
        const int64_t stride = last.h >= 4 && pickInt(rng, 0, 3) == 0 ? 2 : 1;
        // Drawn one by one: the order in which a call's arguments are evaluated differs between
        // compilers (g++ right to left, clang left to right), and so would the graphs.
        const bool bias = pickInt(rng, 0, 1);
        const int64_t shift = pickInt(rng, 5, 9);
        const int64_t channels = 16 * pickInt(rng, 1, 3);
        values.push_back(convBlock(last, channels, k, stride, shift, bias, trial * 100 + b * 10));
      } else if (pick == 3) {  // residual add with an earlier value of the same shape
        const Value* other = nullptr;
        for (const Value& o : values)
          if (&o != &last && o.c == last.c && o.h == last.h) other = &o;
        if (!other) continue;
        Expr sum = add(cast(last.e, DataType::int32()), cast(other->e, DataType::int32()));
        values.push_back(
            {stopFusion(cast(clip(sum, -127, 127), DataType::int8())), last.c, last.h});
      } else if (pick == 4) {
        values.push_back({nn::relu(last.e), last.c, last.h});
      } else if (last.h >= 4) {
        values.push_back(
            {nn::maxPool2d(last.e, {.poolSize = {2, 2}, .strides = {2, 2}}), last.c, last.h / 2});
      }
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    const IRModule m = packedModule(values.back().e);
    const NDArray x = test::randomTensor({1, c0, h0, h0}, DataType::int8(), trial, -100, 100);
    const BuiltRun expected = buildAndRun(m, cpu, x);
    const BuiltRun actual = buildAndRun(m, vta, x);
    EXPECT_TRUE(actual.output.bitwiseEqual(expected.output));
    onVta += vtaKernels(actual.built);
    onAlu += vtaKernels(actual.built, "alu_packed.vta");
    ++compiled;
  }
  EXPECT_EQ(compiled, 10);
  EXPECT_GT(onVta, 10);
  EXPECT_GT(onAlu, 0);  // residual additions (and relus) on VTA's ALU
}

// Two chained convolutions: both on VTA with no copy between them; the graph names its devices,
// copies cross them, storage is never shared between devices; the counters are the hand-counted
// GEMM work; the exported directory reloads and runs the same.
TEST(VtaBuild, DevicesCopiesMemoryAndCountersOfAChain) {
  const Value a = convBlock(input(32, 8), 32, 3, 1, 7, true, 1);
  const Value b = convBlock(a, 48, 1, 2, 6, false, 2);
  const IRModule m = packedModule(b.e);
  const NDArray x = test::randomTensor({1, 32, 8, 8}, DataType::int8(), 3, -100, 100);
  const BuiltRun expected = buildAndRun(m, target::Target::parse("llvm"), x);

  const driver::Built built = driver::build(m, target::Target::parse("vta"));
  const runtime::GraphDescription& g = built.graph;
  ASSERT_EQ(g.devices.size(), 2u);
  EXPECT_EQ(g.devices[1].name, "vta");
  EXPECT_EQ(vtaKernels(built), 2);
  int copies = 0;
  for (const runtime::KernelCall& call : g.calls) {
    if (call.kernel != runtime::kCopyKernel) continue;
    ++copies;
    EXPECT_NE(g.entries[call.inputs[0]].device, g.entries[call.outputs[0]].device);
  }
  EXPECT_EQ(copies, 2);  // the data in, the second convolution's result out
  for (size_t i = 0; i < g.entries.size(); ++i)
    EXPECT_EQ(g.entries[i].device, g.storageDevices.at(g.entries[i].storage)) << "entry " << i;
  const std::string json = g.toJson();
  EXPECT_EQ(runtime::GraphDescription::fromJson(json, "graph.json").toJson(), json);

  runtime::GraphExecutor executor(built.model());
  auto device = std::dynamic_pointer_cast<VtaDevice>(executor.device("vta"));
  ASSERT_NE(device, nullptr);
  device->queue().clearStats();
  executor.setInput(0, x);
  executor.run();
  EXPECT_TRUE(executor.getOutput(0).bitwiseEqual(expected.output));
  // GEMMs: output pixels x output blocks x input blocks x kernel taps.
  EXPECT_EQ(device->queue().stats().gemmCounter, 8u * 8 * 2 * 2 * 9 + 4u * 4 * 3 * 2 * 1);

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tessera_vta_build_" + std::to_string(getpid()));
  driver::exportBuilt(built, dir.string());
  const driver::Built loaded = driver::loadBuilt(dir.string());
  ASSERT_EQ(loaded.graph.devices.size(), 2u);
  runtime::GraphExecutor reloaded(loaded.model());
  reloaded.setInput(0, x);
  reloaded.run();
  EXPECT_TRUE(reloaded.getOutput(0).bitwiseEqual(expected.output));
  std::filesystem::remove_all(dir);
}

// What VTA cannot run inside the packed region is an error naming the op or the limit, never a
// silent CPU run or a crash.
TEST(VtaBuild, IneligibleConvolutionsAreLocatedErrors) {
  const target::Target vta = target::Target::parse("vta");
  auto errorOf = [&](const IRModule& m) -> Diagnostic {
    try {
      driver::build(m, vta);
    } catch (const DiagnosticError& e) {
      return e.diagnostic();
    }
    ADD_FAILURE() << "no error";
    return {};
  };
  // A dilated convolution: graph packing refuses it, and so does VTA's strategy when a module
  // comes packed already.
  {
    nn::Conv2DAttrs attrs;
    attrs.channels = 16;
    attrs.kernelSize = std::vector<int64_t>{3, 3};
    attrs.padding = {2, 2, 2, 2};
    attrs.dilation = {2, 2};
    attrs.outDtype = DataType::int32();
    auto requantized = [](Expr acc) {
      return stopFusion(
          cast(clip(rightShift(acc, scalar(4, DataType::int32())), -127, 127), DataType::int8()));
    };
    Expr acc =
        nn::conv2d(input(16, 8).e,
                   constant(test::randomTensor({16, 16, 3, 3}, DataType::int8(), 1, -9, 9)), attrs);
    try {
      packedModule(requantized(acc));
      ADD_FAILURE() << "graph_pack packed a dilated convolution";
    } catch (const DiagnosticError& e) {
      EXPECT_EQ(e.diagnostic().code, "graph_pack");
    }
    attrs.dataLayout = "NCHW1n16c";
    attrs.kernelLayout = "OIHW16o16i";
    acc = nn::conv2d(var("x", {1, 1, 8, 8, 1, 16}, DataType::int8()),
                     constant(test::randomTensor({1, 1, 3, 3, 16, 16}, DataType::int8(), 1, -9, 9)),
                     attrs);
    const Diagnostic d = errorOf(
        inferTypes(IRModule::fromExpr(function(cast(requantized(acc), DataType::int32())))));
    EXPECT_EQ(d.code, "vta_strategy");
    EXPECT_NE(d.message.find("dilation 1"), std::string::npos) << d.str();
    EXPECT_EQ(d.context, "nn.conv2d");
  }
  // A row wider than the input SRAM.
  {
    const Value wide =
        convBlock({var("x", {1, 16, 3, 4096}, DataType::int8()), 16, 3}, 16, 3, 1, 4, false, 5);
    const IRModule m = inferTypes(
        IRModule::fromExpr(function(nn::globalAvgPool2d(cast(wide.e, DataType::int32())))));
    const Diagnostic d = errorOf(graphPackModule(m, {}));
    EXPECT_EQ(d.code, "vta_schedule") << d.str();
  }
}

TEST(VtaBuild, UnknownDevicesAndInconsistentDescriptionsAreErrors) {
  try {
    runtime::openDevice("npu", "");
    ADD_FAILURE() << "no error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "device");
    EXPECT_NE(e.diagnostic().message.find("'npu'"), std::string::npos);
  }
  runtime::GraphDescription g;
  g.devices.push_back({"vta", "vta"});
  g.entries.push_back({{4}, DataType::int8(), -1, 0});
  g.entries.push_back({{4}, DataType::int8(), -1, 1});
  g.entries.push_back({{4}, DataType::int8(), -1, 0});
  g.inputs.push_back({"x", 0});
  g.calls.push_back({runtime::kCopyKernel, {0}, {1}});
  g.calls.push_back({runtime::kCopyKernel, {1}, {2}});
  g.outputs.push_back(2);
  runtime::planMemory(g);
  EXPECT_NO_THROW(runtime::validate(g, "graph.json"));
  EXPECT_EQ(g.storageDevices.at(g.entries[1].storage), 1);
  g.storageDevices[g.entries[1].storage] = 0;  // the device entry's storage on the CPU
  EXPECT_THROW(runtime::validate(g, "graph.json"), DiagnosticError);
}

}  // namespace
}  // namespace tessera::vta
