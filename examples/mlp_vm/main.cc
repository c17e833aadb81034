// Seed 002's MLP flows in C++: the same random-weight MLP run through the four module variants on
// the VM; each prints its logits' argmax, and the program checks they agree with a C++ reference.
// Usage: mlp_vm [--print]   (--print shows each module in TVMScript form)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>

#include "mlp_modules.h"
#include "relax/bind_params.h"
#include "relax/printer.h"
#include "relax/vm.h"

using namespace tessera;

int main(int argc, char** argv) try {
  bool print = argc > 1 && std::strcmp(argv[1], "--print") == 0;
  auto params = mlp_vm::randomParams(784, 128, 10, 7);
  NDArray x = NDArray::empty({1, 784}, DataType::float32());
  for (int64_t i = 0; i < x.numel(); ++i)
    x.as<float>()[i] = static_cast<float>((i * 37) % 255) / 255.0f;
  mlp_vm::registerEnvFunctions();  // env.linear and env.relu, as seed 002's @tvm.register_func
  std::vector<NDArray> all = {x, params["w0"], params["b0"], params["w1"], params["b1"]};

  struct Variant {
    const char* name;
    relax::IRModule module;
    bool bound;
  };
  std::vector<Variant> variants = {
      {"(a) generated kernels", mlp_vm::myModule(), false},
      {"(b) library kernels (env.linear, env.relu)", mlp_vm::myModuleWithExternCall(), false},
      {"(c) mixture", mlp_vm::myModuleMixture(), false},
      {"(d) mixture with bound parameters",
       relax::bindParams(mlp_vm::myModuleMixture(), "main", params), true},
      {"(e) BlockBuilder + emitTe", mlp_vm::fromBuilder(params), true},
  };
  NDArray expected = mlp_vm::referenceMlp(x, params);
  int failures = 0;
  for (Variant& v : variants) {
    if (print) std::printf("%s\n", relax::toScript(v.module).c_str());
    relax::VirtualMachine vm(relax::compile(v.module));
    NDArray logits = vm.run("main", v.bound ? std::vector<NDArray>{x} : all);
    double maxDiff = 0;
    for (int64_t i = 0; i < logits.numel(); ++i)
      maxDiff = std::max(maxDiff, std::abs(logits.getFloat(i) - expected.getFloat(i)));
    bool ok = maxDiff < 1e-4 && mlp_vm::argmax(logits) == mlp_vm::argmax(expected);
    failures += !ok;
    std::printf("%-45s class %lld  max|diff| %.2e  %s\n", v.name,
                static_cast<long long>(mlp_vm::argmax(logits)), maxDiff, ok ? "ok" : "MISMATCH");
  }
  return failures == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
