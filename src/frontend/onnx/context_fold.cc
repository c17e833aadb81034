// Folding at import: what GraphContext knows of a value before run time — constants, values
// computed from constants (evaluated with the interpreter when small), and values of inputs the
// model is specialised to — so that shape-like inputs become constants.
#include "frontend/onnx/context.h"

#include "relay/interp/interpreter.h"
#include "relay/op_registry.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

using relay::Expr;
using relay::ExprKind;

std::optional<NDArray> GraphContext::knownValue(const Expr& e) {
  auto c = relay::exprAs<relay::ConstantNode>(e);
  if (c && c->hasData()) return c->data;
  return specializedValue(e);
}

bool GraphContext::isSmall(const Type& t) {
  if (const auto* tuple = t->as<TupleTypeNode>()) {
    for (const Type& f : tuple->fields)
      if (!isSmall(f)) return false;
    return true;
  }
  const auto* tensor = t->as<TensorTypeNode>();
  if (!tensor) return false;
  std::optional<std::vector<int64_t>> dims = staticShape(tensor->shape);
  if (!dims) return false;
  int64_t numel = 1;
  for (int64_t d : *dims)
    if (__builtin_mul_overflow(numel, d, &numel)) return false;
  return numel <= kMaxFoldElements;
}

// Walks the computation of `e` down to its leaves: constants with data, and (with
// `throughInputs`) graph inputs that have a specialised value, which are returned. Without it a
// bound value that is not a constant depends on an input (or was too large to fold), so it ends
// the search. nullopt when `e` is not such a computation: another input, an unknown constant, a
// stateful op, a function, or an intermediate too large to evaluate at import.
std::optional<std::vector<relay::Var>> GraphContext::knownComputation(const Expr& e,
                                                                      bool throughInputs) {
  std::vector<relay::Var> inputs;
  std::vector<Expr> stack{e};
  std::unordered_set<const relay::ExprNode*> seen;
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (!seen.insert(x.get()).second) continue;
    if (const auto* c = x->as<relay::ConstantNode>()) {
      if (!c->hasData()) return std::nullopt;
      continue;
    }
    if (x->kind == ExprKind::kVar) {
      if (!throughInputs || !specialized_.count(x.get())) return std::nullopt;
      inputs.push_back(relay::exprAs<relay::VarNode>(x));
      continue;
    }
    if ((!throughInputs && boundNodes_.count(x.get())) || !isSmall(typeOf(x))) return std::nullopt;
    if (const auto* call = x->as<relay::CallNode>()) {
      const auto* op = call->op->as<relay::OpNode>();
      if (!op || op->def->stateful) return std::nullopt;
      stack.insert(stack.end(), call->args.begin(), call->args.end());
    } else if (const auto* tuple = x->as<relay::TupleNode>()) {
      stack.insert(stack.end(), tuple->fields.begin(), tuple->fields.end());
    } else if (const auto* item = x->as<relay::TupleGetItemNode>()) {
      stack.push_back(item->tuple);
    } else {
      return std::nullopt;
    }
  }
  return inputs;
}

Expr GraphContext::tryFold(const Expr& e) {
  if (e->kind == ExprKind::kConstant || !knownComputation(e, false)) return e;
  relay::Value v = relay::evaluateClosed(e);
  if (!v.isTensor()) return e;
  Expr folded = relay::makeConstant(v.tensor());
  (void)typeOf(folded);
  forgetIntermediates(e);
  return folded;
}

// The type cache holds the expressions it types. Those a fold replaced (down to the bound values
// they read) are forgotten, so a transposed weight does not keep the original alive.
void GraphContext::forgetIntermediates(const Expr& root) {
  std::vector<Expr> stack{root};
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (boundNodes_.count(x.get()) || !types_.erase(x.get())) continue;
    if (const auto* call = x->as<relay::CallNode>())
      stack.insert(stack.end(), call->args.begin(), call->args.end());
    else if (const auto* tuple = x->as<relay::TupleNode>())
      stack.insert(stack.end(), tuple->fields.begin(), tuple->fields.end());
    else if (const auto* item = x->as<relay::TupleGetItemNode>())
      stack.push_back(item->tuple);
  }
}

void GraphContext::setSpecializedValue(const relay::Var& param, NDArray value) {
  specialized_[param.get()] = std::move(value);
}

// A value computed from specialised inputs only (Cast(size) feeding a Range, as the expanded
// window functions do) is evaluated with those inputs' values: the function of the inputs it uses,
// applied to their values.
std::optional<NDArray> GraphContext::specializedValue(const relay::Expr& e) {
  if (auto it = specialized_.find(e.get()); it != specialized_.end()) return it->second;
  if (specialized_.empty() || e->kind == ExprKind::kVar) return std::nullopt;
  std::optional<std::vector<relay::Var>> inputs = knownComputation(e, true);
  if (!inputs || inputs->empty()) return std::nullopt;
  std::vector<Expr> values;
  for (const relay::Var& v : *inputs)
    values.push_back(relay::makeConstant(specialized_.at(v.get())));
  relay::Value v = relay::evaluateClosed(
      relay::makeCall(relay::makeFunction(std::move(*inputs), e), std::move(values)));
  if (!v.isTensor()) return std::nullopt;
  return v.tensor();
}

// Shape-like inputs must be constants by now: everything computable at import has been folded, so
// a non-constant here really depends on run-time data.
}  // namespace tessera::frontend::onnx
