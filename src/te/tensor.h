// Tensor expressions: tensors produced by operations (placeholders and computes over index
// variables), and the producer-load expression that reads one. A TE graph is turned into a
// TensorIR PrimFunc by createPrimFunc (te/create_prim_func.h). Spec: tir_relax.md §1.1–§1.3.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/attr_value.h"
#include "tir/buffer.h"
#include "tir/expr.h"

namespace tessera::te {

using tir::Buffer;
using tir::IterVar;
using tir::PrimExpr;
using tir::Range;
using tir::Var;

class OperationNode;
using Operation = std::shared_ptr<const OperationNode>;

/// One output of an operation. Reading it at an index (`A(i, j)`) gives a producer load.
class Tensor {
 public:
  Tensor() = default;
  Tensor(Operation op, int valueIndex) : op_(std::move(op)), valueIndex_(valueIndex) {}

  bool defined() const { return op_ != nullptr; }
  const Operation& op() const { return op_; }
  int valueIndex() const { return valueIndex_; }
  /// The buffer that stands for this tensor in TensorIR (name, shape and dtype of the tensor).
  const Buffer& buffer() const;
  const std::vector<PrimExpr>& shape() const;
  DataType dtype() const;
  const std::string& name() const;
  int ndim() const { return static_cast<int>(shape().size()); }

  /// A read of the tensor at `indices` (one per dimension).
  PrimExpr operator()(std::vector<PrimExpr> indices) const;
  template <typename... I>
  PrimExpr operator()(I... indices) const {
    return (*this)(std::vector<PrimExpr>{toIndex(indices)...});
  }

  friend bool operator==(const Tensor& a, const Tensor& b) {
    return a.op_ == b.op_ && a.valueIndex_ == b.valueIndex_;
  }

  /// An index argument as an expression: integers become int32 immediates.
  template <typename T>
  static PrimExpr toIndex(const T& v) {
    if constexpr (std::is_integral_v<T>)
      return tir::intImm(static_cast<int64_t>(v));
    else
      return PrimExpr(v);
  }

 private:
  Operation op_;
  int valueIndex_ = 0;
};

enum class OpKind : uint8_t { kPlaceholder, kCompute };

/// A placeholder (an input) or a compute (one expression per output over index variables).
class OperationNode {
 public:
  OpKind kind = OpKind::kPlaceholder;
  std::string name;
  std::string tag;  ///< TOPI category: "injective,pad", "dense", "broadcast", ...
  /// String-keyed attributes, copied into the block annotations by createPrimFunc.
  DictAttrs attrs;
  /// Inputs whose layout a schedule may change (TVM's `layout_free_placeholders` attr).
  std::vector<Tensor> layoutFreePlaceholders;
  std::vector<Buffer> outputs;  ///< one per output, in value-index order

  // Compute only:
  std::vector<IterVar> axis;        ///< one data-parallel axis per output dimension
  std::vector<IterVar> reduceAxis;  ///< the reduction's axes (empty without a reduction)
  std::vector<PrimExpr> body;       ///< one expression per output
  std::vector<Tensor> inputs;       ///< tensors the body reads, in first-use order
};

/// A producer load: a BufferLoad of the tensor's buffer that also remembers the tensor, so a
/// compute can find the operations it depends on.
class ProducerLoadNode : public tir::BufferLoadNode {
 public:
  ProducerLoadNode(Tensor tensor, std::vector<PrimExpr> indices)
      : tir::BufferLoadNode(tensor.dtype(), tensor.buffer(), std::move(indices)),
        tensor(std::move(tensor)) {}
  Tensor tensor;
};

/// The tensor a load expression reads when it is a producer load; an undefined tensor otherwise.
Tensor producerOf(const PrimExpr& e);

/// A shape given as integers or expressions.
struct ShapeArg {
  ShapeArg(std::vector<PrimExpr> dims) : dims(std::move(dims)) {}  // NOLINT: implicit on purpose
  ShapeArg(std::initializer_list<int64_t> values);                 // NOLINT
  ShapeArg(const std::vector<int64_t>& values);                    // NOLINT
  std::vector<PrimExpr> dims;
};

/// `var(name, dtype)`: a symbolic size; sizeVar is known to be non-negative.
Var var(std::string name, DataType dtype = DataType::int32());
Var sizeVar(std::string name, DataType dtype = DataType::int32());

/// An input tensor.
Tensor placeholder(ShapeArg shape, DataType dtype = DataType::float32(),
                   std::string name = "placeholder");

/// Options of a compute beyond shape and body.
struct ComputeOptions {
  std::string name = "compute";
  std::string tag = {};
  DictAttrs attrs = {};
  std::vector<Tensor> layoutFreePlaceholders = {};
  /// Index variable names; empty gives `i0, i1, ...` (C++ lambdas have no parameter names).
  std::vector<std::string> indexNames = {};
};

using FComputeMulti = std::function<std::vector<PrimExpr>(const std::vector<Var>&)>;

/// The general form: `f` receives one index variable per dimension and returns one expression per
/// output. Several outputs are named `<name>.v0`, `<name>.v1`, ...; all must be reductions that
/// differ only in value index, or none may be a reduction.
std::vector<Tensor> computeMulti(ShapeArg shape, const FComputeMulti& f, ComputeOptions options);

namespace detail {
template <typename F, size_t... Is>
PrimExpr applyVars(F& f, const std::vector<Var>& v, std::index_sequence<Is...>) {
  return PrimExpr(f(v[Is]...));
}
/// The rank a lambda expects: the first n in 0..6 for which it is invocable with n Vars; -1 for
/// the vector form.
template <typename F>
constexpr int lambdaArity() {
  if constexpr (std::is_invocable_v<F&, const std::vector<Var>&>)
    return -1;
  else if constexpr (std::is_invocable_v<F&>)
    return 0;
  else if constexpr (std::is_invocable_v<F&, Var>)
    return 1;
  else if constexpr (std::is_invocable_v<F&, Var, Var>)
    return 2;
  else if constexpr (std::is_invocable_v<F&, Var, Var, Var>)
    return 3;
  else if constexpr (std::is_invocable_v<F&, Var, Var, Var, Var>)
    return 4;
  else if constexpr (std::is_invocable_v<F&, Var, Var, Var, Var, Var>)
    return 5;
  else if constexpr (std::is_invocable_v<F&, Var, Var, Var, Var, Var, Var>)
    return 6;
  else
    return -2;
}
/// Reports a lambda whose arity differs from the rank of the shape.
[[noreturn]] void arityMismatch(const std::string& name, size_t rank, int arity);
}  // namespace detail

/// `compute(shape, [](Var i, Var j) { return A(i, j) * 2; }, {.name = "B"})`: a single-output
/// compute from a lambda over 0–6 index variables or over `const std::vector<Var>&`.
template <typename F>
Tensor compute(ShapeArg shape, F f, ComputeOptions options = {}) {
  constexpr int arity = detail::lambdaArity<F>();
  static_assert(arity != -2, "compute: the body must take 0-6 Vars or a std::vector<Var>");
  const size_t rank = shape.dims.size();
  if constexpr (arity >= 0) {
    if (static_cast<size_t>(arity) != rank) detail::arityMismatch(options.name, rank, arity);
  }
  FComputeMulti multi = [f](const std::vector<Var>& v) mutable -> std::vector<PrimExpr> {
    if constexpr (arity == -1)
      return {PrimExpr(f(v))};
    else
      return {detail::applyVars(f, v, std::make_index_sequence<static_cast<size_t>(arity)>{})};
  };
  return computeMulti(std::move(shape), multi, std::move(options))[0];
}

/// Shorthand: compute with just a name.
template <typename F>
Tensor compute(ShapeArg shape, F f, std::string name) {
  ComputeOptions options;
  options.name = std::move(name);
  return compute(std::move(shape), std::move(f), std::move(options));
}

}  // namespace tessera::te
