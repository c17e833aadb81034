// Constant bounds, proofs (provable and not provable) and interval evaluation.
#include <gtest/gtest.h>

#include "tir/arith/analyzer.h"
#include "unit/tir/arith_test_util.h"

namespace tessera::tir {
namespace {

using arith::Analyzer;
using arith::ConstIntBound;
using testing::text;

PrimExpr c(int64_t v) {
  return intImm(v);
}

class ArithBound : public ::testing::Test {
 protected:
  Var x = makeVar("x"), y = makeVar("y"), i = makeVar("i"), j = makeVar("j");
  Var n = makeSizeVar("n");
  Analyzer ana;
  void bindLoop(const Var& v, int64_t lo, int64_t extent) { ana.bind(v, Range{c(lo), c(extent)}); }
  void expectBound(const PrimExpr& e, int64_t lo, int64_t hi) {
    ConstIntBound b = ana.constIntBound(e);
    EXPECT_EQ(b.min, lo) << text(e);
    EXPECT_EQ(b.max, hi) << text(e);
  }
};

TEST_F(ArithBound, Arithmetic) {
  bindLoop(x, 0, 10);  // [0, 9]
  bindLoop(y, -4, 8);  // [-4, 3]
  expectBound(x + y, -4, 12);
  expectBound(x - y, -3, 13);
  expectBound(x * y, -36, 27);
  expectBound(x * -2, -18, 0);
  expectBound(floordiv(y, c(2)), -2, 1);
  expectBound(floormod(y, c(3)), 0, 2);
  expectBound(floormod(x, c(16)), 0, 9);
  expectBound(truncdiv(y, c(3)), -1, 1);
  expectBound(truncmod(y, c(3)), -2, 2);
  expectBound(tir::min(x, y), -4, 3);
  expectBound(tir::max(x, y), 0, 9);
  expectBound(select(lt(x, y), x, y + 20), 0, 23);
  expectBound(c(7), 7, 7);
  expectBound(lt(x, y), 0, 1);
}

TEST_F(ArithBound, FloorDivisionOfNegativeRanges) {
  bindLoop(x, -9, 19);  // [-9, 9]
  expectBound(floordiv(x, c(4)), -3, 2);
  expectBound(floormod(x, c(4)), 0, 3);
  expectBound(floordiv(x, c(-4)), -3, 2);
  expectBound(floormod(x, c(-4)), -3, 0);
}

TEST_F(ArithBound, UnknownVariablesTakeTheirTypeRange) {
  expectBound(x, INT32_MIN, INT32_MAX);
  expectBound(n, 0, INT32_MAX);
  Var w = makeVar("w", DataType::int64());
  expectBound(w, ConstIntBound::kNegInf, ConstIntBound::kPosInf);
  expectBound(floormod(w, intImm(8, DataType::int64())), 0, 7);
  expectBound(cast(DataType::int64(), x), INT32_MIN, INT32_MAX);
}

// Unsigned sums and differences wrap: a result that leaves the type's range may be anywhere in it.
TEST_F(ArithBound, UnsignedArithmeticWraps) {
  const DataType u8 = DataType::uint8();
  Var a = makeVar("a", u8), b = makeVar("b", u8);
  expectBound(a, 0, 255);
  expectBound(a - b, 0, 255);
  expectBound(a + intImm(1, u8), 0, 255);
  expectBound(tir::max(a, b), 0, 255);
  ana.bind(a, Range{intImm(0, u8), intImm(10, u8)});
  expectBound(a + intImm(1, u8), 1, 10);
  expectBound(a * intImm(2, u8), 0, 18);
}

TEST_F(ArithBound, SymbolicDomain) {
  bindLoop(n, 1, 16);  // n in [1, 16]
  ana.bind(x, Range{c(0), n});
  expectBound(x, 0, 15);
  expectBound(x - n, -16, 14);
  // The linear form sees that x - x cancels.
  expectBound(x - x + 3, 3, 3);
}

TEST_F(ArithBound, Proofs) {
  bindLoop(i, 0, 13);
  bindLoop(j, 0, 10);
  EXPECT_TRUE(ana.canProve(lt(i * 10 + j, c(130))));
  EXPECT_FALSE(ana.canProve(lt(i * 10 + j, c(128))));
  EXPECT_TRUE(ana.canProveLess(i * 10 + j, 130));
  EXPECT_FALSE(ana.canProveLess(i * 10 + j, 129));
  EXPECT_TRUE(ana.canProveGreaterEqual(i * 10 + j, 0));
  EXPECT_FALSE(ana.canProveGreaterEqual(i * 10 + j, 1));
  EXPECT_TRUE(ana.canProveEqual(floordiv(i * 10 + j, c(10)), i));
  EXPECT_FALSE(ana.canProveEqual(floordiv(i * 10 + j, c(9)), i));
  EXPECT_TRUE(ana.canProveEqual((x + 1) * (y + 0), x * y + y) == false);
  EXPECT_TRUE(ana.canProveEqual(x * 2 + y, y + x + x));
  EXPECT_FALSE(ana.canProve(lt(x, y)));
  EXPECT_TRUE(ana.canProve(logicalOr(lt(x, y), ge(x, y))));
}

TEST_F(ArithBound, ConstraintOnSingleVariable) {
  bindLoop(x, 0, 100);
  {
    Analyzer::ConstraintScope scope(ana, logicalAnd(lt(x, c(40)), ge(x * 2, c(10))));
    expectBound(x, 5, 39);
    EXPECT_TRUE(ana.canProveLess(x, 40));
    EXPECT_EQ(text(ana.simplify(floordiv(x, c(40)))), "0");
  }
  expectBound(x, 0, 99);
}

TEST_F(ArithBound, EvalSetOverLoopDomain) {
  Var ax = makeVar("ax0");
  arith::DomainMap dom{{i.get(), Range{c(0), c(8)}}, {j.get(), Range{c(0), c(16)}}};
  arith::IntervalSet s = ana.evalSet(i * 16 + j, dom);
  ASSERT_TRUE(s.bounded());
  EXPECT_EQ(text(s.min), "0");
  EXPECT_EQ(text(s.max), "127");
  // Variables outside the domain stay symbolic.
  s = ana.evalSet(x * 8 + j, dom);
  EXPECT_EQ(text(s.min), "x * 8");
  EXPECT_EQ(text(s.max), "x * 8 + 15");
  s = ana.evalSet(x - i, dom);
  EXPECT_EQ(text(s.min), "x - 7");
  EXPECT_EQ(text(s.max), "x");
  s = ana.evalSet(floordiv(j, c(4)), dom);
  EXPECT_EQ(text(s.min), "0");
  EXPECT_EQ(text(s.max), "3");
  s = ana.evalSet(floormod(j, c(4)), dom);
  EXPECT_EQ(text(s.max), "3");
  s = ana.evalSet(floormod(x * 16 + j, c(16)), dom);
  EXPECT_EQ(text(s.min), "0");
  EXPECT_EQ(text(s.max), "15");
  s = ana.evalSet(tir::min(i, c(4)) + tir::max(j, c(3)), dom);
  EXPECT_EQ(text(s.min), "3");
  EXPECT_EQ(text(s.max), "19");
  s = ana.evalSet(i * -2, dom);
  EXPECT_EQ(text(s.min), "-14");
  EXPECT_EQ(text(s.max), "0");
}

TEST_F(ArithBound, EvalSetRelaxesDependentDomains) {
  // for j in range(4): for i in range(j * 8, j * 8 + 8): ... i covers [0, 31].
  arith::DomainMap dom{{j.get(), Range{c(0), c(4)}}, {i.get(), Range{j * 8, c(8)}}};
  arith::IntervalSet s = ana.evalSet(i + 1, dom);
  EXPECT_EQ(text(s.min), "1");
  EXPECT_EQ(text(s.max), "32");
  // Domains that refer to each other have no bound.
  arith::DomainMap cyclic{{i.get(), Range{j, c(2)}}, {j.get(), Range{i, c(2)}}};
  EXPECT_FALSE(ana.evalSet(i, cyclic).bounded());
}

TEST_F(ArithBound, EvalSetSymbolicAndUnbounded) {
  arith::DomainMap dom{{i.get(), Range{x, n}}};
  arith::IntervalSet s = ana.evalSet(i + 1, dom);
  EXPECT_EQ(text(s.min), "x + 1");
  EXPECT_EQ(text(s.max), "x + n");
  // n is a size variable (non-negative), so scaling by it keeps the order.
  s = ana.evalSet(i * n, dom);
  EXPECT_EQ(text(s.min), "n * x");
  EXPECT_EQ(text(s.max), "(x + n - 1) * n");
  // A product of two relaxed variables has no expressible bound.
  arith::DomainMap two{{i.get(), Range{c(0), c(4)}}, {j.get(), Range{c(0), c(4)}}};
  s = ana.evalSet(i * j, two);
  EXPECT_FALSE(s.bounded());
  s = ana.evalSet(i * y, two);  // sign of y unknown
  EXPECT_FALSE(s.bounded());
}

}  // namespace
}  // namespace tessera::tir
