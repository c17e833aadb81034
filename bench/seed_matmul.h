// Seed 002's plain 128^3 matmul as tune_matmul makes it (block "C", loops i, j, k: the same
// workload key as its databases), and the median the tuning benchmarks report.
#pragma once

#include <algorithm>
#include <vector>

#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "te/tensor.h"

namespace tessera::bench {

inline tir::PrimFunc matmul128() {
  using namespace te;
  Tensor A = placeholder({128, 128}, DataType::float32(), "A");
  Tensor B = placeholder({128, 128}, DataType::float32(), "B");
  IterVar k = reduceAxis(0, 128, "k");
  Tensor C = compute(
      {128, 128}, [&](Var i, Var j) { return sum(A(i, k.var) * B(k.var, j), {k}); },
      ComputeOptions{.name = "C", .indexNames = {"i", "j"}});
  return createPrimFunc({A, B, C});
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace tessera::bench
