// The VM builtin scatter_elements (runtime/vm/builtin_ops.h): one pass over the indices in
// row-major order, with the destination's offset carried along by an odometer, so the cost is one
// copy of the data plus one step per update. The reference kernel is relay/op/scatter_elements.cc.
#include <cstring>
#include <string>

#include "runtime/vm/builtin_ops.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm::builtin {
namespace {

enum class Reduction : int64_t { kUpdate = 0, kAdd = 1, kMul = 2, kMin = 3, kMax = 4 };

template <typename T>
void combine(T* out, T u, Reduction r) {
  switch (r) {
    case Reduction::kUpdate:
      *out = u;
      break;
    case Reduction::kAdd:
      *out = static_cast<T>(*out + u);
      break;
    case Reduction::kMul:
      *out = static_cast<T>(*out * u);
      break;
    case Reduction::kMin:
      *out = u < *out ? u : *out;
      break;
    case Reduction::kMax:
      *out = u > *out ? u : *out;
      break;
  }
}

// Calls f(T{}) with the C++ type of `dtype`; false for a dtype without one here.
template <typename F>
bool withElementType(DataType dtype, F&& f) {
  if (dtype == DataType::float32()) return f(float{}), true;
  if (dtype == DataType::float64()) return f(double{}), true;
  if (dtype == DataType::int64()) return f(int64_t{}), true;
  if (dtype == DataType::int32()) return f(int32_t{}), true;
  if (dtype == DataType::int8()) return f(int8_t{}), true;
  if (dtype == DataType::uint8()) return f(uint8_t{}), true;
  return false;
}

}  // namespace

VMValue scatterElements(const std::vector<NDArray>& args) {
  const NDArray& data = argAt(args, 0, "scatter_elements");
  const NDArray& indices = argAt(args, 1, "scatter_elements");
  const NDArray& updates = argAt(args, 2, "scatter_elements");
  const std::vector<int64_t> attrs = attrsOf(args, 2, "scatter_elements");
  const std::vector<int64_t>& d = data.shape();
  const std::vector<int64_t>& q = indices.shape();
  const auto rank = static_cast<int64_t>(d.size());
  const int64_t axis = attrs[0] < 0 ? attrs[0] + rank : attrs[0];
  const auto reduction = static_cast<Reduction>(attrs[1]);
  if (axis < 0 || axis >= rank || static_cast<int64_t>(q.size()) != rank || updates.shape() != q ||
      updates.dtype() != data.dtype())
    throwDiagnostic("vm_builtin", "scatter_elements: indices " + indices.describe() +
                                      " and updates " + updates.describe() + " do not fit data " +
                                      data.describe() + " along axis " + std::to_string(attrs[0]));
  for (int64_t k = 0; k < rank; ++k)
    if (k != axis && q[k] > d[k])
      throwDiagnostic("vm_builtin", "scatter_elements: indices " + indices.describe() +
                                        " exceed the data " + data.describe() + " on axis " +
                                        std::to_string(k));
  if (indices.dtype() != DataType::int64() && indices.dtype() != DataType::int32())
    throwDiagnostic("vm_builtin",
                    "scatter_elements: indices must be int32 or int64, got " + indices.describe());
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1);
  for (int64_t k = rank - 2; k >= 0; --k) stride[k] = stride[k + 1] * d[k + 1];

  NDArray out = data.copy();
  const int64_t count = indices.numel();
  const bool wide = indices.dtype() == DataType::int64();
  // The destination of update p without its axis term: the coordinates of p on the other axes.
  std::vector<int64_t> c(static_cast<size_t>(rank), 0);
  int64_t base = 0;
  auto destination = [&](int64_t p) {
    const int64_t index = wide ? indices.as<int64_t>()[p] : indices.as<int32_t>()[p];
    if (index < -d[axis] || index >= d[axis])
      throwDiagnostic("vm_builtin", "scatter_elements: index " + std::to_string(index) +
                                        " is out of range for axis " + std::to_string(axis) +
                                        " of extent " + std::to_string(d[axis]));
    const int64_t at = base + (index < 0 ? index + d[axis] : index) * stride[axis];
    for (int64_t k = rank - 1; k >= 0; --k) {  // the odometer, last axis fastest
      const int64_t step = k == axis ? 0 : stride[k];
      if (++c[k] < q[k]) {
        base += step;
        break;
      }
      base -= (q[k] - 1) * step;
      c[k] = 0;
    }
    return at;
  };
  if (reduction == Reduction::kUpdate) {
    const int64_t size = data.dtype().bytes();
    auto* dst = static_cast<char*>(out.data());
    const auto* src = static_cast<const char*>(updates.data());
    for (int64_t p = 0; p < count; ++p)
      std::memcpy(dst + destination(p) * size, src + p * size, static_cast<size_t>(size));
    return VMValue{out, nullptr};
  }
  const bool typed = withElementType(data.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* dst = out.as<T>();
    const T* src = updates.as<T>();
    for (int64_t p = 0; p < count; ++p) combine(dst + destination(p), src[p], reduction);
  });
  if (!typed)
    throwDiagnostic("vm_builtin", "scatter_elements: a reduction over " + data.describe() +
                                      " is not supported (float32/64, int8/32/64, uint8)");
  return VMValue{out, nullptr};
}

}  // namespace tessera::runtime::vm::builtin
