// Seed 002's MLP flows in C++: the same random-weight MLP run through the module variants on the
// VM; each prints its logits' argmax, and the program checks they agree with a C++ reference.
// The last variant is seed 002's section 5.4: linear0 tuned (tune_tir over the rule-made design
// spaces, --trials N, default 8), the best record replayed (compile_tir) and swapped into the
// module with parameters bound (update_func).
// Usage: mlp_vm [--print] [--trials N]   (--print shows each module in TVMScript form)
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>

#include "codegen/llvm/target.h"
#include "mlp_modules.h"
#include "relax/bind_params.h"
#include "relax/printer.h"
#include "relax/vm.h"
#include "tune/database.h"
#include "tune/rules/post_order_apply.h"
#include "tune/task_scheduler.h"

using namespace tessera;

namespace {

// Seed 002's tune_tir(mod_linear, "llvm --num-cores=1", ...) and compile_tir: linear0 tuned in a
// fresh database, its best record replayed and named linear0 again.
tir::PrimFunc tunedLinear0(int trials) {
  const tir::PrimFunc linear = mlp_vm::linear0(784, 128);
  target::Target target = codegen::hostTarget();
  target.numCores = 1;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tessera_mlp_vm_tune_" + std::to_string(getpid()));
  tune::Database database(dir.string());
  tune::RandomModel model;
  tune::TuneOptions options{.maxTrialsGlobal = trials, .trialsPerIter = trials};
  options.measure = {.number = 10, .repeat = 1, .minRepeatMs = 0, .threads = 1};
  tune::tune({{"main", linear, 1, tune::rules::ruleSpaces(linear, target, 0)}}, target, database,
             model, options);
  std::optional<tir::PrimFunc> best = tune::compileTir(database, linear, target);
  std::filesystem::remove_all(dir);
  if (!best) throw std::runtime_error("tuning linear0 left no valid record");
  return *best;
}

}  // namespace

int main(int argc, char** argv) try {
  bool print = false;
  int trials = 8;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--print") == 0) {
      print = true;
    } else if (std::strcmp(argv[i], "--trials") == 0 && i + 1 < argc &&
               std::atoi(argv[i + 1]) > 0) {
      trials = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: mlp_vm [--print] [--trials N]\n");
      return 2;
    }
  }
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
  // (f): MyModuleWithParams2.update_func(gv, new_func) with the tuned linear0.
  relax::IRModule withTuned = relax::bindParams(mlp_vm::myModuleMixture(), "main", params);
  withTuned.update("linear0", tunedLinear0(trials));
  variants.push_back({"(f) bound parameters, linear0 tuned", std::move(withTuned), true});
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
