// Compiling a Relax module for the VM (spec tir_relax.md §5.8-5.9, simplified): high-level ops
// are legalized to PrimFuncs, every PrimFunc is lowered and compiled with LLVM into one kernel
// library, and every Relax function becomes a register-machine program of a few instructions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/llvm/build.h"
#include "relax/expr.h"

namespace tessera::relax {

/// An instruction argument: a register or an entry of the constant pool.
struct Operand {
  enum class Kind : uint8_t { kRegister, kConstant };
  Kind kind = Kind::kRegister;
  int index = 0;
};

enum class Opcode : uint8_t {
  kAllocStorage,  ///< dst = bytes for `shape` x `dtype` (evaluated against the shape variables)
  kAllocTensor,   ///< dst = a `shape`/`dtype` tensor carved from storage args[0]
  kCallKernel,    ///< the compiled PrimFunc `func`(args...) (destination passing)
  kCallPacked,    ///< `func`(args...) looked up at load time: kernel library, then packed registry
  kMakeTuple,     ///< dst = (args...)
  kTupleGetItem,  ///< dst = args[0][index]
  kCopy,          ///< dst = args[0]
  kRet,           ///< return args[0]
};

struct Instruction {
  Opcode op;
  int dst = -1;
  std::string func;
  std::vector<Operand> args;
  std::vector<tir::PrimExpr> shape;
  DataType dtype;
  int index = 0;
};

/// One Relax function as VM code: parameters in registers 0..n-1.
struct VMFunction {
  std::string name;
  std::vector<Var> params;  ///< names and struct infos, checked against the inputs
  int numRegisters = 0;
  std::vector<Instruction> code;
};

/// The output of compile(): bytecode, constants and the compiled kernels.
struct Executable {
  std::map<std::string, VMFunction> functions;
  std::vector<NDArray> constants;
  codegen::CompiledModule kernels;
  /// A readable listing of every function (`@main:` then one instruction per line).
  std::string asText() const;
};

/// Compiles `module`. DiagnosticError (code "vm_compile") for what the VM cannot run: a Relax
/// function calling another, an unknown op, a call_tir to a missing PrimFunc.
Executable compile(const IRModule& module);

}  // namespace tessera::relax
