// Helpers for codegen tests: hand-built lowered PrimFuncs (flat views of parameter buffers, as
// FlattenBuffer produces them) and the differential check against tir::evaluate.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/llvm/build.h"
#include "test_util.h"
#include "tir/eval/eval.h"
#include "tir/function.h"
#include "tir/transform/lower.h"

namespace tessera::codegen::test {

using namespace tir;

/// The 1-D view of `buffer` over the same data (what FlattenBuffer produces).
inline Buffer flat(const Buffer& buffer) {
  PrimExpr n = intImm(1);
  for (const PrimExpr& d : buffer->shape) n = isOne(n) ? d : mul(n, d);
  return withShape(buffer, {n});
}

/// The exported name of `func` (its global_symbol, else its name).
inline std::string symbolOf(const PrimFunc& func) {
  if (const AttrValue* symbol = func->attrs.find("global_symbol")) return symbol->asString();
  return func->name;
}

inline CompiledModule compileOne(const PrimFunc& func,
                                 const target::Target& target = target::Target::llvm()) {
  TirModule module;
  module.add(func);
  return compile(module, target);
}

/// `func` lowered and compiled for `target`, its optimized LLVM IR kept for llvmIR().
inline CompiledModule compileKeepingIR(const PrimFunc& func, const target::Target& target) {
  TirModule module;
  module.add(tir::transform::lower(func));
  CompileOptions options;
  options.keepIR = true;
  return compile(module, target, options);
}

inline std::vector<NDArray> deepCopy(const std::vector<NDArray>& args) {
  std::vector<NDArray> out;
  for (const NDArray& a : args) out.push_back(a.copy());
  return out;
}

/// Runs `module`'s `func` and tir::evaluate on copies of `args` and compares every argument
/// afterwards (outputs are written in place); exact for integers.
inline ::testing::AssertionResult matchesEvaluator(const CompiledModule& module,
                                                   const PrimFunc& func,
                                                   const std::vector<NDArray>& args,
                                                   double rtol = 1e-6, double atol = 1e-6) {
  std::vector<NDArray> expected = deepCopy(args);
  std::vector<NDArray> actual = deepCopy(args);
  evaluate(func, expected);
  module.call(symbolOf(func), actual);
  for (size_t i = 0; i < args.size(); ++i) {
    bool isInt = !args[i].dtype().isFloat();
    auto r =
        tessera::test::allClose(actual[i], expected[i], isInt ? 0.0 : rtol, isInt ? 0.0 : atol);
    if (!r) return ::testing::AssertionFailure() << "argument " << i << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

/// The same with `func` compiled for the default target.
inline ::testing::AssertionResult matchesEvaluator(const PrimFunc& func,
                                                   const std::vector<NDArray>& args,
                                                   double rtol = 1e-6, double atol = 1e-6) {
  return matchesEvaluator(compileOne(func), func, args, rtol, atol);
}

/// `for i in range(extent): body(i)` with an int32 loop variable.
template <typename F>
Stmt loop(const std::string& name, int64_t extent, F body, ForKind kind = ForKind::kSerial) {
  Var v = makeVar(name);
  return forLoop(v, intImm(0), intImm(extent), kind, body(v));
}

}  // namespace tessera::codegen::test
