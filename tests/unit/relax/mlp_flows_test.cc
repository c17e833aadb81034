// Seed 002's MLP flows: (a) generated kernels, (b) library kernels through env.linear/env.relu,
// (c) a mixture, (d) parameters bound as constants, and the BlockBuilder variant all give the
// same predictions, on random inputs and on the FashionMNIST samples.
#include <gtest/gtest.h>

#include "mlp_modules.h"
#include "relax/bind_params.h"
#include "relax/vm.h"
#include "relax_test_util.h"
#include "runtime/npy.h"
#include "test_util.h"

namespace tessera {
namespace {

struct Flows {
  std::map<std::string, NDArray> params = mlp_vm::randomParams(784, 128, 10, 2026);
  relax::VirtualMachine a{relax::compile(mlp_vm::myModule())};
  relax::VirtualMachine b{
      (mlp_vm::registerEnvFunctions(), relax::compile(mlp_vm::myModuleWithExternCall()))};
  relax::VirtualMachine c{relax::compile(mlp_vm::myModuleMixture())};
  relax::VirtualMachine d{
      relax::compile(relax::bindParams(mlp_vm::myModuleMixture(), "main", params))};
  relax::VirtualMachine e{relax::compile(mlp_vm::fromBuilder(params))};

  std::vector<NDArray> run(const NDArray& x) const {
    std::vector<NDArray> all = {x, params.at("w0"), params.at("b0"), params.at("w1"),
                                params.at("b1")};
    return {a.run("main", all), b.run("main", all), c.run("main", all), d.run("main", {x}),
            e.run("main", {x})};
  }
};

TEST(MlpFlows, AllVariantsAgreeWithReference) {
  Flows flows;
  for (uint32_t seed : {1u, 2u, 3u}) {
    NDArray x = relax_test::randomTensor({1, 784}, seed);
    NDArray want = mlp_vm::referenceMlp(x, flows.params);
    for (const NDArray& got : flows.run(x)) relax_test::expectClose(got, want);
  }
}

TEST(MlpFlows, FashionMnistSamplesPredictTheSameClass) {
  Flows flows;
  auto samples = readNpz(test::sourcePath("examples/fashion_mnist/samples.npz"));
  const NDArray& images = samples.at("images");
  ASSERT_EQ(images.ndim(), 2);
  ASSERT_EQ(images.shape()[1], 784);
  for (int64_t i = 0; i < images.shape()[0]; ++i) {
    NDArray x = NDArray::empty({1, 784}, DataType::float32());
    for (int64_t j = 0; j < 784; ++j) x.setFloat(j, images.getFloat(i * 784 + j));
    int64_t want = mlp_vm::argmax(mlp_vm::referenceMlp(x, flows.params));
    for (const NDArray& logits : flows.run(x))
      EXPECT_EQ(mlp_vm::argmax(logits), want) << "sample " << i;
  }
}

}  // namespace
}  // namespace tessera
