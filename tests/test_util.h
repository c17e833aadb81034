// Shared test helpers: seeded random tensors, tolerant comparison, golden-file access.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "relay/module.h"
#include "relay/value.h"
#include "runtime/ndarray.h"
#include "support/diagnostic.h"

namespace tessera::test {

/// A tensor of uniform random values in [lo, hi) (integers: rounded), from a fixed seed.
NDArray randomTensor(const std::vector<int64_t>& shape, DataType dtype, uint64_t seed,
                     double lo = -1.0, double hi = 1.0);
/// A tensor filled from a list of values (converted to dtype).
NDArray tensorOf(const std::vector<int64_t>& shape, DataType dtype,
                 const std::vector<double>& values);
/// All elements as doubles (row-major).
std::vector<double> valuesOf(const NDArray& a);
/// Same shape and dtype, and |a - b| <= atol + rtol * |b| element-wise (exact for integers when
/// both tolerances are 0).
::testing::AssertionResult allClose(const NDArray& a, const NDArray& b, double rtol = 1e-5,
                                    double atol = 1e-6);
::testing::AssertionResult valuesClose(const relay::Value& a, const relay::Value& b,
                                       double rtol = 1e-5, double atol = 1e-6);
/// Seeded random values for every parameter of `fn` of `module` (static tensor types only).
std::vector<relay::Value> randomInputs(const relay::IRModule& module, uint64_t seed,
                                       const std::string& fn = "main");
/// The differential check every pass test uses: runs `before` and `after` with the interpreter on
/// `trials` sets of seeded random inputs and compares the results (exactly for integer outputs).
::testing::AssertionResult sameBehaviour(const relay::IRModule& before,
                                         const relay::IRModule& after, int trials = 3,
                                         double rtol = 1e-5, double atol = 1e-5);
/// The DiagnosticError `fn` throws; records a test failure (and returns an empty one) when it
/// throws none.
template <typename F>
Diagnostic diagnosticOf(F fn) {
  try {
    fn();
  } catch (const DiagnosticError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "expected a DiagnosticError";
  return {};
}

/// Path of a file in the source tree (TESSERA_SOURCE_DIR is set by CTest).
std::string sourcePath(const std::string& relative);
std::string readFile(const std::string& path);

}  // namespace tessera::test
