// Small kernels for the schedule-rule, postprocessor and mutator tests, made as the strategies
// make them (TE computes through create_prim_func): a matmul, a matmul with a ReLU epilogue, a
// padded conv2d, a softmax, an elementwise chain and a row sum; and a check that a trace
// (postprocessed when asked) computes what the unscheduled kernel computes.
#pragma once

#include <gtest/gtest.h>

#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "te/tensor.h"
#include "tir/schedule/attempt.h"
#include "topi/elemwise.h"
#include "topi/nn.h"
#include "tune/postproc/postproc.h"
#include "unit/tir/schedule_test_util.h"

namespace tessera::tune::testing {

inline tir::PrimFunc matmul(int64_t n, int64_t m, int64_t k, bool relu = false) {
  using namespace te;
  Tensor a = placeholder({n, k}, DataType::float32(), "A");
  Tensor b = placeholder({k, m}, DataType::float32(), "B");
  IterVar r = reduceAxis(0, k, "k");
  Tensor c = compute(
      {n, m}, [&](Var i, Var j) { return sum(a(i, r.var) * b(r.var, j), {r}); },
      ComputeOptions{.name = "C", .indexNames = {"i", "j"}});
  if (!relu) return createPrimFunc({a, b, c});
  return createPrimFunc({a, b, topi::relu(c)});
}

inline tir::PrimFunc conv2d() {
  using namespace te;
  Tensor data = placeholder({1, 4, 8, 8}, DataType::float32(), "data");
  Tensor weight = placeholder({8, 4, 3, 3}, DataType::float32(), "weight");
  topi::Conv2DParams p;
  p.padding = {1, 1, 1, 1};
  return createPrimFunc({data, weight, topi::conv2dNchw(data, weight, p)});
}

inline tir::PrimFunc softmax() {
  te::Tensor x = te::placeholder({2, 96}, DataType::float32(), "x");
  return te::createPrimFunc({x, topi::softmax(x, 1)});
}

/// B = A + 1, C = B * 2, D = relu(C).
inline tir::PrimFunc elementwiseChain() {
  using namespace te;
  Tensor a = placeholder({16, 32}, DataType::float32(), "A");
  Tensor b = compute(
      {16, 32}, [&](Var i, Var j) { return a(i, j) + tir::floatImm(1); }, "B");
  Tensor c = compute(
      {16, 32}, [&](Var i, Var j) { return b(i, j) * tir::floatImm(2); }, "C");
  return createPrimFunc({a, topi::relu(c)});
}

/// S[i] = sum_k A[i, k]: two rows of 512 (little spatial parallelism: AddRFactor's case).
inline tir::PrimFunc rowSum() {
  using namespace te;
  Tensor a = placeholder({2, 512}, DataType::float32(), "A");
  IterVar r = reduceAxis(0, 512, "k");
  Tensor s = compute(
      {2}, [&](Var i) { return sum(a(i, r.var), {r}); },
      ComputeOptions{.name = "S", .indexNames = {"i"}});
  return createPrimFunc({a, s});
}

/// `trace` replayed on `func` (and postprocessed when asked); fails the test when it does not
/// apply.
inline tir::PrimFunc replay(const tir::PrimFunc& func, const tir::Trace& trace, bool postprocess) {
  tir::Schedule sch(func, 0);
  const Applicability a = tir::attempt(sch, [&](tir::Schedule& s) {
    tir::applyTrace(s, trace);
    return postprocess ? postproc::applyPostprocs(s, postproc::defaultPostprocs())
                       : Applicability::yes();
  });
  EXPECT_TRUE(a.applies) << a.reason << "\n" << trace.str();
  return sch.func();
}

/// The count of `needle` in `text`.
inline size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace tessera::tune::testing
