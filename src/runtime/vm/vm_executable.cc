// Shape evaluation and the listing of an executable.
#include "runtime/vm/vm_executable.h"

#include <algorithm>

namespace tessera::runtime::vm {
namespace {

const char* opcodeName(Opcode op) {
  switch (op) {
    case Opcode::kAllocStorage:
      return "alloc_storage";
    case Opcode::kAllocTensor:
      return "alloc_tensor";
    case Opcode::kCallKernel:
      return "call_kernel";
    case Opcode::kCallPacked:
      return "call_packed";
    case Opcode::kMakeTuple:
      return "make_tuple";
    case Opcode::kTupleGetItem:
      return "tuple_getitem";
    case Opcode::kCopy:
      return "copy";
    case Opcode::kRet:
      return "ret";
    case Opcode::kIf:
      return "if";
    case Opcode::kGoto:
      return "goto";
    case Opcode::kInvoke:
      return "invoke";
    case Opcode::kTailCall:
      return "tail_call";
    case Opcode::kMatchShape:
      return "match_shape";
    case Opcode::kCallBuiltin:
      return "call_builtin";
    case Opcode::kCallKernelRows:
      return "call_kernel_rows";
    case Opcode::kAssertEqual:
      return "assert_equal";
  }
  return "?";
}

std::string operandText(const Operand& o) {
  return o.kind == Operand::Kind::kRegister ? "%" + std::to_string(o.index)
                                            : "c[" + std::to_string(o.index) + "]";
}

}  // namespace

std::optional<int64_t> evalShape(const ShapeExpr& e, const ShapeEnv& env) {
  using Kind = ShapeExpr::Kind;
  if (e.kind == Kind::kConst) return e.value;
  if (e.kind == Kind::kVar) {
    if (e.value < 0 || e.value >= static_cast<int64_t>(env.size())) return std::nullopt;
    return env[e.value];
  }
  if (e.kind == Kind::kOther || !e.a || !e.b) return std::nullopt;
  const std::optional<int64_t> a = evalShape(*e.a, env), b = evalShape(*e.b, env);
  if (!a || !b) return std::nullopt;
  switch (e.kind) {
    case Kind::kAdd:
      return *a + *b;
    case Kind::kSub:
      return *a - *b;
    case Kind::kMul:
      return *a * *b;
    case Kind::kFloorDiv:
      if (*b == 0) return std::nullopt;
      return *a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0)) ? 1 : 0);
    case Kind::kMin:
      return std::min(*a, *b);
    case Kind::kMax:
      return std::max(*a, *b);
    case Kind::kConst:
    case Kind::kVar:
    case Kind::kOther:
      break;
  }
  return std::nullopt;
}

std::string Executable::asText() const {
  std::string out;
  for (const auto& [name, fn] : functions) {
    out += "@" + name + ":\n";
    for (size_t pc = 0; pc < fn.code.size(); ++pc) {
      const Instruction& inst = fn.code[pc];
      std::string line = (pc < 10    ? "   "
                          : pc < 100 ? "  "
                                     : " ") +
                         std::to_string(pc) + " " + opcodeName(inst.op);
      if (inst.op == Opcode::kAssertEqual && inst.shape.size() == 2) {
        out += line + " " + inst.shape[0].text + " == " + inst.shape[1].text + " (" + inst.func +
               ")\n";
        continue;
      }
      if (!inst.func.empty()) line += " " + inst.func;
      for (const Operand& o : inst.args) line += " " + operandText(o);
      if (inst.op == Opcode::kCallKernelRows) {
        line += " rows of";
        for (size_t i = 0; i < inst.shape.size(); ++i)
          if (inst.shape[i].value != 0) line += " " + operandText(inst.args[i]);
      } else if (!inst.shape.empty()) {
        line += " (";
        for (size_t i = 0; i < inst.shape.size(); ++i) line += (i ? ", " : "") + inst.shape[i].text;
        line += ") " + inst.dtype.name();
      }
      if (inst.op == Opcode::kTupleGetItem) line += " [" + std::to_string(inst.index) + "]";
      if (inst.op == Opcode::kIf) line += " else " + std::to_string(inst.index);
      if (inst.op == Opcode::kGoto) line += " " + std::to_string(inst.index);
      if (inst.dst >= 0) line += " -> %" + std::to_string(inst.dst);
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace tessera::runtime::vm
