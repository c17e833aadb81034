// Differential checks of the op strategy: a relay module is fused (FuseOps), every primitive
// function is lowered with lowerToPrimFunc and run with tir::evaluate, and the result is compared
// with the reference interpreter on the original module. One case = one line of relay text.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "relay/module.h"
#include "relay/value.h"

namespace tessera::test {

/// One differential case: a relay module in text form with its input range and tolerance.
struct OpCase {
  std::string name;  ///< test name suffix (letters, digits, underscores)
  std::string text;  ///< `def @main(...) { ... }`
  double lo = -1.0;  ///< inputs are uniform in [lo, hi) (integers rounded)
  double hi = 1.0;
  double rtol = 1e-5;
  double atol = 1e-5;
};

/// GoogleTest prints a case by its name.
inline void PrintTo(const OpCase& c, std::ostream* os) {
  *os << c.name;
}

/// Runs `fused` (FuseOps output) through the compiled path: primitive functions are lowered to
/// TensorIR and evaluated; op calls left outside functions are lowered one by one.
relay::Value runLowered(const relay::IRModule& fused, const std::vector<relay::Value>& inputs);

/// Seeded inputs for main's parameters in [lo, hi).
std::vector<relay::Value> rangedInputs(const relay::IRModule& m, uint64_t seed, double lo,
                                       double hi);

/// Interpreter on the module vs the lowered path after FuseOps, on two seeds.
::testing::AssertionResult matchesInterpreter(const OpCase& c);

/// Interpreter vs compiled code: the module is built with driver::build (optimization, FuseOps,
/// default x86 schedules, lowering, LLVM) and run by the graph executor, on two seeds.
/// `plainLoops`: built at opt level 0 without the default schedules instead (the graph fuzzer's
/// plain build: every kernel is the plain loop nest of its TE computes).
::testing::AssertionResult compiledMatchesInterpreter(const OpCase& c, bool plainLoops = false);

/// The op names a case's module calls (for the catalogue-coverage test).
std::vector<std::string> opsCalled(const std::string& text);

/// The case tables, one per family file.
const std::vector<OpCase>& elementwiseCases();
const std::vector<OpCase>& tensorCases();
const std::vector<OpCase>& nnCases();

}  // namespace tessera::test
