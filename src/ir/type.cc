#include "ir/type.h"

#include <sstream>

#include "support/check.h"
#include "support/hash.h"

namespace tessera {

int64_t Dim::value() const {
  TS_CHECK(kind_ == Kind::kConst) << "dimension " << str() << " is not a constant";
  return value_;
}

std::string Dim::str() const {
  switch (kind_) {
    case Kind::kConst:
      return std::to_string(value_);
    case Kind::kAny:
      return "?";
    case Kind::kVar:
      return var_->name;
  }
  return "?";
}

std::string shapeToString(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].str();
  return s + ")";
}

std::optional<std::vector<int64_t>> staticShape(const Shape& shape) {
  std::vector<int64_t> dims;
  dims.reserve(shape.size());
  for (const Dim& d : shape) {
    if (!d.isConst()) return std::nullopt;
    dims.push_back(d.value());
  }
  return dims;
}

Shape makeShape(const std::vector<int64_t>& dims) {
  return Shape(dims.begin(), dims.end());
}

Type tensorType(Shape shape, DataType dtype) {
  return std::make_shared<TensorTypeNode>(std::move(shape), dtype);
}
Type tensorType(const std::vector<int64_t>& shape, DataType dtype) {
  return tensorType(makeShape(shape), dtype);
}
Type tensorType(std::initializer_list<int64_t> shape, DataType dtype) {
  return tensorType(std::vector<int64_t>(shape), dtype);
}
Type scalarType(DataType dtype) {
  return tensorType(Shape{}, dtype);
}
Type tupleType(std::vector<Type> fields) {
  return std::make_shared<TupleTypeNode>(std::move(fields));
}
Type funcType(std::vector<Type> argTypes, Type retType) {
  return std::make_shared<FuncTypeNode>(std::move(argTypes), std::move(retType));
}
Type incompleteType() {
  return std::make_shared<IncompleteTypeNode>();
}

std::string typeToString(const Type& type) {
  if (!type) return "<null type>";
  switch (type->kind) {
    case TypeKind::kTensor: {
      const auto* t = type->as<TensorTypeNode>();
      if (t->shape.empty()) return t->dtype.name();
      return "Tensor[" + shapeToString(t->shape) + ", " + t->dtype.name() + "]";
    }
    case TypeKind::kTuple: {
      const auto* t = type->as<TupleTypeNode>();
      std::string s = "(";
      for (size_t i = 0; i < t->fields.size(); ++i)
        s += (i ? ", " : "") + typeToString(t->fields[i]);
      if (t->fields.size() == 1) s += ",";
      return s + ")";
    }
    case TypeKind::kFunc: {
      const auto* t = type->as<FuncTypeNode>();
      std::string s = "fn (";
      for (size_t i = 0; i < t->argTypes.size(); ++i)
        s += (i ? ", " : "") + typeToString(t->argTypes[i]);
      return s + ") -> " + typeToString(t->retType);
    }
    case TypeKind::kIncomplete:
      return "_";
  }
  return "?";
}

namespace {
bool dimsEqual(const Shape& xs, const Shape& ys, SymVarMap* symMap) {
  if (xs.size() != ys.size()) return false;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (symMap && xs[i].isVar() && ys[i].isVar()) {
      auto [it, inserted] = symMap->emplace(xs[i].symVar().get(), ys[i].symVar().get());
      if (it->second != ys[i].symVar().get()) return false;
      continue;
    }
    if (!(xs[i] == ys[i])) return false;
  }
  return true;
}
}  // namespace

bool typeEqual(const Type& a, const Type& b, SymVarMap* symMap) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case TypeKind::kTensor: {
      const auto* x = a->as<TensorTypeNode>();
      const auto* y = b->as<TensorTypeNode>();
      return x->dtype == y->dtype && dimsEqual(x->shape, y->shape, symMap);
    }
    case TypeKind::kTuple: {
      const auto& xs = a->as<TupleTypeNode>()->fields;
      const auto& ys = b->as<TupleTypeNode>()->fields;
      if (xs.size() != ys.size()) return false;
      for (size_t i = 0; i < xs.size(); ++i)
        if (!typeEqual(xs[i], ys[i], symMap)) return false;
      return true;
    }
    case TypeKind::kFunc: {
      const auto* x = a->as<FuncTypeNode>();
      const auto* y = b->as<FuncTypeNode>();
      if (x->argTypes.size() != y->argTypes.size()) return false;
      for (size_t i = 0; i < x->argTypes.size(); ++i)
        if (!typeEqual(x->argTypes[i], y->argTypes[i], symMap)) return false;
      return typeEqual(x->retType, y->retType, symMap);
    }
    case TypeKind::kIncomplete:
      return false;  // distinct holes are distinct unknowns
  }
  return false;
}

uint64_t typeHash(const Type& type) {
  if (!type) return 0;
  uint64_t h = static_cast<uint64_t>(type->kind) + 1;
  switch (type->kind) {
    case TypeKind::kTensor: {
      const auto* t = type->as<TensorTypeNode>();
      h = hashCombine(h, hashString(t->dtype.name()));
      for (const Dim& d : t->shape)
        // Symbolic dims hash by kind only: structural equality matches them by position, not name.
        h = hashCombine(h,
                        d.isConst() ? static_cast<uint64_t>(d.value()) : (d.isAny() ? 0x3f : 0x5e));
      return h;
    }
    case TypeKind::kTuple:
      for (const Type& f : type->as<TupleTypeNode>()->fields) h = hashCombine(h, typeHash(f));
      return h;
    case TypeKind::kFunc: {
      const auto* t = type->as<FuncTypeNode>();
      for (const Type& a : t->argTypes) h = hashCombine(h, typeHash(a));
      return hashCombine(h, typeHash(t->retType));
    }
    case TypeKind::kIncomplete:
      return h;
  }
  return h;
}

bool isCompleteType(const Type& type) {
  if (!type) return false;
  switch (type->kind) {
    case TypeKind::kTensor:
      return true;
    case TypeKind::kTuple:
      for (const Type& f : type->as<TupleTypeNode>()->fields)
        if (!isCompleteType(f)) return false;
      return true;
    case TypeKind::kFunc: {
      const auto* t = type->as<FuncTypeNode>();
      for (const Type& a : t->argTypes)
        if (!isCompleteType(a)) return false;
      return isCompleteType(t->retType);
    }
    case TypeKind::kIncomplete:
      return false;
  }
  return false;
}

}  // namespace tessera
