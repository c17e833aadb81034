// The ALU path on its own (spec vta.md §6.4, §7.4's ALU tests): an int32 tensor loaded into the
// accumulator by DMA, an elementwise stage computed in place by the ALU, stored back (truncated
// to int8 by the store). Run on the simulator against the same arithmetic on the CPU; an
// operation the ALU does not have is a located error.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "te/create_prim_func.h"
#include "te/tensor.h"
#include "test_util.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"
#include "vta/tir/host_program.h"
#include "vta/tir/passes.h"

namespace tessera::vta {
namespace {

using tir::PrimExpr;
using Op = std::function<PrimExpr(PrimExpr)>;

std::vector<PrimExpr> exprs(const std::vector<tir::Var>& v) {
  return {v.begin(), v.end()};
}

// X (rows, BATCH, BLOCK_OUT) int32 -> X_acc -> Y_acc = op(X_acc) -> Y int8.
tir::PrimFunc aluProgram(const Config& c, int64_t rows, const Op& op) {
  const std::vector<int64_t> shape = {rows, c.batch(), c.blockOut()};
  const te::Tensor x = te::placeholder(shape, DataType::int32(), "X");
  const te::Tensor xAcc = te::compute(
      shape, [&](const std::vector<tir::Var>& i) { return x(exprs(i)); }, "X_acc");
  const te::Tensor yAcc = te::compute(
      shape, [&](const std::vector<tir::Var>& i) { return op(xAcc(exprs(i))); }, "Y_acc");
  const te::Tensor y = te::compute(
      shape,
      [&](const std::vector<tir::Var>& i) { return tir::cast(DataType::int8(), yAcc(exprs(i))); },
      "Y");
  tir::Schedule sch(te::createPrimFunc({x, y}));
  for (const char* stage : {"X_acc", "Y_acc"})
    sch.setScope(sch.getBlock(stage), 0, "local.acc_buffer");
  sch.annotate(sch.getLoops(sch.getBlock("X_acc"))[0], "pragma_dma_copy", AttrValue::integer(1));
  sch.annotate(sch.getLoops(sch.getBlock("Y_acc"))[0], "pragma_alu", AttrValue::integer(1));
  sch.annotate(sch.getLoops(sch.getBlock("Y"))[0], "pragma_dma_copy", AttrValue::integer(1));
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, c);
  return tir::transform::lower(sch.func(), ctx);
}

TEST(VtaAluCompiled, InPlaceOperationsMatchTheCpu) {
  const Config cfg = Config::defaults();
  const int64_t rows = 8, lanes = rows * cfg.batch() * cfg.blockOut();
  struct Case {
    const char* name;
    Op op;
    std::function<int32_t(int32_t)> ref;
  };
  const Case cases[] = {
      {"shr",
       [](PrimExpr v) {
         return tir::call(v->dtype, "tir.shift_right", {v, tir::intImm(3)});
       },
       [](int32_t v) { return v >> 3; }},
      {"shl",
       [](PrimExpr v) {
         return tir::call(v->dtype, "tir.shift_left", {v, tir::intImm(2)});
       },
       [](int32_t v) { return v * 4; }},
      {"add", [](PrimExpr v) { return v + tir::intImm(5); }, [](int32_t v) { return v + 5; }},
      {"max", [](PrimExpr v) { return tir::max(v, tir::intImm(0)); },
       [](int32_t v) { return std::max(v, 0); }},
      {"min", [](PrimExpr v) { return tir::min(v, tir::intImm(7)); },
       [](int32_t v) { return std::min(v, 7); }},
  };
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> value(-1000, 1000);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<int32_t> x(static_cast<size_t>(lanes));
    for (int32_t& v : x) v = value(rng);
    CommandQueue q(cfg);
    const DeviceBuffer dx = q.bufferAlloc(x.size() * 4), dy = q.bufferAlloc(x.size());
    q.bufferCopyIn(x.data(), dx, 0, x.size() * 4);
    runOnVta(aluProgram(cfg, rows, c.op), q, {dx, dy});
    std::vector<int8_t> y(x.size());
    q.bufferCopyOut(dy, 0, y.data(), y.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], int8_t(c.ref(x[i]))) << "lane " << i;
    // One ACC load of the 8 entries, one ALU op over them, one store.
    EXPECT_EQ(q.stats().accLoadNbytes, uint64_t(rows) * cfg.batch() * cfg.blockOut() * 4);
    EXPECT_EQ(q.stats().aluCounter, uint64_t(rows));
  }
}

TEST(VtaAluCompiled, AnOperationTheAluLacksIsAnError) {
  const Config cfg = Config::defaults();
  const Diagnostic d = test::diagnosticOf(
      [&] { aluProgram(cfg, 4, [](PrimExpr v) { return v - tir::intImm(1); }); });
  EXPECT_EQ(d.code, "vta_alu");
  EXPECT_NE(d.message.find("is unsupported on the VTA ALU"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::vta
