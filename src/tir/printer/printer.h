// TensorIR in a TVMScript-like text form, as TVM 0.16 prints it (see specs/tir_relax.md §1.6,
// §2.6): `@T.prim_func def main(A: T.Buffer((128, 128), "float32"), ...)`, `T.grid` loops,
// `T.axis.remap`, `T.reads/T.writes`, `with T.init():`, typed literals `T.float32(0.0)`.
#pragma once

#include <string>

#include "tir/function.h"

namespace tessera::tir {

std::string toScript(const PrimFunc& func);
/// `# from tvm.script import ir as I` ... `@I.ir_module class Module:` with every function.
std::string toScript(const TirModule& module);
std::string toString(const PrimExpr& e);
std::string toString(const Stmt& s);

}  // namespace tessera::tir
