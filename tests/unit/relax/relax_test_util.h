// Helpers shared by the Relax tests: diagnostics as text, random tensors, float comparison.
#pragma once

#include <functional>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "runtime/ndarray.h"
#include "support/diagnostic.h"

namespace tessera::relax_test {

/// "code: message" of the DiagnosticError `f` throws, or "no error".
inline std::string diagnosticOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const DiagnosticError& e) {
    return e.diagnostic().code + ": " + e.diagnostic().message;
  }
  return "no error";
}

inline NDArray randomTensor(std::vector<int64_t> shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  NDArray a = NDArray::empty(std::move(shape), DataType::float32());
  for (int64_t i = 0; i < a.numel(); ++i) a.as<float>()[i] = dist(rng);
  return a;
}

inline void expectClose(const NDArray& got, const NDArray& want, double tol = 1e-4) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_NEAR(got.getFloat(i), want.getFloat(i), tol) << "element " << i;
}

}  // namespace tessera::relax_test
