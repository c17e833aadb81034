// lowerToVM: each global function is compiled in evaluation order into register code. Values are
// remembered per node within the branch that computed them, so a value computed in one branch of
// an `if` is computed again (not read uninitialised) where the other branch or the join needs it.
#include "lower/relay/to_vm.h"

#include <unordered_map>

#include "relay/strategy/packed_weights.h"
#include "relay/visit.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::lower {
namespace {

using relay::Expr;
using relay::ExprKind;
using relay::Function;
using runtime::vm::Instruction;
using runtime::vm::Opcode;
using runtime::vm::Operand;
using runtime::vm::ShapeExpr;

[[noreturn]] void vmError(const std::string& message, const Span& span, const std::string& where) {
  throwDiagnostic("vm_compile", message, span, where);
}

// The dimensions of a tensor type as the VM's shape expressions; static shapes only, since each
// kernel is compiled for one shape.
// `what` names the value for the message.
std::vector<ShapeExpr> staticDims(const TensorTypeNode& t, const std::string& what,
                                  const Span& span, const std::string& where) {
  const std::optional<std::vector<int64_t>> dims = staticShape(t.shape);
  if (!dims)
    vmError(what +
                " has a non-static shape; the VM runs kernels compiled for static shapes (the "
                "reference interpreter runs such a module: tessera run --interpreter)",
            span, where);
  std::vector<ShapeExpr> out;
  for (int64_t d : *dims) out.push_back({.value = d, .text = std::to_string(d)});
  return out;
}

// What every function of the module shares: the executable being written and the kernels.
struct ModuleState {
  explicit ModuleState(const target::Target* target) : kernels(target) {}

  runtime::vm::Executable exec;
  KernelSet kernels;
  std::vector<std::vector<int>> kernelConstants;           // per kernel: its constants in the pool
  std::unordered_map<const relay::ExprNode*, int> pooled;  // a constant node's pool entry
  struct PackedConstant {
    const relay::ExprNode* constant;
    relay::strategy::WeightPacking packing;
    int index;
  };
  std::vector<PackedConstant> packed;

  int add(NDArray data) {
    exec.constants.push_back(std::move(data));
    return static_cast<int>(exec.constants.size()) - 1;
  }

  static const NDArray& dataOf(const Expr& e, const std::string& where) {
    const auto* c = e->as<relay::ConstantNode>();
    if (!c->hasData())
      vmError("a constant has no data (the text had no metadata section)", e->span, where);
    return c->data;
  }

  int constant(const Expr& e, const std::string& where) {
    auto it = pooled.find(e.get());
    if (it != pooled.end()) return it->second;
    return pooled[e.get()] = add(dataOf(e, where));
  }

  // A weight shared by several calls is packed and stored once.
  int packedConstant(const Expr& e, const relay::strategy::WeightPacking& packing,
                     const std::string& where) {
    for (const PackedConstant& p : packed)
      if (p.constant == e.get() && p.packing == packing) return p.index;
    const int index = add(relay::strategy::packWeight(dataOf(e, where), packing));
    packed.push_back({e.get(), packing, index});
    return index;
  }
};

Operand constantOperand(int index) {
  return {Operand::Kind::kConstant, index};
}
Operand registerOperand(int index) {
  return {Operand::Kind::kRegister, index};
}

// Children evaluated before a node. An `if` needs only its condition first: its branches are
// compiled behind the jump; a `let` its value (its body is compiled once the variable is bound).
std::vector<Expr> dataflowChildren(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kCall:
      return e->as<relay::CallNode>()->args;
    case ExprKind::kTuple:
      return e->as<relay::TupleNode>()->fields;
    case ExprKind::kTupleGetItem:
      return {e->as<relay::TupleGetItemNode>()->tuple};
    case ExprKind::kIf:
      return {e->as<relay::IfNode>()->cond};
    case ExprKind::kLet:
      return {e->as<relay::LetNode>()->value};
    default:
      return {};
  }
}

class FunctionLowering {
 public:
  FunctionLowering(ModuleState& state, std::string name) : state_(state), where_("@" + name) {
    fn_.name = std::move(name);
  }

  runtime::vm::VMFunction lower(const Function& fn) {
    for (const relay::Var& p : fn->params) {
      fn_.params.push_back(paramOf(*p));
      define(p.get(), registerOperand(newRegister()));
    }
    compileTail(fn->body);
    fn_.numRegisters = numRegisters_;
    return std::move(fn_);
  }

 private:
  runtime::vm::Param paramOf(const relay::VarNode& p) {
    runtime::vm::Param out;
    out.name = p.nameHint;
    const Type& type = p.type();
    out.annotation = typeToString(type);
    const auto* tensor = type->as<TensorTypeNode>();
    if (!tensor) {
      out.isTensor = false;
      return out;
    }
    out.shape = staticDims(*tensor, "%" + p.nameHint + ": " + out.annotation, p.span, where_);
    out.ndim = static_cast<int>(out.shape->size());
    out.dtype = tensor->dtype;
    return out;
  }

  int newRegister() { return numRegisters_++; }
  int emit(Instruction inst) {
    fn_.code.push_back(std::move(inst));
    return static_cast<int>(fn_.code.size()) - 1;
  }
  int here() const { return static_cast<int>(fn_.code.size()); }

  // Values are scoped: those defined inside a branch are forgotten when it closes.
  void define(const relay::ExprNode* node, Operand value) {
    values_[node] = value;
    defined_.push_back(node);
  }
  size_t openScope() const { return defined_.size(); }
  void closeScope(size_t mark) {
    for (; defined_.size() > mark; defined_.pop_back()) values_.erase(defined_.back());
  }
  Operand valueOf(const Expr& e) const {
    auto it = values_.find(e.get());
    TS_CHECK(it != values_.end()) << where_ << ": " << relay::exprSummary(e) << " not compiled";
    return it->second;
  }

  // The value of `root`, compiling what it needs in evaluation order (an explicit stack: the
  // depth of a graph is the model's).
  Operand compile(const Expr& root) {
    if (auto it = values_.find(root.get()); it != values_.end()) return it->second;
    struct Frame {
      Expr node;
      std::vector<Expr> children;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    stack.push_back({root, dataflowChildren(root)});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.children.size()) {
        Expr child = top.children[top.next++];
        if (!values_.count(child.get())) stack.push_back({child, dataflowChildren(child)});
        continue;
      }
      Expr node = std::move(top.node);
      stack.pop_back();
      define(node.get(), compileNode(node));
    }
    return valueOf(root);
  }

  // A node whose dataflow children have values.
  Operand compileNode(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar:
        TS_CHECK(false) << where_ << ": unbound variable %" << e->as<relay::VarNode>()->nameHint;
        return {};
      case ExprKind::kConstant:
        return constantOperand(state_.constant(e, where_));
      case ExprKind::kTuple: {
        Instruction inst{.op = Opcode::kMakeTuple, .dst = newRegister()};
        for (const Expr& f : e->as<relay::TupleNode>()->fields) inst.args.push_back(valueOf(f));
        emit(inst);
        return registerOperand(inst.dst);
      }
      case ExprKind::kTupleGetItem: {
        const auto* get = e->as<relay::TupleGetItemNode>();
        const int dst = newRegister();
        emit({.op = Opcode::kTupleGetItem,
              .dst = dst,
              .args = {valueOf(get->tuple)},
              .index = get->index});
        return registerOperand(dst);
      }
      case ExprKind::kCall:
        return compileCall(*e->as<relay::CallNode>());
      case ExprKind::kIf:
        return compileIf(*e->as<relay::IfNode>());
      case ExprKind::kLet:
        return compile(bindLets(e));
      default:
        vmError(relay::exprSummary(e) +
                    " is used as a value; the VM runs calls of global functions and fused "
                    "primitive functions, not closures",
                e->span, where_);
    }
  }

  // Binds a chain of lets (the first one's value is compiled) and returns the body after them.
  Expr bindLets(Expr e) {
    while (const auto* let = e->as<relay::LetNode>()) {
      define(let->var.get(), compile(let->value));
      e = let->body;
    }
    return e;
  }

  Operand compileIf(const relay::IfNode& node) {
    const int branch = emit({.op = Opcode::kIf, .args = {valueOf(node.cond)}});
    const int result = newRegister();
    size_t mark = openScope();
    emit({.op = Opcode::kCopy, .dst = result, .args = {compile(node.thenBranch)}});
    closeScope(mark);
    const int join = emit({.op = Opcode::kGoto});
    fn_.code[branch].index = here();
    mark = openScope();
    emit({.op = Opcode::kCopy, .dst = result, .args = {compile(node.elseBranch)}});
    closeScope(mark);
    fn_.code[join].index = here();
    return registerOperand(result);
  }

  // The function's result: a return, or a tail call whose frame replaces this one.
  void compileTail(Expr e) {
    e = bindLets(e);
    if (const auto* node = e->as<relay::IfNode>()) {
      const int branch = emit({.op = Opcode::kIf, .args = {compile(node->cond)}});
      size_t mark = openScope();
      compileTail(node->thenBranch);
      closeScope(mark);
      fn_.code[branch].index = here();
      mark = openScope();
      compileTail(node->elseBranch);
      closeScope(mark);
      return;
    }
    const auto* call = e->as<relay::CallNode>();
    if (const auto* global = call ? call->op->as<relay::GlobalVarNode>() : nullptr) {
      Instruction inst{.op = Opcode::kTailCall, .func = global->name};
      for (const Expr& arg : call->args) inst.args.push_back(compile(arg));
      emit(inst);
      return;
    }
    emit({.op = Opcode::kRet, .args = {compile(e)}});
  }

  Operand compileCall(const relay::CallNode& call) {
    if (const auto* global = call.op->as<relay::GlobalVarNode>()) {
      Instruction inst{.op = Opcode::kInvoke, .dst = newRegister(), .func = global->name};
      for (const Expr& arg : call.args) inst.args.push_back(valueOf(arg));
      emit(inst);
      return registerOperand(inst.dst);
    }
    if (const relay::OpNode* op = dataDependentOp(call))
      vmError(op->name +
                  " has a data-dependent output shape, which the VM cannot allocate yet; run the "
                  "module on the reference interpreter (`tessera run` falls back to it)",
              call.span, where_);
    Function fn = relay::exprAs<relay::FunctionNode>(call.op);
    if (call.op->as<relay::OpNode>()) fn = wrapOpCall(call);
    if (!fn || !fn->attrs.has("Primitive"))
      vmError("calls " + relay::exprSummary(call.op) +
                  "; the VM runs calls of global functions and fused primitive functions, not "
                  "closures",
              call.span, where_);
    std::vector<size_t> constantArgs;
    for (size_t i = 0; i < call.args.size(); ++i)
      if (call.args[i]->as<relay::ConstantNode>()) constantArgs.push_back(i);
    bool isNew = false;
    const KernelInfo& kernel = state_.kernels.kernelFor(fn, constantArgs, &isNew);
    if (isNew) {
      std::vector<int> pooled;
      for (const NDArray& c : kernel.constants) pooled.push_back(state_.add(c));
      state_.kernelConstants.push_back(std::move(pooled));
    }
    Instruction inst{.op = Opcode::kCallKernel, .func = kernel.name};
    for (size_t i = 0; i < call.args.size(); ++i) {
      const relay::strategy::WeightPacking packing = kernel.packingOf(i);
      if (packing)
        inst.args.push_back(constantOperand(state_.packedConstant(call.args[i], packing, where_)));
      else
        flattenInto(inst.args, valueOf(call.args[i]), call.args[i]->type());
    }
    TS_CHECK(inst.args.size() == kernel.numInputs) << kernel.name << ": argument count";
    for (int c : state_.kernelConstants[kernel.index]) inst.args.push_back(constantOperand(c));
    std::vector<Operand> outputs;
    for (const TensorTypeNode* t : flattenTensorTypes(call.type(), kernel.name)) {
      std::vector<ShapeExpr> dims =
          staticDims(*t, "the result of " + kernel.name + " (" + typeToString(call.type()) + ")",
                     call.span, where_);
      // A tensor with memory of its own: the VM plans no storage to carve it from.
      const int tensor = newRegister();
      emit({.op = Opcode::kAllocTensor, .dst = tensor, .shape = dims, .dtype = t->dtype});
      outputs.push_back(registerOperand(tensor));
    }
    inst.args.insert(inst.args.end(), outputs.begin(), outputs.end());
    TS_CHECK(inst.args.size() == kernel.numParams) << kernel.name << ": parameter count";
    emit(inst);
    size_t next = 0;
    return rebuild(outputs, call.type(), next);
  }

  // The tensors of a (possibly nested) tuple value, taken apart in order.
  void flattenInto(std::vector<Operand>& out, Operand value, const Type& type) {
    const auto* tuple = type->as<TupleTypeNode>();
    if (!tuple) {
      out.push_back(value);
      return;
    }
    for (size_t k = 0; k < tuple->fields.size(); ++k) {
      const int field = newRegister();
      emit({.op = Opcode::kTupleGetItem,
            .dst = field,
            .args = {value},
            .index = static_cast<int>(k)});
      flattenInto(out, registerOperand(field), tuple->fields[k]);
    }
  }

  // The value of type `type` assembled from a kernel's flat outputs.
  Operand rebuild(const std::vector<Operand>& outputs, const Type& type, size_t& next) {
    const auto* tuple = type->as<TupleTypeNode>();
    if (!tuple) return outputs.at(next++);
    Instruction inst{.op = Opcode::kMakeTuple, .dst = newRegister()};
    for (const Type& field : tuple->fields) inst.args.push_back(rebuild(outputs, field, next));
    emit(inst);
    return registerOperand(inst.dst);
  }

  ModuleState& state_;
  std::string where_;
  runtime::vm::VMFunction fn_;
  int numRegisters_ = 0;
  std::unordered_map<const relay::ExprNode*, Operand> values_;
  std::vector<const relay::ExprNode*> defined_;
};

}  // namespace

bool needsVM(const relay::IRModule& optimized) {
  if (optimized.functions().size() > 1) return true;
  bool control = false;
  relay::postOrderVisit(optimized.main()->body, [&](const Expr& e) {
    const auto* call = e->as<relay::CallNode>();
    if (e->kind == ExprKind::kIf || (call && call->op->as<relay::GlobalVarNode>())) control = true;
  });
  return control;
}

LoweredVM lowerToVM(const relay::IRModule& optimized, const target::Target* target) {
  ModuleState state(target);
  for (const auto& [name, fn] : optimized.functions()) {
    if (fn->attrs.has("Compiler") || fn->attrs.has("Primitive"))
      vmError("is a " + std::string(fn->attrs.has("Compiler") ? "Compiler" : "Primitive") +
                  " function; the VM compiles plain global functions",
              fn->span, "@" + name);
    state.exec.functions[name] = FunctionLowering(state, name).lower(fn);
  }
  return {std::move(state.exec), std::move(state.kernels.kernels)};
}

}  // namespace tessera::lower
