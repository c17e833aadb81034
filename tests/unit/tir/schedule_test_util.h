// Helpers for the schedule tests: hand-built PrimFuncs (matmul as seed 002 writes it, an
// element-wise add), and a differential check that runs a function before and after a schedule
// on the same random inputs with the reference evaluator.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "support/diagnostic.h"
#include "tir/eval/eval.h"
#include "tir/printer/printer.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"

namespace tessera::tir::testing {

inline BufferRegion point(const Buffer& b, std::vector<PrimExpr> idx) {
  BufferRegion r{b, {}};
  for (PrimExpr& i : idx) r.region.push_back(Range{i, intImm(1)});
  return r;
}

/// A root block around `body` and a function over `buffers` named "main".
inline PrimFunc withRoot(const std::vector<Buffer>& buffers, Stmt body) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->body = std::move(body);
  return makePrimFunc("main", buffers, blockRealize({}, boolImm(true), root));
}

/// C[i, j] = sum_k A[i, k] * B[k, j] with loops i, j, k over block "C" (seed 002's MyMatmul).
inline PrimFunc matmul(int64_t n = 128, int64_t m = 128, int64_t kk = 128) {
  Buffer a = makeBuffer("A", {intImm(n), intImm(kk)});
  Buffer b = makeBuffer("B", {intImm(kk), intImm(m)});
  Buffer c = makeBuffer("C", {intImm(n), intImm(m)});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  Var vi = makeVar("vi"), vj = makeVar("vj"), vk = makeVar("vk");
  auto blk = std::make_shared<BlockNode>();
  blk->name = "C";
  blk->iterVars = {{{intImm(0), intImm(n)}, vi, IterVarType::kDataPar, ""},
                   {{intImm(0), intImm(m)}, vj, IterVarType::kDataPar, ""},
                   {{intImm(0), intImm(kk)}, vk, IterVarType::kCommReduce, ""}};
  blk->reads = {point(a, {vi, vk}), point(b, {vk, vj})};
  blk->writes = {point(c, {vi, vj})};
  blk->init = bufferStore(c, floatImm(0), {vi, vj});
  blk->body = bufferStore(
      c, bufferLoad(c, {vi, vj}) + bufferLoad(a, {vi, vk}) * bufferLoad(b, {vk, vj}), {vi, vj});
  Stmt body = loopNest({i, j, k}, {intImm(n), intImm(m), intImm(kk)},
                       blockRealize({i, j, k}, boolImm(true), blk));
  return withRoot({a, b, c}, body);
}

/// B[i] = A[i] + 1 over block "B" with one loop i of `n`.
inline PrimFunc addOne(int64_t n) {
  Buffer a = makeBuffer("A", {intImm(n)});
  Buffer b = makeBuffer("B", {intImm(n)});
  Var i = makeVar("i"), vi = makeVar("vi");
  auto blk = std::make_shared<BlockNode>();
  blk->name = "B";
  blk->iterVars = {{{intImm(0), intImm(n)}, vi, IterVarType::kDataPar, ""}};
  blk->reads = {point(a, {vi})};
  blk->writes = {point(b, {vi})};
  blk->body = bufferStore(b, bufferLoad(a, {vi}) + floatImm(1), {vi});
  return withRoot({a, b}, loopNest({i}, {intImm(n)}, blockRealize({i}, boolImm(true), blk)));
}

/// B[i, j] = A[i, j] * 2 over block "B" with loops i, j.
inline PrimFunc scale2d(int64_t n, int64_t m) {
  Buffer a = makeBuffer("A", {intImm(n), intImm(m)});
  Buffer b = makeBuffer("B", {intImm(n), intImm(m)});
  Var i = makeVar("i"), j = makeVar("j"), vi = makeVar("vi"), vj = makeVar("vj");
  auto blk = std::make_shared<BlockNode>();
  blk->name = "B";
  blk->iterVars = {{{intImm(0), intImm(n)}, vi, IterVarType::kDataPar, ""},
                   {{intImm(0), intImm(m)}, vj, IterVarType::kDataPar, ""}};
  blk->reads = {point(a, {vi, vj})};
  blk->writes = {point(b, {vi, vj})};
  blk->body = bufferStore(b, bufferLoad(a, {vi, vj}) * floatImm(2), {vi, vj});
  return withRoot(
      {a, b}, loopNest({i, j}, {intImm(n), intImm(m)}, blockRealize({i, j}, boolImm(true), blk)));
}

/// Runs `func` on arrays of its parameter shapes filled from `seed`; returns them after the run.
inline std::vector<NDArray> run(const PrimFunc& func, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<NDArray> args;
  for (const Buffer& b : func->paramBuffers()) {
    std::vector<int64_t> shape;
    for (const PrimExpr& e : b->shape) shape.push_back(*asConstInt(e));
    NDArray arr = NDArray::empty(shape, b->dtype);
    for (int64_t i = 0; i < arr.numel(); ++i) arr.setFloat(i, dist(rng));
    args.push_back(arr);
  }
  evaluate(func, args);
  return args;
}

/// The scheduled function computes what the original computes (every buffer, same inputs).
inline void expectSameResults(const PrimFunc& before, const PrimFunc& after, uint64_t seed = 7) {
  std::vector<NDArray> x = run(before, seed);
  std::vector<NDArray> y = run(after, seed);
  ASSERT_EQ(x.size(), y.size());
  for (size_t a = 0; a < x.size(); ++a) {
    for (int64_t i = 0; i < x[a].numel(); ++i) {
      ASSERT_NEAR(x[a].getFloat(i), y[a].getFloat(i), 1e-4) << "buffer " << a << " element " << i;
    }
  }
}

/// The message of the schedule error `fn` throws (fails the test when it throws none).
template <typename Fn>
std::string scheduleError(Fn&& fn) {
  try {
    fn();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "schedule");
    return e.diagnostic().message;
  }
  ADD_FAILURE() << "expected a schedule error";
  return "";
}

}  // namespace tessera::tir::testing
