// Struct info construction, printing and substitution.
#include "relax/struct_info.h"

#include <unordered_map>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"

namespace tessera::relax {

StructInfo objectSInfo() {
  return std::make_shared<StructInfoNode>();
}

StructInfo tensorSInfo(std::vector<tir::PrimExpr> shape, DataType dtype) {
  for (const tir::PrimExpr& d : shape)
    if (d->dtype != DataType::int64())
      throwDiagnostic("relax_shape", "tensor dimension " + tir::toString(d) +
                                         " must be int64, got " + d->dtype.name());
  auto node = std::make_shared<StructInfoNode>();
  node->kind = StructInfoKind::kTensor;
  node->ndim = static_cast<int>(shape.size());
  node->shape = std::move(shape);
  node->dtype = dtype;
  return node;
}

StructInfo tensorSInfoNdim(int ndim, DataType dtype) {
  auto node = std::make_shared<StructInfoNode>();
  node->kind = StructInfoKind::kTensor;
  node->ndim = ndim;
  node->dtype = dtype;
  return node;
}

StructInfo tupleSInfo(std::vector<StructInfo> fields) {
  auto node = std::make_shared<StructInfoNode>();
  node->kind = StructInfoKind::kTuple;
  node->fields = std::move(fields);
  return node;
}

StructInfo shapeSInfo(std::vector<tir::PrimExpr> values) {
  auto node = std::make_shared<StructInfoNode>();
  node->kind = StructInfoKind::kShape;
  node->ndim = static_cast<int>(values.size());
  node->shape = std::move(values);
  return node;
}

tir::PrimExpr dim(int64_t value) {
  return tir::intImm(value, DataType::int64());
}

tir::Var SymbolScope::var(const std::string& name) {
  auto it = vars_.find(name);
  if (it != vars_.end()) return it->second;
  tir::Var v = tir::makeVar(name, DataType::int64());
  vars_.emplace(name, v);
  return v;
}

StructInfo SymbolScope::tensor(const std::vector<Dim>& dims, DataType dtype) {
  std::vector<tir::PrimExpr> shape;
  for (const Dim& d : dims) {
    if (const auto* value = std::get_if<int64_t>(&d))
      shape.push_back(dim(*value));
    else
      shape.push_back(var(std::get<std::string>(d)));
  }
  return tensorSInfo(std::move(shape), dtype);
}

std::string dimString(const tir::PrimExpr& d) {
  if (const int64_t* v = tir::asConstInt(d)) return std::to_string(*v);
  return tir::toString(d);
}

namespace {

std::string dimScript(const tir::PrimExpr& d, bool quoteVars) {
  if (const int64_t* v = tir::asConstInt(d)) return std::to_string(*v);
  std::string text = tir::toString(d);
  return quoteVars ? "\"" + text + "\"" : text;
}

std::string shapeTuple(const std::vector<tir::PrimExpr>& shape, bool quoteVars) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += dimScript(shape[i], quoteVars);
  }
  // Python's one-element tuple keeps its comma.
  return out + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string sinfoScript(const StructInfo& sinfo, bool quoteVars) {
  switch (sinfo->kind) {
    case StructInfoKind::kObject:
      return "R.Object";
    case StructInfoKind::kTensor: {
      std::string dtype = "dtype=\"" + sinfo->dtype.name() + "\"";
      if (sinfo->shape)
        return "R.Tensor(" + shapeTuple(*sinfo->shape, quoteVars) + ", " + dtype + ")";
      if (sinfo->ndim < 0) return "R.Tensor(" + dtype + ")";
      return "R.Tensor(" + dtype + ", ndim=" + std::to_string(sinfo->ndim) + ")";
    }
    case StructInfoKind::kTuple: {
      if (sinfo->fields.empty()) return "R.Tuple";
      std::string out = "R.Tuple(";
      for (size_t i = 0; i < sinfo->fields.size(); ++i)
        out += (i ? ", " : "") + sinfoScript(sinfo->fields[i], quoteVars);
      return out + ")";
    }
    case StructInfoKind::kShape: {
      std::string out = "R.Shape([";
      for (size_t i = 0; i < sinfo->shape->size(); ++i)
        out += (i ? ", " : "") + dimScript((*sinfo->shape)[i], quoteVars);
      return out + "])";
    }
  }
  return "R.Object";
}

bool sinfoEqual(const StructInfo& a, const StructInfo& b) {
  if (a->kind != b->kind || a->dtype != b->dtype || a->ndim != b->ndim) return false;
  if (a->shape.has_value() != b->shape.has_value()) return false;
  if (a->shape) {
    if (a->shape->size() != b->shape->size()) return false;
    for (size_t i = 0; i < a->shape->size(); ++i)
      if (!tir::deepEqual((*a->shape)[i], (*b->shape)[i])) return false;
  }
  if (a->fields.size() != b->fields.size()) return false;
  for (size_t i = 0; i < a->fields.size(); ++i)
    if (!sinfoEqual(a->fields[i], b->fields[i])) return false;
  return true;
}

StructInfo substituteSInfo(const StructInfo& sinfo,
                           const std::unordered_map<const tir::VarNode*, tir::PrimExpr>& map) {
  auto node = std::make_shared<StructInfoNode>(*sinfo);
  if (node->shape)
    for (tir::PrimExpr& d : *node->shape) d = tir::substitute(d, map);
  for (StructInfo& f : node->fields) f = substituteSInfo(f, map);
  return node;
}

}  // namespace tessera::relax
