// lowerToPrimFunc: a fused primitive function becomes one PrimFunc. Parameters become
// placeholders, each call applies its op's registered compute to the tensors of its arguments,
// and createPrimFunc turns the resulting TE graph into TensorIR. The walk is iterative, so a
// long fused chain does not grow the C++ stack.
#include <unordered_map>

#include "relay/op_registry.h"
#include "relay/strategy/strategy.h"
#include "relay/strategy/strategy_util.h"
#include "support/diagnostic.h"
#include "te/create_prim_func.h"
#include "topi/elemwise.h"

namespace tessera::relay::strategy {
namespace {

using te::Tensor;
using Tensors = std::vector<Tensor>;

// The arguments whose values a node needs, in order (the callee of a call is not a value).
std::vector<Expr> operandsOf(const Expr& e) {
  if (const auto* call = e->as<CallNode>()) return call->args;
  if (const auto* tuple = e->as<TupleNode>()) return tuple->fields;
  if (const auto* get = e->as<TupleGetItemNode>()) return {get->tuple};
  return {};
}

Type typeOfExpr(const Expr& e) {
  if (e->checkedType) return e->checkedType;
  if (const auto* v = e->as<VarNode>(); v && v->typeAnnotation) return v->typeAnnotation;
  throwDiagnostic("lower_te", "the primitive function is not type-checked (run InferType first)",
                  e->span);
}

// Placeholders for one parameter: a tensor gives one, a tuple one per field.
Tensors placeholdersFor(const Type& type, const std::string& name) {
  if (const auto* tuple = type->as<TupleTypeNode>()) {
    Tensors out;
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      Tensors field = placeholdersFor(tuple->fields[i], name + "_" + std::to_string(i));
      out.insert(out.end(), field.begin(), field.end());
    }
    return out;
  }
  const TensorTypeNode& t = tensorTypeOf(type);
  return {te::placeholder(staticShapeOf(type, "parameter " + name), t.dtype, name)};
}

class Lowerer {
 public:
  LoweredFunction run(const Function& f) {
    Tensors inputs;
    for (const Var& p : f->params) {
      Tensors ts = placeholdersFor(typeOfExpr(p), p->nameHint);
      values_[p.get()] = ts;
      inputs.insert(inputs.end(), ts.begin(), ts.end());
    }
    evaluate(f->body);
    Tensors outputs = values_.at(f->body.get());
    // An output must be computed by the function: a passed-through input (or a tensor returned
    // twice) gets a copy stage of its own.
    for (size_t i = 0; i < outputs.size(); ++i) {
      bool repeated = false;
      for (size_t j = 0; j < i; ++j) repeated = repeated || outputs[j] == outputs[i];
      if (outputs[i].op()->kind == te::OpKind::kPlaceholder || repeated)
        outputs[i] = topi::unaryOp("copy", outputs[i]);
    }
    Tensors args = inputs;
    args.insert(args.end(), constantTensors_.begin(), constantTensors_.end());
    args.insert(args.end(), outputs.begin(), outputs.end());
    return LoweredFunction{te::createPrimFunc(args), constants_};
  }

 private:
  void evaluate(const Expr& root) {
    std::vector<std::pair<Expr, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      if (values_.count(e.get())) continue;
      if (!expanded) {
        stack.emplace_back(e, true);
        for (const Expr& child : operandsOf(e)) stack.emplace_back(child, false);
        continue;
      }
      values_[e.get()] = lowerNode(e);
    }
  }

  Tensors operandTensors(const Expr& e) {
    Tensors out;
    for (const Expr& child : operandsOf(e)) {
      const Tensors& ts = values_.at(child.get());
      out.insert(out.end(), ts.begin(), ts.end());
    }
    return out;
  }

  Tensors lowerNode(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kCall:
        return lowerCall(e);
      case ExprKind::kTuple:
        return operandTensors(e);
      case ExprKind::kTupleGetItem: {
        const auto* get = e->as<TupleGetItemNode>();
        const Tensors& tuple = values_.at(get->tuple.get());
        return {tuple.at(static_cast<size_t>(get->index))};
      }
      case ExprKind::kConstant:
        return lowerConstant(e);
      case ExprKind::kVar:
        throwDiagnostic("lower_te",
                        "variable " + e->as<VarNode>()->nameHint +
                            " is not a parameter of the primitive function",
                        e->span);
      default:
        throwDiagnostic("lower_te",
                        "a primitive function may contain only calls of ops, tuples and "
                        "constants, found " +
                            exprSummary(e),
                        e->span);
    }
  }

  Tensors lowerCall(const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call->op->as<OpNode>();
    if (!op)
      throwDiagnostic(
          "lower_te",
          "only calls of ops can be lowered to TE, found a call of " + exprSummary(call->op),
          e->span);
    const FTVMCompute* compute = getOpAttr<FTVMCompute>(op->name, kComputeAttr);
    if (!compute) throwDiagnostic("lower_te", "op " + op->name + " has no TE compute", e->span);
    return (*compute)(call->attrs, operandTensors(e), typeOfExpr(e));
  }

  // A scalar constant is folded into the expression; others become extra parameters.
  Tensors lowerConstant(const Expr& e) {
    const auto* c = e->as<ConstantNode>();
    if (!c->hasData())
      throwDiagnostic("lower_te", "a constant without data cannot be lowered", e->span);
    const NDArray& data = c->data;
    if (data.ndim() == 0) {
      const double v =
          data.dtype().isFloat() ? data.getFloat(0) : static_cast<double>(data.getInt(0));
      return {topi::fullConst({}, data.dtype(), v, "T_constant")};
    }
    const std::string name = "constant_" + std::to_string(constants_.size());
    Tensor t = placeholdersFor(typeOfExpr(e), name)[0];
    constants_.push_back(data);
    constantTensors_.push_back(t);
    return {t};
  }

  std::unordered_map<const ExprNode*, Tensors> values_;
  std::vector<NDArray> constants_;
  Tensors constantTensors_;
};

}  // namespace

LoweredFunction lowerPrimitive(const Function& primitiveFunction) {
  registerComputes();
  return Lowerer().run(primitiveFunction);
}

tir::PrimFunc lowerToPrimFunc(const Function& primitiveFunction) {
  return lowerPrimitive(primitiveFunction).func;
}

}  // namespace tessera::relay::strategy
