// Graph-level types: TensorType (shape + dtype), TupleType, FuncType, IncompleteType. Shapes hold
// integer dims, symbolic variables, or Any ("?"). Types are immutable and shared by reference.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/data_type.h"

namespace tessera {

/// A named symbolic size (e.g. the "m" of a (1, m) shape). Identity is the object.
struct SymVarNode {
  std::string name;
};
using SymVar = std::shared_ptr<const SymVarNode>;

/// One dimension of a shape: a known extent, a symbolic variable, or unknown (Any, printed "?").
class Dim {
 public:
  enum class Kind : uint8_t { kConst, kVar, kAny };

  Dim(int64_t value) : kind_(Kind::kConst), value_(value) {}  // NOLINT: implicit on purpose
  static Dim any() { return Dim(Kind::kAny); }
  static Dim var(SymVar v) {
    Dim d(Kind::kVar);
    d.var_ = std::move(v);
    return d;
  }

  Kind kind() const { return kind_; }
  bool isConst() const { return kind_ == Kind::kConst; }
  bool isAny() const { return kind_ == Kind::kAny; }
  bool isVar() const { return kind_ == Kind::kVar; }
  /// The extent; only valid for kConst.
  int64_t value() const;
  const SymVar& symVar() const { return var_; }
  std::string str() const;

  friend bool operator==(const Dim& a, const Dim& b) {
    return a.kind_ == b.kind_ && a.value_ == b.value_ && a.var_ == b.var_;
  }

 private:
  explicit Dim(Kind kind) : kind_(kind) {}
  Kind kind_;
  int64_t value_ = 0;
  SymVar var_;
};

using Shape = std::vector<Dim>;

/// "(1, 3, ?, m)"; a 1-D shape prints as "(16)".
std::string shapeToString(const Shape& shape);
/// The static extents, or nullopt when any dim is symbolic or Any.
std::optional<std::vector<int64_t>> staticShape(const Shape& shape);
Shape makeShape(const std::vector<int64_t>& dims);

enum class TypeKind : uint8_t { kTensor, kTuple, kFunc, kIncomplete };

class TypeNode;
using Type = std::shared_ptr<const TypeNode>;

/// Base of every type. `kind` selects the concrete subclass (see as<T>()).
class TypeNode {
 public:
  explicit TypeNode(TypeKind kind) : kind(kind) {}
  virtual ~TypeNode() = default;
  const TypeKind kind;

  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

class TensorTypeNode : public TypeNode {
 public:
  static constexpr TypeKind kKind = TypeKind::kTensor;
  TensorTypeNode(Shape shape, DataType dtype)
      : TypeNode(kKind), shape(std::move(shape)), dtype(dtype) {}
  const Shape shape;
  const DataType dtype;
  int ndim() const { return static_cast<int>(shape.size()); }
};

class TupleTypeNode : public TypeNode {
 public:
  static constexpr TypeKind kKind = TypeKind::kTuple;
  explicit TupleTypeNode(std::vector<Type> fields) : TypeNode(kKind), fields(std::move(fields)) {}
  const std::vector<Type> fields;
};

class FuncTypeNode : public TypeNode {
 public:
  static constexpr TypeKind kKind = TypeKind::kFunc;
  FuncTypeNode(std::vector<Type> argTypes, Type retType)
      : TypeNode(kKind), argTypes(std::move(argTypes)), retType(std::move(retType)) {}
  const std::vector<Type> argTypes;
  const Type retType;
};

/// A type hole ("_" in text) that inference fills in. Each object is a distinct unknown.
class IncompleteTypeNode : public TypeNode {
 public:
  static constexpr TypeKind kKind = TypeKind::kIncomplete;
  IncompleteTypeNode() : TypeNode(kKind) {}
};

Type tensorType(Shape shape, DataType dtype);
Type tensorType(const std::vector<int64_t>& shape, DataType dtype);
/// Resolves `tensorType({1, 3}, dtype)` to static extents (a braced list would otherwise be
/// ambiguous).
Type tensorType(std::initializer_list<int64_t> shape, DataType dtype);
Type scalarType(DataType dtype);
Type tupleType(std::vector<Type> fields);
Type funcType(std::vector<Type> argTypes, Type retType);
Type incompleteType();

/// The text format's spelling: "Tensor[(1, 3), float32]", "float32", "(T1, T2)", "fn (T) -> R",
/// "_".
std::string typeToString(const Type& type);
/// Symbolic variables of one type matched to those of another (first occurrence binds).
using SymVarMap = std::map<const SymVarNode*, const SymVarNode*>;

/// Structural equality (IncompleteType compares by identity). Symbolic dims compare by identity,
/// or, when `symMap` is given, are matched by first occurrence and the matches recorded there.
bool typeEqual(const Type& a, const Type& b, SymVarMap* symMap = nullptr);
uint64_t typeHash(const Type& type);
/// True when the type has no IncompleteType inside.
bool isCompleteType(const Type& type);

}  // namespace tessera
