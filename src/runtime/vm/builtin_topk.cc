// The VM builtins dyn.topk and shape_of (runtime/vm/builtin_ops.h). topk selects with
// a partial sort whose order breaks ties by index, where the reference kernel (relay/op/topk.cc)
// stable-sorts the whole axis: two ways to the same answer, compared by the tests.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "runtime/vm/builtin_ops.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm::builtin {
namespace {

// True when `a` ranks before `b` among the largest: NaN first (torch.topk), then by value.
template <typename T>
bool ranksAbove(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
  }
  return a > b;
}

DataType intOfBits(int64_t bits) {
  return bits == 32 ? DataType::int32() : DataType::int64();
}

}  // namespace

VMValue topK(const std::vector<NDArray>& args) {
  const NDArray& x = argAt(args, 0, "dyn.topk");
  const NDArray& kArg = argAt(args, 1, "dyn.topk");
  const std::vector<int64_t> attrs = attrsOf(args, 4, "dyn.topk");
  const auto rank = static_cast<int64_t>(x.ndim());
  const int64_t axis = attrs[0] < 0 ? attrs[0] + rank : attrs[0];
  const bool ascending = attrs[1] != 0;
  const int64_t retType = attrs[2];  // 0 both, 1 values, 2 indices
  if (rank == 0 || axis < 0 || axis >= rank || kArg.numel() != 1 || !kArg.dtype().isInteger())
    throwDiagnostic("vm_builtin", "dyn.topk: takes data of rank >= 1 and an integer k, got " +
                                      x.describe() + " and " + kArg.describe());
  const std::vector<int64_t>& shape = x.shape();
  const int64_t extent = shape[axis], k = kArg.getInt(0);
  if (k < 0 || k > extent)
    throwDiagnostic("topk_k", "dyn.topk: k = " + std::to_string(k) + " is outside [0, " +
                                  std::to_string(extent) + "] for axis " + std::to_string(axis));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
  std::vector<int64_t> outShape = shape;
  outShape[axis] = k;
  NDArray values = NDArray::empty(outShape, x.dtype());
  NDArray indices = NDArray::empty(outShape, intOfBits(attrs[3]));
  const auto bytes = static_cast<size_t>(x.dtype().bytes());
  const auto* src = static_cast<const char*>(x.data());
  auto* dst = static_cast<char*>(values.data());
  withValues(x, [&](const auto& v) {
    std::vector<int64_t> slot(static_cast<size_t>(extent));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        const int64_t base = o * extent * inner + in;
        std::iota(slot.begin(), slot.end(), int64_t{0});
        std::partial_sort(slot.begin(), slot.begin() + k, slot.end(), [&](int64_t p, int64_t q) {
          const auto a = v[base + p * inner], b = v[base + q * inner];
          if (ranksAbove(a, b) || ranksAbove(b, a))
            return ascending ? ranksAbove(b, a) : ranksAbove(a, b);
          return p < q;
        });
        for (int64_t e = 0; e < k; ++e) {
          const int64_t to = (o * k + e) * inner + in;
          std::memcpy(dst + to * bytes, src + (base + slot[e] * inner) * bytes, bytes);
          indices.setInt(to, slot[e]);
        }
      }
    }
    return 0;
  });
  if (retType == 1) return VMValue{values, nullptr};
  if (retType == 2) return VMValue{indices, nullptr};
  auto tuple = std::make_shared<std::vector<VMValue>>();
  tuple->push_back({values, nullptr});
  tuple->push_back({indices, nullptr});
  return VMValue{{}, tuple};
}

VMValue shapeOf(const std::vector<NDArray>& args) {
  const NDArray& x = argAt(args, 0, "shape_of");
  const std::vector<int64_t> attrs = attrsOf(args, 1, "shape_of");
  NDArray out = NDArray::empty({static_cast<int64_t>(x.ndim())}, intOfBits(attrs[0]));
  for (int64_t k = 0; k < x.ndim(); ++k) out.setInt(k, x.shape()[k]);
  return VMValue{out, nullptr};
}

}  // namespace tessera::runtime::vm::builtin
