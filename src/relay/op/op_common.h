// Helpers shared by the op families: common type relations (identity, broadcast), axis
// normalisation, and the building blocks of reference kernels (output allocation, broadcast
// indexing).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/type.h"
#include "relay/op_registry.h"
#include "relay/value.h"

namespace tessera::relay {

// --- type relations ------------------------------------------------------------------------------

/// Output type = input 0's type.
std::optional<Type> identityRel(const TypeReporter& r);
/// Numpy-style broadcast of two shapes (spec §3 "broadcast rel"); reports `code` through `r` on a
/// mismatch, naming both shapes.
Shape broadcastShapes(const Shape& a, const Shape& b, const TypeReporter& r,
                      const std::string& code = "broadcast");
/// Broadcast relation of two same-dtype tensors; the output dtype is `outDtype` if set, else the
/// input's.
std::optional<Type> broadcastRel(const TypeReporter& r, DataType outDtype = DataType::voidType());
/// Normalises a possibly negative axis into [0, rank); reports an error naming the op otherwise.
int normalizeAxis(int64_t axis, int rank, const TypeReporter& r, const std::string& code = "axis");

/// "[1, 2, 3]" — an integer list as diagnostics spell it.
std::string listToString(const std::vector<int64_t>& v);

/// The call's attrs as T, or T's defaults when a call was built without attrs.
template <typename T>
const T& attrsOrDefault(const AttrsNode* attrs) {
  static const T defaults{};
  const T* a = attrsAs<T>(attrs);
  return a ? *a : defaults;
}

// --- reference kernel helpers --------------------------------------------------------------------

/// Argument i as a tensor (an internal error if it is a tuple).
const NDArray& tensorAt(const std::vector<Value>& args, size_t i);
/// A zero-filled output for a static tensor type.
NDArray allocTensor(const Type& type);
/// Static dims of a tensor type.
std::vector<int64_t> staticDims(const Type& type);

/// Maps flat indices of a broadcast output back to flat indices of one input.
class BroadcastIndexer {
 public:
  BroadcastIndexer(const std::vector<int64_t>& inShape, const std::vector<int64_t>& outShape);
  /// The input's flat index for the output's flat index.
  int64_t map(int64_t outIndex) const;
  /// How far the input's index moves when the output's last coordinate grows by one (0 where the
  /// input is broadcast along it): along a row of the output, map(start + j) = map(start) + j * it.
  int64_t innerStride() const { return inStrides_.empty() ? 0 : inStrides_.back(); }

 private:
  std::vector<int64_t> outShape_;
  std::vector<int64_t> inStrides_;  // 0 for broadcast axes, aligned to outShape_
};

/// Unpacks a row-major flat index into coordinates of `shape`.
std::vector<int64_t> unravelIndex(int64_t index, const std::vector<int64_t>& shape);
/// Three-way comparison of elements i and j of `x` by value; NaNs are equal to each other and
/// above every number (numpy's sort and unique, torch.topk's largest).
int compareElements(const NDArray& x, int64_t i, int64_t j);
/// Packs coordinates into a row-major flat index.
int64_t ravelIndex(const std::vector<int64_t>& coords, const std::vector<int64_t>& shape);

/// Runs an op's type relation once on complete argument types (a test and pass utility). Throws
/// DiagnosticError for a type error; an internal error if the relation cannot decide.
Type inferCallType(const std::string& opName, const std::vector<Type>& argTypes,
                   Attrs attrs = nullptr);

/// Runs an op's reference kernel: infers the output type from the arguments' types, then evaluates.
Value evalOp(const std::string& opName, const std::vector<Value>& args, Attrs attrs = nullptr);

/// The type of a value (TensorType of an NDArray, TupleType of a tuple).
Type valueType(const Value& v);

}  // namespace tessera::relay
