// unique on the VM: the distinct elements (or slices along an axis) of the data, sorted or in
// order of first occurrence, with the indices of their first occurrences, the inverse indices and
// the counts (ONNX Unique's four outputs, relay's unique).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "runtime/vm/builtin_ops.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm::builtin {
namespace {

// NaNs equal each other and sort after every number (numpy's unique).
template <typename T>
int compareValues(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool an = std::isnan(a), bn = std::isnan(b);
    if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  }
  return a < b ? -1 : (a > b ? 1 : 0);
}

}  // namespace

VMValue unique(const std::vector<NDArray>& args) {
  const NDArray& x = argAt(args, 0, "unique");
  const std::vector<int64_t> attrs = attrsOf(args, 3, "unique");
  const bool sorted = attrs[0] != 0;
  int64_t axis = attrs[1] != 0 ? attrs[2] : -1;
  if (attrs[1] != 0 && axis < 0) axis += x.ndim();
  if (attrs[1] != 0 && (axis < 0 || axis >= x.ndim()))
    throwDiagnostic("vm_builtin", "unique: axis " + std::to_string(attrs[2]) +
                                      " is out of range for " + x.describe());
  // The data as `count` slices of outer x inner elements.
  int64_t outer = 1, count = x.numel(), inner = 1;
  if (axis >= 0) {
    count = x.shape()[axis];
    for (int64_t k = 0; k < x.ndim(); ++k) {
      if (k < axis) outer *= x.shape()[k];
      if (k > axis) inner *= x.shape()[k];
    }
  }
  return withValues(x, [&](const auto& v) {
    const auto compareSlices = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k)
          if (int c = compareValues(v[(o * count + a) * inner + k], v[(o * count + b) * inner + k]))
            return c;
      return 0;
    };
    // Slices by value, then by position: each run of equal slices starts at its first occurrence.
    std::vector<int64_t> order(static_cast<size_t>(count));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const int c = compareSlices(a, b);
      return c != 0 ? c < 0 : a < b;
    });
    std::vector<int64_t> firsts, counts, group(static_cast<size_t>(count));
    for (size_t k = 0; k < order.size(); ++k) {
      if (k == 0 || compareSlices(order[k - 1], order[k]) != 0) {
        firsts.push_back(order[k]);
        counts.push_back(0);
      }
      group[order[k]] = static_cast<int64_t>(firsts.size()) - 1;
      ++counts.back();
    }
    const auto groups = static_cast<int64_t>(firsts.size());
    // Output slot of each group: its sorted position, or its rank by first occurrence.
    std::vector<int64_t> slot(firsts.size());
    std::iota(slot.begin(), slot.end(), 0);
    if (!sorted) {
      std::vector<int64_t> byFirst(slot);
      std::sort(byFirst.begin(), byFirst.end(),
                [&](int64_t a, int64_t b) { return firsts[a] < firsts[b]; });
      for (int64_t k = 0; k < groups; ++k) slot[byFirst[k]] = k;
    }
    std::vector<int64_t> valuesShape{groups};
    if (axis >= 0) {
      valuesShape = x.shape();
      valuesShape[axis] = groups;
    }
    NDArray values = NDArray::empty(valuesShape, x.dtype());
    NDArray indices = NDArray::empty({groups}, DataType::int64());
    NDArray inverse = NDArray::empty({count}, DataType::int64());
    NDArray countsOut = NDArray::empty({groups}, DataType::int64());
    const size_t bytes = static_cast<size_t>(x.dtype().bytes());
    const auto* src = static_cast<const char*>(x.data());
    auto* dst = static_cast<char*>(values.data());
    for (int64_t g = 0; g < groups; ++g) {
      indices.as<int64_t>()[slot[g]] = firsts[g];
      countsOut.as<int64_t>()[slot[g]] = counts[g];
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(dst + ((o * groups + slot[g]) * inner) * bytes,
                    src + ((o * count + firsts[g]) * inner) * bytes, inner * bytes);
    }
    for (int64_t k = 0; k < count; ++k) inverse.as<int64_t>()[k] = slot[group[k]];
    auto tuple = std::make_shared<std::vector<VMValue>>();
    for (const NDArray& t : {values, indices, inverse, countsOut}) tuple->push_back({t, nullptr});
    return VMValue{{}, tuple};
  });
}

}  // namespace tessera::runtime::vm::builtin
