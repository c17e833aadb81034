// VMShapeVars: numbering shape variables and writing shape expressions in the runtime's form.
#include "lower/relay/vm_shapes.h"

#include "relay/shape_func.h"
#include "support/diagnostic.h"

namespace tessera::lower {

using runtime::vm::ShapeExpr;

tir::Var VMShapeVars::fresh(const std::string& hint) {
  tir::Var v = tir::makeSizeVar(hint + std::to_string(index_.size()), DataType::int64());
  index_.emplace(v.get(), static_cast<int>(index_.size()));
  return v;
}

relay::SymValue VMShapeVars::freshShape(const Type& type, const std::string& hint) {
  relay::SymValue out = relay::symValueOfType(type);
  std::vector<relay::SymValue*> stack{&out};
  while (!stack.empty()) {
    relay::SymValue* v = stack.back();
    stack.pop_back();
    for (relay::SymValue& f : v->fields) stack.push_back(&f);
    for (tir::PrimExpr& d : v->shape)
      if (!d) d = fresh(hint);
  }
  return out;
}

ShapeExpr VMShapeVars::toRuntime(const tir::PrimExpr& e) const {
  ShapeExpr out;
  if (const int64_t* c = tir::asConstInt(e)) {
    out.value = *c;
    out.text = std::to_string(*c);
    return out;
  }
  if (const auto* v = e->as<tir::VarNode>()) {
    auto it = index_.find(v);
    if (it == index_.end())
      throwDiagnostic("vm_compile", "shape variable " + v->name + " is not one of the function's");
    out.kind = ShapeExpr::Kind::kVar;
    out.value = it->second;
    out.text = v->name;
    return out;
  }
  if (const auto* cast = e->as<tir::CastNode>()) return toRuntime(cast->value);
  const auto* bin = e->as<tir::BinaryNode>();
  static const std::pair<tir::BinaryOp, std::pair<ShapeExpr::Kind, const char*>> kinds[] = {
      {tir::BinaryOp::kAdd, {ShapeExpr::Kind::kAdd, " + "}},
      {tir::BinaryOp::kSub, {ShapeExpr::Kind::kSub, " - "}},
      {tir::BinaryOp::kMul, {ShapeExpr::Kind::kMul, " * "}},
      {tir::BinaryOp::kFloorDiv, {ShapeExpr::Kind::kFloorDiv, " // "}},
      {tir::BinaryOp::kMin, {ShapeExpr::Kind::kMin, " min "}},
      {tir::BinaryOp::kMax, {ShapeExpr::Kind::kMax, " max "}},
  };
  for (const auto& [op, kind] : kinds) {
    if (!bin || bin->op != op) continue;
    out.kind = kind.first;
    out.a = std::make_shared<ShapeExpr>(toRuntime(bin->a));
    out.b = std::make_shared<ShapeExpr>(toRuntime(bin->b));
    out.text = "(" + out.a->text + kind.second + out.b->text + ")";
    return out;
  }
  throwDiagnostic("vm_compile",
                  "a shape expression the VM cannot evaluate (only +, -, *, //, min "
                  "and max of dims)");
}

std::vector<ShapeExpr> VMShapeVars::toRuntime(const relay::SymShape& shape) const {
  std::vector<ShapeExpr> out;
  for (const tir::PrimExpr& d : shape) out.push_back(toRuntime(relay::simplifyDim(d)));
  return out;
}

bool hasAnyDim(const Type& type) {
  return !relay::isKnown(relay::symValueOfType(type));
}

}  // namespace tessera::lower
