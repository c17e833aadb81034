// The VM builtins that give a tensor a shape read at run time: dyn.reshape and
// dyn.strided_slice (runtime/vm/builtin_ops.h). Their reference kernels are in
// relay/op/shape_of.cc and relay/op/dyn_slice.cc.
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/vm/builtin_ops.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm::builtin {

// ONNX Reshape's reading (0 copies the input's extent, one -1 is inferred), into a buffer of
// its own: the VM may reuse the argument's storage once it is dead.
VMValue dynReshape(const std::vector<NDArray>& args) {
  const NDArray& x = argAt(args, 0, "dyn.reshape");
  const NDArray& spec = argAt(args, 1, "dyn.reshape");
  std::vector<int64_t> shape(static_cast<size_t>(spec.numel()));
  int64_t known = 1;
  int inferred = -1;
  for (int64_t k = 0; k < spec.numel(); ++k) {
    int64_t e = spec.getInt(k);
    if (e == 0 && k < x.ndim()) e = x.shape()[k];
    if (e == -1 && inferred < 0)
      inferred = static_cast<int>(k);
    else if (e < 0)
      throwDiagnostic("vm_builtin", "dyn.reshape: newshape " + spec.describe() +
                                        " has the extent " + std::to_string(e));
    else
      known *= e;
    shape[k] = e;
  }
  if (inferred >= 0) shape[inferred] = known > 0 ? x.numel() / known : -1;
  int64_t numel = 1;
  for (int64_t e : shape) numel *= e;
  if (numel != x.numel() || (inferred >= 0 && shape[inferred] < 0))
    throwDiagnostic("vm_builtin", "dyn.reshape: cannot reshape " + x.describe() +
                                      " to the values of " + spec.describe());
  return VMValue{x.copy().reshaped(shape), nullptr};
}

// begin, end and strides along `axes` (attrs = [count, axes...], or [0]: the leading axes),
// clamped as ONNX Slice clamps. Rows of the innermost axis with stride 1 are copied whole.
VMValue dynStridedSlice(const std::vector<NDArray>& args) {
  const NDArray& x = argAt(args, 0, "dyn.strided_slice");
  const NDArray& begin = argAt(args, 1, "dyn.strided_slice");
  const NDArray& end = argAt(args, 2, "dyn.strided_slice");
  const NDArray& strides = argAt(args, 3, "dyn.strided_slice");
  const std::vector<int64_t> attrs = attrsOf(args, 1, "dyn.strided_slice");
  const auto rank = static_cast<int64_t>(x.ndim());
  const int64_t count = begin.numel();
  if (end.numel() != count || strides.numel() != count || (attrs[0] == 0 && count > rank) ||
      (attrs[0] != 0 && (attrs[0] != count || static_cast<int64_t>(attrs.size()) < count + 1)))
    throwDiagnostic("vm_builtin", "dyn.strided_slice: begin " + begin.describe() + ", end " +
                                      end.describe() + " and strides " + strides.describe() +
                                      " do not fit " + x.describe());
  std::vector<int64_t> first(static_cast<size_t>(rank), 0), step(first.size(), 1),
      shape = x.shape();
  for (int64_t i = 0; i < count; ++i) {
    int64_t axis = attrs[0] == 0 ? i : attrs[1 + i];
    if (axis < 0) axis += rank;
    const int64_t d = x.shape()[axis], t = strides.getInt(i);
    int64_t b = begin.getInt(i), e = end.getInt(i);
    if (t == 0) throwDiagnostic("vm_builtin", "dyn.strided_slice: a stride is 0");
    if (b < 0) b += d;
    if (e < 0) e += d;
    if (t > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      shape[axis] = e > b ? (e - b + t - 1) / t : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      shape[axis] = b > e ? (b - e - t - 1) / -t : 0;
    }
    first[axis] = b;
    step[axis] = t;
  }
  NDArray out = NDArray::empty(shape, x.dtype());
  if (out.numel() == 0) return VMValue{out, nullptr};
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1);
  for (int64_t k = rank - 2; k >= 0; --k) stride[k] = stride[k + 1] * x.shape()[k + 1];
  const int64_t size = x.dtype().bytes();
  const int64_t inner = rank == 0 ? 1 : shape[rank - 1];
  const bool contiguous = rank == 0 || step[rank - 1] == 1;
  const auto* src = static_cast<const char*>(x.data());
  auto* dst = static_cast<char*>(out.data());
  std::vector<int64_t> c(static_cast<size_t>(rank), 0);  // output coordinates, last axis aside
  for (int64_t row = 0; row < out.numel() / inner; ++row) {
    int64_t from = 0;
    for (int64_t k = 0; k < rank; ++k) from += (first[k] + c[k] * step[k]) * stride[k];
    if (contiguous) {
      std::memcpy(dst, src + from * size, static_cast<size_t>(inner * size));
      dst += inner * size;
    } else {
      for (int64_t j = 0; j < inner; ++j, dst += size)
        std::memcpy(dst, src + (from + j * step[rank - 1]) * size, static_cast<size_t>(size));
    }
    for (int64_t k = rank - 2; k >= 0; --k) {  // the odometer over the outer axes
      if (++c[k] < shape[k]) break;
      c[k] = 0;
    }
  }
  return VMValue{out, nullptr};
}

}  // namespace tessera::runtime::vm::builtin
