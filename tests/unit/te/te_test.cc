// Tensor expressions end to end: create_prim_func + tir::evaluate against reference loops, the
// `where`/`init` behaviour TVM 0.16 gets wrong (spec §0), tuple reducers, and the errors users
// can cause.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "test_util.h"
#include "tir/eval/eval.h"
#include "tir/printer/printer.h"

namespace tessera::te {
namespace {

using test::allClose;
using test::diagnosticOf;
using test::randomTensor;
using test::tensorOf;
using test::valuesOf;

NDArray run(const tir::PrimFunc& f, std::vector<NDArray> inputs, std::vector<int64_t> outShape,
            DataType outDtype = DataType::float32()) {
  NDArray out = NDArray::empty(outShape, outDtype);
  inputs.push_back(out);
  tir::evaluate(f, inputs);
  return out;
}

TEST(TeTest, MatmulReluComputesReference) {
  Tensor a = placeholder({5, 7}, DataType::float32(), "A");
  Tensor b = placeholder({7, 3}, DataType::float32(), "B");
  IterVar k = reduceAxis(0, 7, "k");
  Tensor c =
      compute({5, 3}, [&](Var i, Var j) { return sum(a(i, k.var) * b(k.var, j), {k}); }, "matmul");
  Tensor d =
      compute({5, 3}, [&](Var i, Var j) { return te::max(c(i, j), tir::floatImm(0)); }, "relu");
  NDArray an = randomTensor({5, 7}, DataType::float32(), 1),
          bn = randomTensor({7, 3}, DataType::float32(), 2);
  NDArray out = run(createPrimFunc({a, b, d}), {an, bn}, {5, 3});
  std::vector<double> av = valuesOf(an), bv = valuesOf(bn), expect(15);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int q = 0; q < 7; ++q) s += av[i * 7 + q] * bv[q * 3 + j];
      expect[i * 3 + j] = std::max(s, 0.0);
    }
  EXPECT_TRUE(allClose(out, tensorOf({5, 3}, DataType::float32(), expect), 1e-5, 1e-5));
}

// TVM 0.16 drops `where` and ignores `init`; Tessera honours both.
TEST(TeTest, ReductionHonoursWhereAndInit) {
  Tensor a = placeholder({4, 6}, DataType::float32(), "A");
  IterVar k = reduceAxis(0, 6, "k");
  Tensor s = compute(
      {4},
      [&](Var i) {
        return sum(
            a(i, k.var), {k},
            ReduceOptions{.where = tir::lt(k.var, tir::intImm(3)), .init = tir::floatImm(10)});
      },
      "S");
  NDArray an = randomTensor({4, 6}, DataType::float32(), 3);
  tir::PrimFunc f = createPrimFunc({a, s});
  NDArray out = run(f, {an}, {4});
  std::vector<double> av = valuesOf(an), expect(4);
  for (int i = 0; i < 4; ++i) expect[i] = 10 + av[i * 6] + av[i * 6 + 1] + av[i * 6 + 2];
  EXPECT_TRUE(allClose(out, tensorOf({4}, DataType::float32(), expect), 1e-5, 1e-5));
  const std::string text = tir::toScript(f);
  EXPECT_NE(text.find("S[v_i0] = T.float32(10.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("if v_k < 3:"), std::string::npos) << text;
}

TEST(TeTest, MinMaxReductionsUseDtypeExtremes) {
  Tensor a = placeholder({3, 5}, DataType::int32(), "A");
  IterVar k = reduceAxis(0, 5, "k");
  Tensor mx = compute({3}, [&](Var i) { return te::max(a(i, k.var), {k}); }, "mx");
  IterVar k2 = reduceAxis(0, 5, "k");
  Tensor mn = compute({3}, [&](Var i) { return te::min(a(i, k2.var), {k2}); }, "mn");
  NDArray an = randomTensor({3, 5}, DataType::int32(), 4, -100, 100);
  NDArray omax = NDArray::empty({3}, DataType::int32()),
          omin = NDArray::empty({3}, DataType::int32());
  tir::evaluate(createPrimFunc({a, mx, mn}), {an, omax, omin});
  std::vector<double> av = valuesOf(an);
  for (int i = 0; i < 3; ++i) {
    auto row = std::vector<double>(av.begin() + i * 5, av.begin() + i * 5 + 5);
    EXPECT_EQ(omax.getInt(i), static_cast<int64_t>(*std::max_element(row.begin(), row.end())));
    EXPECT_EQ(omin.getInt(i), static_cast<int64_t>(*std::min_element(row.begin(), row.end())));
  }
}

// §1.8: tuple-valued argmax, one block with let-bound temporaries.
TEST(TeTest, ArgmaxTupleReducer) {
  CommReducerFn argmax = commReducer(
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        PrimExpr keep = tir::ge(x[1], y[1]);
        return std::vector<PrimExpr>{tir::select(keep, x[0], y[0]), tir::select(keep, x[1], y[1])};
      },
      [](const std::vector<DataType>& t) {
        return std::vector<PrimExpr>{tir::intImm(-1), tir::minValue(t[1])};
      },
      "argmax");
  Tensor a = placeholder({4, 7}, DataType::float32(), "A");
  IterVar k = reduceAxis(0, 7, "k");
  std::vector<Tensor> outs = computeMulti(
      {4},
      [&](const std::vector<Var>& i) { return argmax({PrimExpr(k.var), a(i[0], k.var)}, {k}); },
      ComputeOptions{.name = "T", .indexNames = {"i"}});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].name(), "T.v0");
  tir::PrimFunc f = createPrimFunc({a, outs[0], outs[1]});
  NDArray an = randomTensor({4, 7}, DataType::float32(), 5);
  NDArray idx = NDArray::empty({4}, DataType::int32()),
          val = NDArray::empty({4}, DataType::float32());
  tir::evaluate(f, {an, idx, val});
  std::vector<double> av = valuesOf(an);
  for (int i = 0; i < 4; ++i) {
    auto first = av.begin() + i * 7;
    auto best = std::max_element(first, first + 7);
    EXPECT_EQ(idx.getInt(i), best - first);
    EXPECT_FLOAT_EQ(static_cast<float>(val.getFloat(i)), static_cast<float>(*best));
  }
  const std::string text = tir::toScript(f);
  EXPECT_NE(text.find("with T.block(\"T\"):"), std::string::npos) << text;
  EXPECT_NE(text.find("v_T_v0: T.int32 = T.Select("), std::string::npos) << text;
  EXPECT_NE(text.find("v_T_v1: T.float32 = T.Select("), std::string::npos) << text;
}

TEST(TeTest, ZeroDimOutputGetsDummyIterVar) {
  Tensor a = placeholder({6}, DataType::float32(), "A");
  IterVar k = reduceAxis(0, 6, "k");
  Tensor s = compute(
      std::vector<PrimExpr>{}, [&](const std::vector<Var>&) { return sum(a(k.var), {k}); },
      "total");
  Tensor t = compute(
      std::vector<PrimExpr>{}, [&](const std::vector<Var>&) { return s({}) * tir::floatImm(2); },
      "twice");
  tir::PrimFunc f = createPrimFunc({a, t});
  const std::string text = tir::toScript(f);
  EXPECT_NE(text.find("vi = T.axis.spatial(1, 0)"), std::string::npos) << text;
  NDArray an = randomTensor({6}, DataType::float32(), 6);
  NDArray out = run(f, {an}, {});
  double expect = 0;
  for (double v : valuesOf(an)) expect += 2 * v;
  EXPECT_NEAR(out.getFloat(0), expect, 1e-5);
}

TEST(TeTest, MultiOutputComputeHasOneBlockPerOutput) {
  Tensor a = placeholder({3}, DataType::float32(), "A");
  std::vector<Tensor> outs = computeMulti(
      {3},
      [&](const std::vector<Var>& i) {
        return std::vector<PrimExpr>{a(i[0]) + tir::floatImm(1), a(i[0]) * tir::floatImm(3)};
      },
      ComputeOptions{.name = "pair"});
  tir::PrimFunc f = createPrimFunc({a, outs[0], outs[1]});
  const std::string text = tir::toScript(f);
  EXPECT_NE(text.find("with T.block(\"pair.v0\"):"), std::string::npos) << text;
  EXPECT_NE(text.find("with T.block(\"pair.v1\"):"), std::string::npos) << text;
  NDArray an = tensorOf({3}, DataType::float32(), {1, 2, 3});
  NDArray o0 = NDArray::empty({3}, DataType::float32()),
          o1 = NDArray::empty({3}, DataType::float32());
  tir::evaluate(f, {an, o0, o1});
  EXPECT_TRUE(allClose(o0, tensorOf({3}, DataType::float32(), {2, 3, 4})));
  EXPECT_TRUE(allClose(o1, tensorOf({3}, DataType::float32(), {3, 6, 9})));
}

TEST(TeTest, DuplicateBlockNamesAreMadeUnique) {
  Tensor a = placeholder({2}, DataType::float32(), "A");
  Tensor b = compute({2}, [&](Var i) { return a(i) + tir::floatImm(1); }, "step");
  Tensor c = compute({2}, [&](Var i) { return b(i) + tir::floatImm(1); }, "step");
  const std::string text = tir::toScript(createPrimFunc({a, c}));
  EXPECT_NE(text.find("T.block(\"step\")"), std::string::npos) << text;
  EXPECT_NE(text.find("T.block(\"step_1\")"), std::string::npos) << text;
}

TEST(TeTest, IfThenElseAndUserReducerFold) {
  CommReducerFn mySum = commReducer(
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        return std::vector<PrimExpr>{tir::add(x[0], y[0])};
      },
      [](const std::vector<DataType>& t) { return std::vector<PrimExpr>{tir::makeConst(t[0], 0)}; },
      "my_sum");
  Tensor a = placeholder({5}, DataType::float32(), "A");
  Tensor b = compute(
      {5},
      [&](Var i) { return te::ifThenElse(tir::lt(i, tir::intImm(2)), mySum(a(i), a(i)), a(i)); },
      "B");
  NDArray an = tensorOf({5}, DataType::float32(), {1, 2, 3, 4, 5});
  NDArray out = run(createPrimFunc({a, b}), {an}, {5});
  EXPECT_TRUE(allClose(out, tensorOf({5}, DataType::float32(), {2, 4, 3, 4, 5})));
}

// --- errors ------------------------------------------------------------------------------------

TEST(TeErrorsTest, PlaceholderMissingFromArgs) {
  Tensor a = placeholder({4}, DataType::float32(), "A");
  Tensor b = compute({4}, [&](Var i) { return a(i) * tir::floatImm(2); }, "B");
  Diagnostic d = diagnosticOf([&] { createPrimFunc({b}); });
  EXPECT_EQ(d.code, "te_args");
  EXPECT_NE(
      d.message.find("tensor A is an input of the computation but is not in the argument list"),
      std::string::npos)
      << d.message;
}

TEST(TeErrorsTest, WrongIndexCount) {
  Tensor a = placeholder({4, 4}, DataType::float32(), "A");
  Diagnostic d = diagnosticOf([&] { (void)a(tir::intImm(0)); });
  EXPECT_EQ(d.code, "te_index");
  EXPECT_NE(d.message.find("tensor A of rank 2 is indexed with 1 indices"), std::string::npos);
}

TEST(TeErrorsTest, LambdaArityMismatch) {
  Tensor a = placeholder({4, 4}, DataType::float32(), "A");
  Diagnostic d = diagnosticOf([&] { compute({4, 4}, [&](Var i) { return a(i, i); }, "B"); });
  EXPECT_EQ(d.code, "te_compute");
  EXPECT_NE(d.message.find("takes 1 index variables but the shape has rank 2"), std::string::npos);
}

TEST(TeErrorsTest, ReductionOverSpatialAxis) {
  Tensor a = placeholder({4}, DataType::float32(), "A");
  IterVar notReduce{Range{tir::intImm(0), tir::intImm(4)}, tir::makeVar("j")};
  Diagnostic d = diagnosticOf([&] {
    compute(std::vector<PrimExpr>{},
            [&](const std::vector<Var>&) { return sum(a(notReduce.var), {notReduce}); });
  });
  EXPECT_EQ(d.code, "te_reduce");
}

TEST(TeErrorsTest, MixedReductionOutputs) {
  Tensor a = placeholder({4}, DataType::float32(), "A");
  IterVar k = reduceAxis(0, 4, "k");
  Diagnostic d = diagnosticOf([&] {
    computeMulti(
        std::vector<PrimExpr>{},
        [&](const std::vector<Var>&) {
          return std::vector<PrimExpr>{sum(a(k.var), {k}), tir::floatImm(1)};
        },
        ComputeOptions{.name = "bad"});
  });
  EXPECT_EQ(d.code, "te_compute");
}

}  // namespace
}  // namespace tessera::te

namespace tessera::te {
namespace {

TEST(TeTest, Int64OverrideComputesSameResult) {
  Tensor a = placeholder({3, 4}, DataType::float32(), "A");
  IterVar k = reduceAxis(0, 4, "k");
  Tensor s = compute({3}, [&](Var i) { return sum(a(i, k.var) * a(i, k.var), {k}); }, "S");
  NDArray an = test::randomTensor({3, 4}, DataType::float32(), 9);
  NDArray plain = NDArray::empty({3}, DataType::float32()),
          wide = NDArray::empty({3}, DataType::float32());
  tir::evaluate(createPrimFunc({a, s}), {an, plain});
  tir::evaluate(createPrimFunc({a, s}, DataType::int64()), {an, wide});
  EXPECT_TRUE(test::allClose(plain, wide, 0, 0));
}

TEST(TeTest, AttrsBecomeBlockAnnotationsLessDroppedKeys) {
  Tensor a = placeholder({2}, DataType::float32(), "A");
  DictAttrs attrs;
  attrs.set("schedule_rule", AttrValue::string("my_rule"));
  attrs.set("workload", AttrValue::string("dropped"));
  Tensor b = compute(
      {2}, [&](Var i) { return a(i) + tir::floatImm(1); },
      ComputeOptions{.name = "B", .attrs = attrs});
  const std::string text = tir::toScript(createPrimFunc({a, b}));
  EXPECT_NE(text.find("\"schedule_rule\": \"my_rule\""), std::string::npos) << text;
  EXPECT_EQ(text.find("workload"), std::string::npos) << text;
}

}  // namespace
}  // namespace tessera::te

namespace tessera::te {
namespace {

// The post-order walk is iterative: a long chain of computes lowers (and evaluates) fine.
TEST(TeTest, LongComputeChain) {
  Tensor a = placeholder({3}, DataType::float32(), "A");
  Tensor t = a;
  for (int n = 0; n < 1000; ++n)
    t = compute({3}, [&](Var i) { return t(i) + tir::floatImm(1); }, "step");
  tir::PrimFunc f = createPrimFunc({a, t});
  NDArray out = NDArray::empty({3}, DataType::float32());
  tir::evaluate(f, {test::tensorOf({3}, DataType::float32(), {0, 1, 2}), out});
  EXPECT_TRUE(test::allClose(out, test::tensorOf({3}, DataType::float32(), {1000, 1001, 1002})));
}

}  // namespace
}  // namespace tessera::te

namespace tessera::te {
namespace {

// An index var used as a value keeps its dtype under the int64 override (argmax's position).
TEST(TeTest, Int64OverrideKeepsValueDtypes) {
  Tensor a = placeholder({2, 5}, DataType::float32(), "A");
  IterVar k = reduceAxis(0, 5, "k");
  Tensor pos = compute({2}, [&](Var i) { return te::max(PrimExpr(k.var) + i, {k}); }, "pos");
  NDArray out = NDArray::empty({2}, DataType::int32());
  tir::evaluate(createPrimFunc({a, pos}, DataType::int64()),
                {test::randomTensor({2, 5}, DataType::float32(), 1), out});
  EXPECT_EQ(out.getInt(0), 4);
  EXPECT_EQ(out.getInt(1), 5);
}

}  // namespace
}  // namespace tessera::te
