// BindParams: bound parameters become constants; each symbolic dimension of a bound parameter is
// matched against the constant's concrete size and the value is substituted into the remaining
// signature, every binding's struct info and call_tir/call_dps_packed out_sinfo. PrimFuncs stay
// symbolic.
#include "relax/bind_params.h"

#include <unordered_map>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"

namespace tessera::relax {

namespace {

using VarMap = std::unordered_map<const tir::VarNode*, tir::PrimExpr>;

[[noreturn]] void bindError(const std::string& message) {
  throwDiagnostic("bind_params", message);
}

void matchShape(const Var& param, const NDArray& value, VarMap& values) {
  const StructInfoNode& s = *param->sinfo;
  if (!s.isTensor()) bindError("parameter '" + param->name + "' is not a tensor");
  if (!s.dtype.isVoid() && s.dtype != value.dtype())
    bindError("parameter '" + param->name + "' has dtype " + s.dtype.name() + ", the value " +
              value.dtype().name());
  if (s.ndim >= 0 && s.ndim != value.ndim())
    bindError("parameter '" + param->name + "' has rank " + std::to_string(s.ndim) +
              ", the value " + std::to_string(value.ndim()));
  if (!s.shape) return;
  for (int i = 0; i < value.ndim(); ++i) {
    const tir::PrimExpr& d = (*s.shape)[i];
    int64_t actual = value.shape()[i];
    if (const auto* v = d->as<tir::VarNode>()) {
      auto [it, inserted] = values.emplace(v, dim(actual));
      if (!inserted && *tir::asConstInt(it->second) != actual)
        bindError("symbolic dimension '" + v->name + "' is " + dimString(it->second) +
                  " from an earlier parameter but " + std::to_string(actual) + " in '" +
                  param->name + "'");
      continue;
    }
    const int64_t* c = tir::asConstInt(d);
    if (c && *c != actual)
      bindError("parameter '" + param->name + "' dimension " + std::to_string(i) + " is " +
                std::to_string(*c) + ", the value has " + std::to_string(actual));
  }
}

/// Rebuilds `e` with bound parameters replaced and shapes substituted (expressions are ANF, so the
/// recursion depth is bounded by tuple nesting, not by program size).
Expr rewrite(const Expr& e, const std::unordered_map<const ExprNode*, Expr>& vars,
             const VarMap& values) {
  if (auto it = vars.find(e.get()); it != vars.end()) return it->second;
  if (const auto* call = e->as<CallNode>()) {
    auto copy = std::make_shared<CallNode>(*call);
    for (Expr& a : copy->args) a = rewrite(a, vars, values);
    for (StructInfo& s : copy->sinfoArgs) s = substituteSInfo(s, values);
    copy->sinfo = substituteSInfo(call->sinfo, values);
    return copy;
  }
  if (const auto* tuple = e->as<TupleNode>()) {
    std::vector<Expr> fields;
    for (const Expr& f : tuple->fields) fields.push_back(rewrite(f, vars, values));
    return makeTuple(std::move(fields));
  }
  if (const auto* item = e->as<TupleGetItemNode>())
    return makeTupleGetItem(rewrite(item->tuple, vars, values), item->index);
  if (const auto* shape = e->as<ShapeExprNode>()) {
    std::vector<tir::PrimExpr> v;
    for (const tir::PrimExpr& d : shape->values) v.push_back(tir::substitute(d, values));
    return makeShapeExpr(std::move(v));
  }
  return e;
}

}  // namespace

IRModule bindParams(const IRModule& module, const std::string& funcName,
                    const std::map<std::string, NDArray>& params) {
  Function func = module.relaxFunction(funcName);
  std::unordered_map<const ExprNode*, Expr> replaced;
  VarMap values;
  for (const auto& [name, value] : params) {
    Var found;
    for (const Var& p : func->params) {
      if (p->name != name) continue;
      if (found)
        bindError("function '" + funcName + "' contains multiple parameters with name '" + name +
                  "'");
      found = p;
    }
    if (!found)
      bindError("function '" + funcName + "' does not have parameter with name '" + name + "'");
    matchShape(found, value, values);
    replaced[found.get()] = makeConstant(value);
  }
  auto result = std::make_shared<FunctionNode>(*func);
  result->params.clear();
  // Variables are rebuilt when their struct info changes, so every use must be remapped too.
  auto remapVar = [&](const Var& v) {
    StructInfo s = substituteSInfo(v->sinfo, values);
    Var nv = std::make_shared<VarNode>(v->name, s, v->dataflow);
    replaced[v.get()] = nv;
    return nv;
  };
  for (const Var& p : func->params)
    if (!replaced.count(p.get())) result->params.push_back(remapVar(p));
  for (BindingBlock& block : result->blocks)
    for (Binding& b : block.bindings) {
      b.value = rewrite(b.value, replaced, values);
      b.var = remapVar(b.var);
    }
  result->body = rewrite(func->body, replaced, values);
  result->ret = substituteSInfo(func->ret, values);
  IRModule out = module;
  out.update(funcName, Function(result));
  return out;
}

}  // namespace tessera::relax
