// StructInfo: the static information Relax attaches to every expression (spec tir_relax.md §5.1):
// a tensor with an optional shape (int64 PrimExprs, symbolic dimensions are tir::Vars) and dtype,
// a tuple of struct infos, a shape value, or "any object".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "runtime/data_type.h"
#include "tir/expr.h"

namespace tessera::relax {

enum class StructInfoKind : uint8_t { kObject, kTensor, kTuple, kShape };

class StructInfoNode;
using StructInfo = std::shared_ptr<const StructInfoNode>;

class StructInfoNode {
 public:
  StructInfoKind kind = StructInfoKind::kObject;
  /// Tensor: the dimensions when known; Shape: the values.
  std::optional<std::vector<tir::PrimExpr>> shape;
  DataType dtype;                  ///< tensor element type; void = unknown
  int ndim = -1;                   ///< tensor rank; -1 = unknown
  std::vector<StructInfo> fields;  ///< tuple fields

  bool isTensor() const { return kind == StructInfoKind::kTensor; }
};

StructInfo objectSInfo();
/// A tensor of known shape; every dimension must be an int64 expression.
StructInfo tensorSInfo(std::vector<tir::PrimExpr> shape, DataType dtype);
/// A tensor of known rank only.
StructInfo tensorSInfoNdim(int ndim, DataType dtype);
StructInfo tupleSInfo(std::vector<StructInfo> fields);
StructInfo shapeSInfo(std::vector<tir::PrimExpr> values);

/// An int64 constant dimension.
tir::PrimExpr dim(int64_t value);

/// The symbolic dimensions of one function, created by name the way TVMScript's `R.Tensor((1,
/// "m"))` does: the same name in one scope is the same variable.
class SymbolScope {
 public:
  /// A dimension written as a number or a variable name.
  using Dim = std::variant<int64_t, std::string>;
  /// The int64 shape variable named `name` (created on first use).
  tir::Var var(const std::string& name);
  /// A tensor whose dimensions are numbers or names of this scope's variables.
  StructInfo tensor(const std::vector<Dim>& dims, DataType dtype);

 private:
  std::map<std::string, tir::Var> vars_;
};

/// A dimension as Relax prints it: `4` for a constant, `n`, `n * 4` otherwise.
std::string dimString(const tir::PrimExpr& d);
/// The TVMScript form: `R.Tensor((1, n), dtype="float32")`. With `quoteVars`, variables print as
/// strings (`"n"`), as in a function signature.
std::string sinfoScript(const StructInfo& sinfo, bool quoteVars = false);
/// Whether two struct infos are the same (dimensions compared structurally).
bool sinfoEqual(const StructInfo& a, const StructInfo& b);
/// Replaces shape variables (BindParams, emitTe's mapping back to the caller's variables).
StructInfo substituteSInfo(const StructInfo& sinfo,
                           const std::unordered_map<const tir::VarNode*, tir::PrimExpr>& map);

}  // namespace tessera::relax
