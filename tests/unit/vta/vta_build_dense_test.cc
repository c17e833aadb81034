// Heterogeneous builds with dense layers on VTA: the FashionMNIST MLP quantized with its dense
// layers (skip_dense_layer=false) and compiled with `--target vta` packs and runs its hidden layer
// (784 -> 128, requantized to int8) as dense_packed on the simulator, the classifier (float
// logits) on the CPU, and gives the CPU int8 build's result bit for bit; the packed module also
// compiles for the CPU alone.
#include <gtest/gtest.h>

#include "driver/build.h"
#include "frontend/onnx/importer.h"
#include "relay/quantize/quantize.h"
#include "relay/type_infer.h"
#include "runtime/graph_executor/graph_executor.h"
#include "test_util.h"
#include "vta/graph/graph_pack.h"
#include "vta/rt/device.h"

namespace tessera::vta {
namespace {

relay::IRModule quantizedMlp() {
  const relay::IRModule model = relay::inferTypes(frontend::onnx::importOnnx(
      test::sourcePath("examples/fashion_mnist/mlp.onnx"), frontend::onnx::ImportOptions{}));
  relay::quantize::QConfig cfg = relay::quantize::QConfig::scoped();
  cfg.skipDenseLayer = false;
  relay::quantize::QConfigScope scope(cfg);
  return relay::quantize::quantize(model);
}

int kernelsImplementedBy(const driver::Built& built, const std::string& implementation) {
  int n = 0;
  for (const tir::PrimFunc& k : built.kernels) {
    const AttrValue* impl = k->attrs.find("tessera.implementation");
    n += k->attrs.has("tessera.device_type") && impl && impl->asString() == implementation;
  }
  return n;
}

TEST(VtaBuildDense, QuantizedMlpOnVtaEqualsTheCpuBitForBit) {
  const relay::IRModule q = quantizedMlp();
  const driver::Built cpu = driver::build(q, target::Target::parse("llvm"));
  const driver::Built vta = driver::build(q, target::Target::parse("vta"));
  EXPECT_EQ(kernelsImplementedBy(vta, "dense_packed.vta"), 1);  // the hidden layer
  runtime::GraphExecutor onCpu(cpu.model());
  runtime::GraphExecutor onVta(vta.model());
  auto device = std::dynamic_pointer_cast<VtaDevice>(onVta.device("vta"));
  ASSERT_NE(device, nullptr);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const NDArray x = test::randomTensor({1, 784}, DataType::float32(), seed, 0, 1);
    onCpu.setInput(0, x);
    onCpu.run();
    device->queue().clearStats();
    onVta.setInput(0, x);
    onVta.run();
    EXPECT_TRUE(onVta.getOutput(0).bitwiseEqual(onCpu.getOutput(0))) << "seed " << seed;
    // 49 input blocks x 8 output blocks; bias, relu, +128, >>8, clip (2 ops) over 8 entries.
    EXPECT_EQ(device->queue().stats().gemmCounter, 49u * 8);
    EXPECT_EQ(device->queue().stats().aluCounter, 6u * 8);
  }
}

// The packed module compiled for the CPU alone (the blocked dense's CPU compute,
// topi::denseBlocked) computes what the unpacked one does.
TEST(VtaBuildDense, PackedModuleOnTheCpuEqualsTheUnpackedOne) {
  const relay::IRModule q = quantizedMlp();
  const relay::IRModule packed = graphPackModule(q, {});
  const target::Target llvm = target::Target::parse("llvm");
  runtime::GraphExecutor plain(driver::build(q, llvm).model());
  runtime::GraphExecutor blocked(driver::build(packed, llvm).model());
  const NDArray x = test::randomTensor({1, 784}, DataType::float32(), 9, 0, 1);
  plain.setInput(0, x);
  plain.run();
  blocked.setInput(0, x);
  blocked.run();
  EXPECT_TRUE(blocked.getOutput(0).bitwiseEqual(plain.getOutput(0)));
}

}  // namespace
}  // namespace tessera::vta
