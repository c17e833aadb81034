// Block primitives on functions made by te::createPrimFunc (the form every TE compute takes):
// a dense + bias + relu pipeline scheduled the way an x86 dense schedule is (inline the bias,
// tile the output, compute the matmul per tile, cache its writes), and a row reduction
// factorised with rfactor. Each result is checked against the unscheduled function.
#include <gtest/gtest.h>

#include "schedule_test_util.h"
#include "te/create_prim_func.h"
#include "te/reduce.h"

namespace tessera::tir::testing {
namespace {

using te::ComputeOptions;
using te::Tensor;

PrimFunc denseBiasRelu(int64_t n, int64_t m, int64_t k) {
  Tensor x = te::placeholder({n, k}, DataType::float32(), "X");
  Tensor w = te::placeholder({k, m}, DataType::float32(), "W");
  Tensor b = te::placeholder({m}, DataType::float32(), "bias");
  IterVar r = te::reduceAxis(0, k, "k");
  Tensor mm = te::compute(
      {n, m}, [&](Var i, Var j) { return te::sum(x(i, r.var) * w(r.var, j), {r}); },
      ComputeOptions{.name = "matmul", .indexNames = {"i", "j"}});
  Tensor add = te::compute(
      {n, m}, [&](Var i, Var j) { return mm(i, j) + b(j); },
      ComputeOptions{.name = "add", .indexNames = {"i", "j"}});
  Tensor relu = te::compute(
      {n, m}, [&](Var i, Var j) { return max(add(i, j), floatImm(0)); },
      ComputeOptions{.name = "relu", .indexNames = {"i", "j"}});
  return te::createPrimFunc({x, w, b, relu});
}

TEST(BlockPrimitivesOnTe, TiledDenseBiasRelu) {
  PrimFunc f = denseBiasRelu(24, 32, 20);
  Schedule sch(f, 5);
  sch.computeInline(sch.getBlock("add"));
  BlockRV relu = sch.getBlock("relu");
  std::vector<LoopRV> l = sch.getLoops(relu);
  std::vector<LoopRV> i = sch.split(l[0], {std::monostate{}, int64_t{8}});
  std::vector<LoopRV> j = sch.split(l[1], {std::monostate{}, int64_t{16}});
  sch.reorder({i[0], j[0], i[1], j[1]});
  BlockRV mm = sch.getBlock("matmul");
  sch.computeAt(mm, j[0]);
  BlockRV local = sch.cacheWrite(mm, 0, "local");
  EXPECT_EQ(sch.get(local)->name, "matmul_local");
  sch.parallel(i[0]);
  expectSameResults(f, sch.func());
  std::string s = toScript(sch.func());
  EXPECT_NE(s.find("for ax0, ax1, ax2 in T.grid(8, 16, 20):"), std::string::npos) << s;
  EXPECT_EQ(s.find("T.block(\"add\")"), std::string::npos) << s;
}

TEST(BlockPrimitivesOnTe, RowSumRFactorAndReverseInline) {
  Tensor a = te::placeholder({6, 32}, DataType::float32(), "A");
  IterVar r = te::reduceAxis(0, 32, "k");
  Tensor s = te::compute(
      {6}, [&](Var i) { return te::sum(a(i, r.var), {r}); },
      ComputeOptions{.name = "rowsum", .indexNames = {"i"}});
  Tensor t = te::compute(
      {6}, [&](Var i) { return s(i) * floatImm(0.5); },
      ComputeOptions{.name = "scaled", .indexNames = {"i"}});
  Tensor e = te::compute(
      {6}, [&](Var i) { return t(i) + floatImm(1); },
      ComputeOptions{.name = "shifted", .indexNames = {"i"}});
  PrimFunc f = te::createPrimFunc({a, e});
  Schedule sch(f, 5);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("rowsum"));
  std::vector<LoopRV> k = sch.split(l[1], {std::monostate{}, int64_t{8}});
  BlockRV rf = sch.rfactor(k[1], 1);
  EXPECT_EQ(sch.get(rf)->name, "rowsum_rf");
  sch.reverseComputeInline(sch.getBlock("shifted"));
  expectSameResults(f, sch.func());
}

}  // namespace
}  // namespace tessera::tir::testing
