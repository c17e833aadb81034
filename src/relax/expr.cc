// Construction helpers for Relax expressions and the module's name table.
#include "relax/expr.h"

#include "support/diagnostic.h"

namespace tessera::relax {

Var makeVar(std::string name, StructInfo sinfo) {
  return std::make_shared<VarNode>(std::move(name), std::move(sinfo), false);
}

Var makeDataflowVar(std::string name, StructInfo sinfo) {
  return std::make_shared<VarNode>(std::move(name), std::move(sinfo), true);
}

Expr makeConstant(NDArray data) {
  std::vector<tir::PrimExpr> shape;
  for (int64_t d : data.shape()) shape.push_back(dim(d));
  StructInfo sinfo = tensorSInfo(std::move(shape), data.dtype());
  return std::make_shared<ConstantNode>(std::move(data), std::move(sinfo));
}

Expr makeTuple(std::vector<Expr> fields) {
  std::vector<StructInfo> infos;
  for (const Expr& f : fields) infos.push_back(f->sinfo);
  return std::make_shared<TupleNode>(std::move(fields), tupleSInfo(std::move(infos)));
}

Expr makeTupleGetItem(Expr tuple, int index) {
  const StructInfo& t = tuple->sinfo;
  if (t->kind != StructInfoKind::kTuple)
    throwDiagnostic("relax_tuple", "TupleGetItem: expected a tuple, got " + sinfoScript(t));
  if (index < 0 || index >= static_cast<int>(t->fields.size()))
    throwDiagnostic("relax_tuple", "TupleGetItem: index " + std::to_string(index) +
                                       " out of range for " + sinfoScript(t));
  StructInfo field = t->fields[index];
  return std::make_shared<TupleGetItemNode>(std::move(tuple), index, std::move(field));
}

Expr makeShapeExpr(std::vector<tir::PrimExpr> values) {
  return std::make_shared<ShapeExprNode>(std::move(values));
}

Expr makeGlobalVar(std::string name) {
  return std::make_shared<GlobalVarNode>(std::move(name));
}

Expr makeExternFunc(std::string name) {
  return std::make_shared<ExternFuncNode>(std::move(name));
}

bool isLeaf(const Expr& e) {
  return e->kind != ExprKind::kCall && e->kind != ExprKind::kTuple &&
         e->kind != ExprKind::kTupleGetItem;
}

void IRModule::add(const std::string& name, Func func) {
  if (contains(name))
    throwDiagnostic("relax_module", "module already has a function named '" + name + "'");
  entries_.push_back({name, std::move(func)});
}

void IRModule::update(const std::string& name, Func func) {
  for (Entry& e : entries_) {
    if (e.name != name) continue;
    e.func = std::move(func);
    return;
  }
  throwDiagnostic("relax_module", "update_func: module has no function named '" + name + "'");
}

bool IRModule::contains(const std::string& name) const {
  return find(name) != nullptr;
}

const IRModule::Func* IRModule::find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e.func;
  return nullptr;
}

Function IRModule::relaxFunction(const std::string& name) const {
  const Func* f = find(name);
  if (!f || !std::holds_alternative<Function>(*f))
    throwDiagnostic("relax_module", "module has no Relax function named '" + name + "'");
  return std::get<Function>(*f);
}

tir::PrimFunc IRModule::primFunc(const std::string& name) const {
  const Func* f = find(name);
  if (!f || !std::holds_alternative<tir::PrimFunc>(*f))
    throwDiagnostic("relax_module", "module has no PrimFunc named '" + name + "'");
  return std::get<tir::PrimFunc>(*f);
}

std::string IRModule::uniqueName(const std::string& name) const {
  if (!contains(name)) return name;
  for (int i = 1;; ++i) {
    std::string candidate = name + std::to_string(i);
    if (!contains(candidate)) return candidate;
  }
}

tir::PrimFunc withAttr(const tir::PrimFunc& func, const std::string& key, AttrValue value) {
  if (key != "global_symbol" || value.kind() != AttrValue::Kind::kString)
    return tir::withAttr(func, key, std::move(value));
  auto copy = std::make_shared<tir::PrimFuncNode>(*tir::withAttr(func, key, value));
  copy->name = value.asString();
  return copy;
}

}  // namespace tessera::relax
