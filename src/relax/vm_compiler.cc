// VM code generation. Each call_tir / call_dps_packed allocates one storage and one tensor per
// output before the call (the callee fills them); no storage is reused between bindings yet.
#include "relax/vm_compiler.h"

#include <unordered_map>

#include "relax/legalize_ops.h"
#include "relax/ops.h"
#include "support/diagnostic.h"
#include "tir/printer.h"
#include "tir/transform/lower.h"

namespace tessera::relax {

namespace {

[[noreturn]] void compileError(const std::string& message) {
  throwDiagnostic("vm_compile", message);
}

class FunctionCompiler {
 public:
  FunctionCompiler(const IRModule& module, Executable& exec) : module_(module), exec_(exec) {}

  VMFunction compile(const std::string& name, const FunctionNode& func) {
    fn_.name = name;
    fn_.params = func.params;
    for (const Var& p : func.params) registers_[p.get()] = newRegister();
    for (const BindingBlock& block : func.blocks)
      for (const Binding& b : block.bindings)
        registers_[b.var.get()] = compileValue(b.value, b.var->name);
    emit({.op = Opcode::kRet, .args = {operand(func.body)}});
    fn_.numRegisters = numRegisters_;
    return std::move(fn_);
  }

 private:
  const IRModule& module_;
  Executable& exec_;
  VMFunction fn_;
  int numRegisters_ = 0;
  std::unordered_map<const ExprNode*, int> registers_;
  std::unordered_map<const ExprNode*, int> constants_;

  int newRegister() { return numRegisters_++; }
  void emit(Instruction inst) { fn_.code.push_back(std::move(inst)); }

  Operand operand(const Expr& e) {
    if (e->as<ConstantNode>()) {
      auto [it, inserted] = constants_.emplace(e.get(), static_cast<int>(exec_.constants.size()));
      if (inserted) exec_.constants.push_back(e->as<ConstantNode>()->data);
      return {Operand::Kind::kConstant, it->second};
    }
    if (auto it = registers_.find(e.get()); it != registers_.end())
      return {Operand::Kind::kRegister, it->second};
    if (isLeaf(e) && !e->as<VarNode>()) compileError(fn_.name + ": unsupported leaf expression");
    // A nested non-leaf (the builder normally binds these first).
    return {Operand::Kind::kRegister, compileValue(e, "")};
  }

  int allocOutput(const StructInfo& s) {
    int storage = newRegister();
    emit({.op = Opcode::kAllocStorage, .dst = storage, .shape = *s->shape, .dtype = s->dtype});
    int tensor = newRegister();
    emit({.op = Opcode::kAllocTensor,
          .dst = tensor,
          .args = {{Operand::Kind::kRegister, storage}},
          .shape = *s->shape,
          .dtype = s->dtype});
    return tensor;
  }

  int compileDps(const CallNode& call) {
    const StructInfo& out = call.sinfoArgs.at(0);
    std::vector<int> outputs;
    if (out->kind == StructInfoKind::kTuple)
      for (const StructInfo& f : out->fields) outputs.push_back(allocOutput(f));
    else
      outputs.push_back(allocOutput(out));
    Instruction inst;
    if (call.op == kCallTir) {
      inst.op = Opcode::kCallKernel;
      inst.func = call.args[0]->as<GlobalVarNode>()->name;
      const IRModule::Func* f = module_.find(inst.func);
      if (!f || !std::holds_alternative<tir::PrimFunc>(*f))
        compileError(fn_.name + ": call_tir target '" + inst.func +
                     "' is not a PrimFunc of the module");
    } else {
      inst.op = Opcode::kCallPacked;
      inst.func = call.args[0]->as<ExternFuncNode>()->name;
    }
    for (const Expr& a : call.args[1]->as<TupleNode>()->fields) inst.args.push_back(operand(a));
    for (int o : outputs) inst.args.push_back({Operand::Kind::kRegister, o});
    emit(std::move(inst));
    if (outputs.size() == 1 && out->kind != StructInfoKind::kTuple) return outputs[0];
    int tuple = newRegister();
    Instruction make{.op = Opcode::kMakeTuple, .dst = tuple};
    for (int o : outputs) make.args.push_back({Operand::Kind::kRegister, o});
    emit(std::move(make));
    return tuple;
  }

  int compileValue(const Expr& value, const std::string& bindingName) {
    if (const auto* call = value->as<CallNode>()) {
      if (call->op == kCallTir || call->op == kCallDpsPacked) return compileDps(*call);
      compileError(fn_.name + ": binding '" + bindingName + "' calls op '" + call->op +
                   "' which the VM cannot run");
    }
    if (const auto* tuple = value->as<TupleNode>()) {
      Instruction make{.op = Opcode::kMakeTuple, .dst = newRegister()};
      for (const Expr& f : tuple->fields) make.args.push_back(operand(f));
      emit(make);
      return make.dst;
    }
    if (const auto* item = value->as<TupleGetItemNode>()) {
      Instruction get{.op = Opcode::kTupleGetItem,
                      .dst = newRegister(),
                      .args = {operand(item->tuple)},
                      .index = item->index};
      emit(get);
      return get.dst;
    }
    if (value->as<VarNode>() || value->as<ConstantNode>()) {
      Instruction copy{.op = Opcode::kCopy, .dst = newRegister(), .args = {operand(value)}};
      emit(copy);
      return copy.dst;
    }
    compileError(fn_.name + ": binding '" + bindingName + "' has a value the VM cannot run");
  }
};

std::string operandText(const Operand& o) {
  return o.kind == Operand::Kind::kRegister ? "%" + std::to_string(o.index)
                                            : "c[" + std::to_string(o.index) + "]";
}

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
  }
  return "?";
}

}  // namespace

std::string Executable::asText() const {
  std::string out;
  for (const auto& [name, fn] : functions) {
    out += "@" + name + ":\n";
    for (const Instruction& inst : fn.code) {
      std::string line = std::string("  ") + opcodeName(inst.op);
      if (!inst.func.empty()) line += " " + inst.func;
      for (const Operand& o : inst.args) line += " " + operandText(o);
      if (!inst.shape.empty()) {
        line += " (";
        for (size_t i = 0; i < inst.shape.size(); ++i)
          line += (i ? ", " : "") + tir::toString(inst.shape[i]);
        line += ") " + inst.dtype.name();
      }
      if (inst.op == Opcode::kTupleGetItem) line += " [" + std::to_string(inst.index) + "]";
      if (inst.dst >= 0) line += " -> %" + std::to_string(inst.dst);
      out += line + "\n";
    }
  }
  return out;
}

Executable compile(const IRModule& module) {
  IRModule legal = legalizeOps(module);
  Executable exec;
  tir::TirModule kernels;
  for (const IRModule::Entry& e : legal.entries()) {
    const auto* prim = std::get_if<tir::PrimFunc>(&e.func);
    if (!prim) continue;
    // Kernels are exported under their module name, which call_tir and call_dps_packed use.
    auto named = std::make_shared<tir::PrimFuncNode>(**prim);
    named->name = e.name;
    named->attrs.set("global_symbol", AttrValue::string(e.name));
    kernels.add(tir::transform::lower(tir::PrimFunc(named)));
  }
  if (!kernels.empty()) exec.kernels = codegen::compile(kernels);
  for (const IRModule::Entry& e : legal.entries()) {
    const auto* func = std::get_if<Function>(&e.func);
    if (!func) continue;
    exec.functions[e.name] = FunctionCompiler(legal, exec).compile(e.name, **func);
  }
  return exec;
}

}  // namespace tessera::relax
