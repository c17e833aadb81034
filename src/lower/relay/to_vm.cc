// lowerToVM: each global function is compiled in evaluation order into register code. Values are
// remembered per node within the branch that computed them, so a value computed in one branch of
// an `if` is computed again (not read uninitialised) where the other branch or the join needs it.
// Shapes with `?` dims are tracked beside the values as expressions over the function's shape
// variables (vm_shapes.h): bound from the parameters at entry and by match_shape where a builtin
// or a join produces them; kernel outputs are allocated from the shape functions' expressions.
#include "lower/relay/to_vm.h"

#include <algorithm>
#include <unordered_map>

#include "lower/relay/row_kernels.h"
#include "lower/relay/vm_shapes.h"
#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/scatter.h"
#include "relay/op/tensor.h"
#include "relay/shape_func.h"
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
    // A tuple parameter's `?` dims are bound from its fields (a tensor's at entry).
    for (const relay::Var& p : fn->params)
      if (!p->type()->as<TensorTypeNode>() && hasAnyDim(p->type()))
        matchResult(valueOf(p), p->type(), p.get());
    compileTail(fn->body);
    fn_.numRegisters = numRegisters_;
    fn_.numShapeVars = shapeVars_.count();
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
    relay::SymValue shape = shapeVars_.freshShape(type, "n");
    out.shape = shapeVars_.toRuntime(shape.shape);
    shapes_[&p] = std::move(shape);
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
    for (; defined_.size() > mark; defined_.pop_back()) {
      values_.erase(defined_.back());
      shapes_.erase(defined_.back());
    }
  }

  // The shape of a compiled value: tracked where it has `?` dims, else its type's.
  relay::SymValue shapeOf(const Expr& e) const {
    if (auto it = shapes_.find(e.get()); it != shapes_.end()) return it->second;
    if (const auto* tuple = e->as<relay::TupleNode>()) {
      relay::SymValue out{.isTuple = true};
      for (const Expr& f : tuple->fields) out.fields.push_back(shapeOf(f));
      return out;
    }
    if (const auto* get = e->as<relay::TupleGetItemNode>()) {
      relay::SymValue t = shapeOf(get->tuple);
      if (get->index >= 0 && static_cast<size_t>(get->index) < t.fields.size())
        return t.fields[static_cast<size_t>(get->index)];
    }
    return relay::symValueOfType(e->type());
  }

  // Binds the `?` dims of `value` (of type `type`, computed by `node`) to new shape variables
  // when the program runs.
  void matchResult(Operand value, const Type& type, const relay::ExprNode* node) {
    if (!hasAnyDim(type)) return;
    relay::SymValue shape = shapeVars_.freshShape(type, "d");
    emitMatches(value, type, shape);
    shapes_[node] = std::move(shape);
  }

  void emitMatches(Operand value, const Type& type, const relay::SymValue& shape) {
    if (const auto* tuple = type->as<TupleTypeNode>()) {
      for (size_t k = 0; k < tuple->fields.size(); ++k) {
        if (!hasAnyDim(tuple->fields[k])) continue;
        const int field = newRegister();
        emit({.op = Opcode::kTupleGetItem,
              .dst = field,
              .args = {value},
              .index = static_cast<int>(k)});
        emitMatches(registerOperand(field), tuple->fields[k], shape.fields.at(k));
      }
      return;
    }
    const auto* tensor = type->as<TensorTypeNode>();
    if (!tensor || !hasAnyDim(type)) return;
    emit({.op = Opcode::kMatchShape,
          .args = {value},
          .shape = shapeVars_.toRuntime(shape.shape),
          .dtype = tensor->dtype});
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
      const Operand value = compile(let->value);
      define(let->var.get(), value);
      if (hasAnyDim(let->var->type())) shapes_[let->var.get()] = shapeOf(let->value);
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
    // The branches may disagree on `?` extents: the joined value's are read from it.
    matchResult(registerOperand(result), node.type(), &node);
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
      matchResult(registerOperand(inst.dst), call.type(), &call);
      return registerOperand(inst.dst);
    }
    if (const relay::OpNode* op = builtinOp(call)) return compileBuiltin(call, *op);
    Function fn = relay::exprAs<relay::FunctionNode>(call.op);
    if (call.op->as<relay::OpNode>()) fn = wrapOpCall(call);
    if (!fn || !fn->attrs.has("Primitive"))
      vmError("calls " + relay::exprSummary(call.op) +
                  "; the VM runs calls of global functions and fused primitive functions, not "
                  "closures",
              call.span, where_);
    const ArgumentFacts facts = argumentFacts(call, ranges_);
    // Leading `?` axes kept row by row: a kernel for one row, with static shapes, called per row.
    std::optional<RowSplit> rows;
    if (hasAnyDim(call.type())) rows = splitByRows(fn);
    bool isNew = false;
    const KernelInfo& kernel = state_.kernels.kernelFor(rows ? rows->perRow : fn, facts, &isNew);
    if (isNew) {
      std::vector<int> pooled;
      for (const NDArray& c : kernel.constants) pooled.push_back(state_.add(c));
      state_.kernelConstants.push_back(std::move(pooled));
    }
    Instruction inst{.op = rows ? Opcode::kCallKernelRows : Opcode::kCallKernel,
                     .func = kernel.name};
    for (size_t i = 0; i < call.args.size(); ++i) {
      const relay::strategy::WeightPacking packing = kernel.packingOf(i);
      if (packing)
        inst.args.push_back(constantOperand(state_.packedConstant(call.args[i], packing, where_)));
      else
        flattenInto(inst.args, valueOf(call.args[i]), call.args[i]->type());
      // The row marks: a sliced parameter is one tensor.
      if (rows) inst.shape.resize(inst.args.size(), {.value = rows->slicedParams[i] ? 1 : 0});
    }
    TS_CHECK(inst.args.size() == kernel.numInputs) << kernel.name << ": argument count";
    for (int c : state_.kernelConstants[kernel.index]) inst.args.push_back(constantOperand(c));
    // Outputs with `?` dims are allocated from the shape functions of the kernel's ops; the
    // extents those ops need equal are checked before the kernel runs.
    relay::SymValue outShape = relay::symValueOfType(call.type());
    std::vector<relay::SymValue> argShapes;
    for (const Expr& a : call.args) argShapes.push_back(shapeOf(a));
    std::vector<relay::DimAssumption> assumed;
    if (!relay::isKnown(outShape)) {
      outShape = relay::primitiveOutputShape(fn, argShapes, &assumed);
      shapes_[&call] = outShape;
    } else if (std::any_of(call.args.begin(), call.args.end(),
                           [](const Expr& a) { return hasAnyDim(a->type()); })) {
      // A static result needs no shape function, and one that cannot run refuses nothing here.
      try {
        relay::primitiveOutputShape(fn, argShapes, &assumed);
      } catch (const DiagnosticError&) {
        assumed.clear();
      }
    }
    emitDimChecks(assumed);
    std::vector<const relay::SymValue*> outShapes;
    flattenShapes(outShape, outShapes);
    std::vector<Operand> outputs;
    const std::vector<const TensorTypeNode*> outTypes =
        flattenTensorTypes(call.type(), kernel.name);
    TS_CHECK(outShapes.size() == outTypes.size()) << kernel.name << ": output count";
    for (size_t k = 0; k < outTypes.size(); ++k) {
      // A tensor with memory of its own: the VM plans no storage to carve it from.
      const int tensor = newRegister();
      emit({.op = Opcode::kAllocTensor,
            .dst = tensor,
            .shape = shapeVars_.toRuntime(outShapes[k]->shape),
            .dtype = outTypes[k]->dtype});
      outputs.push_back(registerOperand(tensor));
    }
    if (rows) inst.shape.resize(inst.args.size(), {.value = 0});  // the kernel's constants
    inst.args.insert(inst.args.end(), outputs.begin(), outputs.end());
    if (rows) inst.shape.resize(inst.args.size(), {.value = 1});  // every output by rows
    TS_CHECK(inst.args.size() == kernel.numParams) << kernel.name << ": parameter count";
    emit(inst);
    size_t next = 0;
    return rebuild(outputs, call.type(), next);
  }

  // One assert_equal per pair of extents an op of the kernel assumed equal (shape_func.h); the
  // same pair twice in one call is checked once.
  void emitDimChecks(const std::vector<relay::DimAssumption>& assumed) {
    std::vector<std::pair<std::string, std::string>> done;
    for (const relay::DimAssumption& d : assumed) {
      std::vector<ShapeExpr> pair = shapeVars_.toRuntime(relay::SymShape{d.a, d.b});
      if (pair[0].text == pair[1].text) continue;
      std::pair<std::string, std::string> key{pair[0].text, pair[1].text};
      if (std::find(done.begin(), done.end(), key) != done.end()) continue;
      done.push_back(std::move(key));
      emit({.op = Opcode::kAssertEqual, .func = d.what, .shape = std::move(pair)});
    }
  }

  static void flattenShapes(const relay::SymValue& v, std::vector<const relay::SymValue*>& out) {
    if (!v.isTuple) {
      out.push_back(&v);
      return;
    }
    for (const relay::SymValue& f : v.fields) flattenShapes(f, out);
  }

  // An op whose output extents come from the data runs as a VM builtin that allocates its result;
  // the result's `?` dims become shape variables. Its primitive function (FuseOps gives an opaque
  // op one of its own) must be the op applied to parameters and constants.
  Operand compileBuiltin(const relay::CallNode& call, const relay::OpNode& op) {
    const relay::CallNode* inner = &call;
    std::unordered_map<const relay::ExprNode*, Operand> bound;
    if (const auto* fn = call.op->as<relay::FunctionNode>()) {
      inner = fn->body->as<relay::CallNode>();
      if (!inner || inner->op.get() != static_cast<const relay::ExprNode*>(&op))
        vmError("a fused function computes more than " + op.name +
                    ", whose output shape comes from the data",
                call.span, where_);
      for (size_t i = 0; i < fn->params.size() && i < call.args.size(); ++i)
        bound[fn->params[i].get()] = valueOf(call.args[i]);
    } else {
      for (const Expr& a : call.args) bound[a.get()] = valueOf(a);
    }
    Instruction inst{.op = Opcode::kCallBuiltin, .dst = newRegister(), .func = op.name};
    for (const Expr& a : inner->args) {
      if (auto it = bound.find(a.get()); it != bound.end())
        inst.args.push_back(it->second);
      else if (a->as<relay::ConstantNode>())
        inst.args.push_back(constantOperand(state_.constant(a, where_)));
      else
        vmError("an argument of " + op.name + " is neither a parameter nor a constant", call.span,
                where_);
    }
    inst.args.push_back(constantOperand(state_.add(builtinAttrs(*inner, op.name))));
    emit(inst);
    matchResult(registerOperand(inst.dst), call.type(), &call);
    return registerOperand(inst.dst);
  }

  // The attributes a builtin reads from its last argument (runtime/vm/builtin_ops.h).
  static NDArray builtinAttrs(const relay::CallNode& call, const std::string& op) {
    std::vector<int64_t> values;
    if (op == "unique") {
      const auto& u = relay::attrsOrDefault<relay::UniqueAttrs>(call.attrs.get());
      values = {u.sorted ? 1 : 0, u.axis ? 1 : 0, u.axis.value_or(0)};
    }
    if (op == "vision.all_class_non_max_suppression")
      values = {relay::attrsOrDefault<relay::AllClassNmsAttrs>(call.attrs.get()).centerPointBox};
    if (op == "dyn.topk") {
      const auto& a = relay::attrsOrDefault<relay::TopKAttrs>(call.attrs.get());
      const int64_t ret = a.retType == "values" ? 1 : (a.retType == "indices" ? 2 : 0);
      values = {a.axis, a.isAscend ? 1 : 0, ret, a.dtype.bits()};
    }
    if (op == "scatter_elements") {
      const auto& a = relay::attrsOrDefault<relay::ScatterElementsAttrs>(call.attrs.get());
      const std::vector<std::string> reductions = {"update", "add", "mul", "min", "max"};
      const auto it = std::find(reductions.begin(), reductions.end(), a.reduction);
      values = {a.axis, static_cast<int64_t>(it - reductions.begin())};
    }
    if (op == "dyn.strided_slice") {
      const auto& axes = relay::attrsOrDefault<relay::StridedSliceAttrs>(call.attrs.get()).axes;
      values = {axes ? static_cast<int64_t>(axes->size()) : 0};
      if (axes) values.insert(values.end(), axes->begin(), axes->end());
    }
    if (op == "shape_of")
      values = {relay::attrsOrDefault<relay::ShapeOfAttrs>(call.attrs.get()).dtype.bits()};
    NDArray out = NDArray::empty({static_cast<int64_t>(values.size())}, DataType::int64());
    for (size_t i = 0; i < values.size(); ++i) out.as<int64_t>()[i] = values[i];
    return out;
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
  VMShapeVars shapeVars_;
  relay::RangeAnalyzer ranges_;  // of the function's values (int8 kernels' data facts)
  std::unordered_map<const relay::ExprNode*, relay::SymValue> shapes_;  // values with `?` dims
};

}  // namespace

bool needsVM(const relay::IRModule& optimized) {
  if (optimized.functions().size() > 1) return true;
  const Function& main = optimized.main();
  bool dynamic = false;
  // Before type inference a parameter has only its annotation (which may be absent).
  for (const relay::Var& p : main->params) {
    const Type& type = p->checkedType ? p->checkedType : p->typeAnnotation;
    dynamic = dynamic || (type && hasAnyDim(type));
  }
  relay::postOrderVisit(main->body, [&](const Expr& e) {
    const auto* call = e->as<relay::CallNode>();
    if (e->kind == ExprKind::kIf || (call && call->op->as<relay::GlobalVarNode>())) dynamic = true;
    // Extents known only when the program runs: the graph executor plans every tensor before.
    if (call && (builtinOp(*call) || (e->checkedType && hasAnyDim(e->checkedType)))) dynamic = true;
  });
  return dynamic;
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
