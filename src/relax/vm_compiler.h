// Compiling a Relax module for the VM (spec tir_relax.md §5.8-5.9, simplified): high-level ops
// are legalized to PrimFuncs, every PrimFunc is lowered and compiled with LLVM into one kernel
// library, and every Relax function becomes a register-machine program of a few instructions
// (runtime/vm/vm_executable.h: runtime data, run by runtime/vm/vm.h without the compiler).
#pragma once

#include "ir/transform.h"
#include "relax/expr.h"
#include "runtime/vm/vm_executable.h"

namespace tessera::relax {

using runtime::vm::Executable;
using runtime::vm::Instruction;
using runtime::vm::Opcode;
using runtime::vm::Operand;
using runtime::vm::VMFunction;

/// Compiles `module` under `ctx` as named, instrumented steps (--print-after and --time-passes
/// see each): LegalizeOps, the TIR lowering passes by name (configured by the context, as
/// build() does), CodegenLLVM, CompileVM. DiagnosticError (code "vm_compile") for what the VM
/// cannot run: a Relax function calling another, an unknown op, a call_tir to a missing PrimFunc.
Executable compile(const IRModule& module,
                   transform::PassContext& ctx = transform::PassContext::current());

}  // namespace tessera::relax
