// Seeded random tensors and the tensors of a (possibly nested tuple) value, for the unit tests
// (test_util.h's randomTensor, build_test_util.h) and the graph fuzzer alike. Free of GoogleTest:
// the libFuzzer targets include it too.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "relay/value.h"
#include "runtime/ndarray.h"

namespace tessera::test {

/// A tensor of uniform random values in [lo, hi) (integers: rounded down; bool: coin flips), from
/// a fixed seed.
inline NDArray uniformTensor(const std::vector<int64_t>& shape, DataType dtype, uint64_t seed,
                             double lo, double hi) {
  NDArray a = NDArray::empty(shape, dtype);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double v = dist(rng);
    if (dtype.isFloat())
      a.setFloat(i, v);
    else if (dtype.isBool())
      a.setInt(i, v > (lo + hi) / 2 ? 1 : 0);
    else
      a.setInt(i, static_cast<int64_t>(std::floor(v)));
  }
  return a;
}

/// The tensors of `value`, tuples flattened in order (as the graph executor numbers its outputs).
inline std::vector<NDArray> flattenTensors(const relay::Value& value) {
  std::vector<NDArray> out;
  std::vector<const relay::Value*> stack{&value};
  while (!stack.empty()) {
    const relay::Value* v = stack.back();
    stack.pop_back();
    if (v->isTensor()) {
      out.push_back(v->tensor());
      continue;
    }
    for (auto it = v->fields().rbegin(); it != v->fields().rend(); ++it) stack.push_back(&*it);
  }
  return out;
}

}  // namespace tessera::test
