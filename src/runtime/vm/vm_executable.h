// A VM executable: register-machine programs, a constant pool and the compiled kernels. It is
// runtime data — the VM compiler (relax/vm_compiler.h) writes it, the VM (runtime/vm/vm.h) runs it
// — so shape expressions and parameter annotations are kept here in a form that needs nothing from
// the compiler's IR.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/data_type.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"

namespace tessera::runtime::vm {

/// An int64 expression over a function's shape variables (e.g. `n * 4`), with its text for
/// messages.
struct ShapeExpr {
  enum class Kind : uint8_t { kConst, kVar, kAdd, kSub, kMul, kFloorDiv, kMin, kMax, kOther };
  Kind kind = Kind::kConst;
  int64_t value = 0;  ///< kConst: the value; kVar: the variable's index in the function
  std::shared_ptr<const ShapeExpr> a, b;  ///< operands of the binary kinds
  std::string text;                       ///< as the source program printed it
};

/// The values bound to a function's shape variables (nullopt: not bound yet).
using ShapeEnv = std::vector<std::optional<int64_t>>;
/// The value of `e`, or nullopt when it uses an unbound variable, divides by zero or is kOther.
std::optional<int64_t> evalShape(const ShapeExpr& e, const ShapeEnv& env);

/// An instruction argument: a register or an entry of the constant pool.
struct Operand {
  enum class Kind : uint8_t { kRegister, kConstant };
  Kind kind = Kind::kRegister;
  int index = 0;
};

enum class Opcode : uint8_t {
  kAllocStorage,  ///< dst = bytes for `shape` x `dtype` (evaluated against the shape variables)
  kAllocTensor,   ///< dst = a `shape`/`dtype` tensor carved from storage args[0] (own memory
                  ///< without args)
  kCallKernel,    ///< the compiled PrimFunc `func`(args...) (destination passing)
  kCallPacked,    ///< `func`(args...) looked up at load time: kernel library, then packed registry
  kMakeTuple,     ///< dst = (args...)
  kTupleGetItem,  ///< dst = args[0][index]
  kCopy,          ///< dst = args[0]
  kRet,           ///< return args[0]
  kIf,            ///< go on when args[0] (a one-element tensor) is non-zero, else jump to `index`
  kGoto,          ///< jump to `index`
  kInvoke,        ///< dst = the VM function `func`(args...) (tensors or tuples)
  kTailCall,      ///< return `func`(args...), reusing the caller's frame: loops run in place
  kMatchShape,    ///< binds the unbound shape variables of `shape` from the dims of the tensor
                  ///< args[0] and checks the others, its rank and its `dtype`
  kCallBuiltin,   ///< dst = the builtin `func`(args...) (runtime/vm/builtins.h), which allocates
                  ///< its result: ops whose output extents come from the data
  kCallKernelRows,  ///< the compiled kernel `func` once per row r of the leading axis: each arg
                    ///< whose `shape` entry is 1 is passed as its row r (a leading 1), the others
                    ///< whole; the row count is the first such arg's leading extent
  kAssertEqual,     ///< checks that the two `shape` entries are equal; `func` names the op and the
                    ///< dims for the error: extents an op needs equal that the compiler could not
                    ///< prove so (two independent `?` dims meeting in one op)
};

struct Instruction {
  Opcode op;
  int dst = -1;
  std::string func;
  std::vector<Operand> args;
  std::vector<ShapeExpr> shape;
  DataType dtype;
  int index = 0;  ///< kTupleGetItem: the field; kIf, kGoto: the instruction to jump to
};

/// A parameter: what the inputs are checked against.
struct Param {
  std::string name;
  std::string annotation;  ///< the struct info as printed, for messages
  bool isTensor = true;
  int ndim = -1;                                ///< -1: any rank
  DataType dtype;                               ///< void: any dtype
  std::optional<std::vector<ShapeExpr>> shape;  ///< per dimension; nullopt: any shape
};

struct VMFunction {
  std::string name;
  std::vector<Param> params;
  int numShapeVars = 0;
  int numRegisters = 0;
  std::vector<Instruction> code;
};

struct Executable {
  std::map<std::string, VMFunction> functions;
  std::vector<NDArray> constants;
  Module kernels;  ///< the compiled PrimFuncs (not loaded when there are none)
  /// A readable listing of every function (`@main:` then one instruction per line).
  std::string asText() const;
};

}  // namespace tessera::runtime::vm
