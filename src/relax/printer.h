// Relax functions and mixed modules in the TVMScript form TVM 0.16 prints (spec tir_relax.md
// §5.5): `@R.function def main(x: R.Tensor((1, "m"), dtype="float32")) -> ...:`, symbolic
// variables declared as `m = T.int64()`, `with R.dataflow():` ... `R.output(...)`, constants as
// `metadata["relax.expr.Constant"][i]`.
#pragma once

#include <string>

#include "relax/expr.h"

namespace tessera::relax {

/// One function as `@R.function def <name>(...)`, at indentation 0.
std::string toScript(const Function& func, const std::string& name);
/// `# from tvm.script import ...` `@I.ir_module class Module:` with every function in order.
std::string toScript(const IRModule& module);

}  // namespace tessera::relax
