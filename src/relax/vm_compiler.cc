// VM code generation. Each call_tir / call_dps_packed allocates one storage and one tensor per
// output before the call (the callee fills them); no storage is reused between bindings yet.
#include "relax/vm_compiler.h"

#include <unordered_map>

#include "codegen/llvm/build.h"
#include "relax/legalize_ops.h"
#include "relax/ops.h"
#include "relax/printer.h"
#include "relax/struct_info.h"
#include "support/diagnostic.h"
#include "tir/printer/printer.h"
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
    for (const Var& p : func.params) {
      fn_.params.push_back(paramOf(p));
      registers_[p.get()] = newRegister();
    }
    for (const BindingBlock& block : func.blocks)
      for (const Binding& b : block.bindings)
        registers_[b.var.get()] = compileValue(b.value, b.var->name);
    emit({.op = Opcode::kRet, .args = {operand(func.body)}});
    fn_.numRegisters = numRegisters_;
    fn_.numShapeVars = static_cast<int>(shapeVars_.size());
    return std::move(fn_);
  }

 private:
  const IRModule& module_;
  Executable& exec_;
  VMFunction fn_;
  int numRegisters_ = 0;
  std::unordered_map<const ExprNode*, int> registers_;
  std::unordered_map<const ExprNode*, int> constants_;

  std::unordered_map<const tir::VarNode*, int> shapeVars_;  // numbered by first appearance

  int newRegister() { return numRegisters_++; }

  // The runtime's form of a shape expression: variables become indices into the function's
  // shape environment, the text is kept for messages.
  runtime::vm::ShapeExpr shapeExpr(const tir::PrimExpr& e) {
    using Kind = runtime::vm::ShapeExpr::Kind;
    runtime::vm::ShapeExpr out;
    out.text = dimString(e);
    if (const int64_t* c = tir::asConstInt(e)) {
      out.value = *c;
      return out;
    }
    if (const auto* v = e->as<tir::VarNode>()) {
      out.kind = Kind::kVar;
      out.value = shapeVars_.emplace(v, static_cast<int>(shapeVars_.size())).first->second;
      return out;
    }
    if (const auto* cast = e->as<tir::CastNode>()) {
      runtime::vm::ShapeExpr inner = shapeExpr(cast->value);
      inner.text = out.text;
      return inner;
    }
    const auto* bin = e->as<tir::BinaryNode>();
    out.kind = Kind::kOther;
    if (!bin) return out;
    switch (bin->op) {
      case tir::BinaryOp::kAdd:
        out.kind = Kind::kAdd;
        break;
      case tir::BinaryOp::kSub:
        out.kind = Kind::kSub;
        break;
      case tir::BinaryOp::kMul:
        out.kind = Kind::kMul;
        break;
      case tir::BinaryOp::kFloorDiv:
      case tir::BinaryOp::kDiv:
        out.kind = Kind::kFloorDiv;
        break;
      case tir::BinaryOp::kMin:
        out.kind = Kind::kMin;
        break;
      case tir::BinaryOp::kMax:
        out.kind = Kind::kMax;
        break;
      default:
        return out;
    }
    out.a = std::make_shared<runtime::vm::ShapeExpr>(shapeExpr(bin->a));
    out.b = std::make_shared<runtime::vm::ShapeExpr>(shapeExpr(bin->b));
    return out;
  }

  std::vector<runtime::vm::ShapeExpr> shapeExprs(const std::vector<tir::PrimExpr>& shape) {
    std::vector<runtime::vm::ShapeExpr> out;
    for (const tir::PrimExpr& d : shape) out.push_back(shapeExpr(d));
    return out;
  }

  runtime::vm::Param paramOf(const Var& p) {
    const StructInfoNode& s = *p->sinfo;
    runtime::vm::Param out{.name = p->name,
                           .annotation = sinfoScript(p->sinfo),
                           .isTensor = s.isTensor(),
                           .ndim = s.ndim,
                           .dtype = s.dtype};
    if (s.shape) out.shape = shapeExprs(*s.shape);
    return out;
  }
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
    emit({.op = Opcode::kAllocStorage,
          .dst = storage,
          .shape = shapeExprs(*s->shape),
          .dtype = s->dtype});
    int tensor = newRegister();
    emit({.op = Opcode::kAllocTensor,
          .dst = tensor,
          .args = {{Operand::Kind::kRegister, storage}},
          .shape = shapeExprs(*s->shape),
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

}  // namespace

Executable compile(const IRModule& module, transform::PassContext& ctx) {
  IRModule legal;
  transform::runInstrumented(
      ctx, "LegalizeOps", [&] { legal = legalizeOps(module); }, [&] { return toScript(legal); });
  Executable exec;
  tir::TirModule kernels;
  for (const IRModule::Entry& e : legal.entries()) {
    const auto* prim = std::get_if<tir::PrimFunc>(&e.func);
    if (!prim) continue;
    // Kernels are exported under their module name, which call_tir and call_dps_packed use.
    auto named = std::make_shared<tir::PrimFuncNode>(**prim);
    named->name = e.name;
    named->attrs.set("global_symbol", AttrValue::string(e.name));
    kernels.add(tir::PrimFunc(named));
  }
  kernels = tir::transform::lower(std::move(kernels), ctx);
  codegen::CompiledModule lib;
  transform::runInstrumented(
      ctx, "CodegenLLVM",
      [&] {
        if (!kernels.empty())
          lib = codegen::compile(kernels, target::Target::llvm(),
                                 {.keepIR = transform::printsAfter(ctx, "CodegenLLVM")});
      },
      [&] { return kernels.empty() ? std::string() : lib.llvmIR(); });
  if (!kernels.empty()) exec.kernels = lib.module();
  transform::runInstrumented(
      ctx, "CompileVM",
      [&] {
        for (const IRModule::Entry& e : legal.entries()) {
          const auto* func = std::get_if<Function>(&e.func);
          if (!func) continue;
          exec.functions[e.name] = FunctionCompiler(legal, exec).compile(e.name, **func);
        }
      },
      [&] { return exec.asText(); });
  return exec;
}

}  // namespace tessera::relax
