// Helpers for build() tests: the differential check of a compiled module against the reference
// interpreter on seeded random inputs, and random data for constants a text file leaves out.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "driver/build.h"
#include "relay/interp/interpreter.h"
#include "relay/module.h"
#include "relay/text/parser.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "runtime/graph_executor/graph_executor.h"
#include "runtime/vm/vm.h"
#include "tensor_values.h"
#include "test_util.h"

namespace tessera::driver::test {

using runtime::GraphExecutor;

/// The interpreter's result flattened to the graph's outputs (tuples in order).
inline std::vector<NDArray> flatten(const relay::Value& value) {
  return tessera::test::flattenTensors(value);
}

/// A VM result flattened the same way: depth first, fields in order.
inline std::vector<NDArray> flatten(const runtime::vm::VMValue& result) {
  std::vector<NDArray> flat;
  std::function<void(const runtime::vm::VMValue&)> walk = [&](const runtime::vm::VMValue& v) {
    if (!v.isTuple()) {
      flat.push_back(v.tensor);
      return;
    }
    for (const runtime::vm::VMValue& f : *v.tuple) walk(f);
  };
  walk(result);
  return flat;
}

/// `module` with every constant that has no data (text without a metadata section) given seeded
/// random data of its declared type, so the interpreter and compiled code can both run it.
inline relay::IRModule withRandomConstants(const relay::IRModule& module, uint64_t seed) {
  relay::IRModule out;
  for (const auto& [name, fn] : module.functions()) {
    relay::Expr rewritten = relay::rewriteBottomUp(
        fn, [&](const relay::Expr& node, const std::vector<relay::Expr>& children) {
          const auto* c = node->as<relay::ConstantNode>();
          if (!c || c->hasData()) return relay::withChildren(node, children);
          const auto* t = c->declaredType->as<TensorTypeNode>();
          const std::vector<int64_t> shape = *staticShape(t->shape);
          return relay::Expr(relay::makeConstant(
              tessera::test::randomTensor(shape, t->dtype, seed++, -1, 1), c->span));
        });
    out.add(name, relay::exprAs<relay::FunctionNode>(rewritten));
  }
  return relay::inferTypes(out);
}

/// Builds `module` for the host (or `target`, which must run here), runs it with the graph
/// executor and the original module with the interpreter on the same seeded inputs, and compares
/// every output (exact for integers).
inline ::testing::AssertionResult matchesInterpreter(
    const relay::IRModule& module, uint64_t seed, double rtol = 1e-4, double atol = 1e-5,
    int optLevel = 3, const target::Target& target = codegen::hostTarget()) {
  BuildOptions options;
  options.optLevel = optLevel;
  const Built built = build(module, target, {}, options);
  const std::vector<relay::Value> inputs = tessera::test::randomInputs(module, seed);
  const std::vector<NDArray> expected = flatten(relay::Interpreter(module).run(inputs));

  GraphExecutor executor(built.model());
  const relay::Function& main = module.main();
  if (executor.numInputs() != static_cast<int>(main->params.size()))
    return ::testing::AssertionFailure() << "executor has " << executor.numInputs() << " inputs";
  for (size_t i = 0; i < inputs.size(); ++i)
    executor.setInput(main->params[i]->nameHint, inputs[i].tensor());
  executor.run();
  if (executor.numOutputs() != static_cast<int>(expected.size()))
    return ::testing::AssertionFailure()
           << executor.numOutputs() << " outputs, expected " << expected.size();
  for (size_t i = 0; i < expected.size(); ++i) {
    const bool exact = !expected[i].dtype().isFloat();
    auto r = tessera::test::allClose(executor.getOutput(static_cast<int>(i)), expected[i],
                                     exact ? 0 : rtol, exact ? 0 : atol);
    if (!r) return ::testing::AssertionFailure() << "output " << i << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

/// `module` built for the host with the executor chosen by needsVM (the VM for `?` dims).
inline Built buildVM(const relay::IRModule& module) {
  return build(module, codegen::hostTarget(), {}, {.executor = Executor::kAuto});
}

/// The VM's outputs of `built` against the interpreter's on `inputs`; exact for integers.
inline ::testing::AssertionResult vmMatchesInterpreter(const Built& built,
                                                       const relay::IRModule& module,
                                                       const std::vector<NDArray>& inputs) {
  std::vector<relay::Value> values(inputs.begin(), inputs.end());
  const std::vector<NDArray> expected = flatten(relay::Interpreter(module).run(values));
  runtime::vm::VirtualMachine vm(*built.exec);
  const std::vector<NDArray> got = flatten(vm.invoke("main", inputs));
  if (got.size() != expected.size())
    return ::testing::AssertionFailure() << got.size() << " outputs, expected " << expected.size();
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].shape() != expected[i].shape())
      return ::testing::AssertionFailure() << "output " << i << ": " << got[i].describe()
                                           << ", expected " << expected[i].describe();
    const bool exact = !expected[i].dtype().isFloat();
    auto r = tessera::test::allClose(got[i], expected[i], exact ? 0 : 1e-4, exact ? 0 : 1e-5);
    if (!r) return ::testing::AssertionFailure() << "output " << i << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

inline relay::IRModule parse(const std::string& text) {
  return relay::inferTypes(relay::parseModule(text, "<test>"));
}

}  // namespace tessera::driver::test
