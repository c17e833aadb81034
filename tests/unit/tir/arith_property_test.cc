// Randomized properties: for random integer expressions over variables with small random domains,
// the simplified expression has the same value as the original on every assignment, every value
// lies within constIntBound, and evalSet's interval contains every value.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "tir/arith/analyzer.h"
#include "unit/tir/arith_test_util.h"

namespace tessera::tir {
namespace {

using arith::Analyzer;
using testing::Env;
using testing::evalInt;
using testing::text;

struct Domain {
  Var var;
  int64_t lo;
  int64_t extent;
};

class ExprGenerator {
 public:
  ExprGenerator(std::mt19937& rng, const std::vector<Domain>& vars)
      : rng_(rng), vars_(vars), dtype_(vars.front().var->dtype) {}

  PrimExpr index(int depth) {
    if (depth == 0 || pick(4) == 0) return leaf();
    PrimExpr a = index(depth - 1);
    switch (pick(12)) {
      case 0:
        return add(a, index(depth - 1));
      case 1:
        return sub(a, index(depth - 1));
      case 2:
        return mul(a, imm(pick(9) - 4));
      case 3:
        return mul(a, index(depth - 1));
      case 4:
        return floordiv(a, nonZero());
      case 5:
        return floormod(a, nonZero());
      case 6:
        return truncdiv(a, imm(pick(6) + 1));
      case 7:
        return truncmod(a, imm(pick(6) + 1));
      case 8:
        return tir::min(a, index(depth - 1));
      case 9:
        return tir::max(a, index(depth - 1));
      case 10:
        return select(condition(depth - 1), a, index(depth - 1));
      default:
        return add(mul(a, imm(pick(4) + 2)), index(depth - 1));  // split-like
    }
  }

  PrimExpr condition(int depth) {
    PrimExpr a = index(depth), b = index(depth);
    switch (pick(8)) {
      case 0:
        return eq(a, b);
      case 1:
        return ne(a, b);
      case 2:
        return lt(a, b);
      case 3:
        return le(a, b);
      case 4:
        return gt(a, b);
      case 5:
        return ge(a, b);
      case 6:
        return binary(BinaryOp::kAnd, lt(a, b), condition(0));
      default:
        return logicalNot(le(a, b));
    }
  }

 private:
  int64_t pick(int64_t n) { return std::uniform_int_distribution<int64_t>(0, n - 1)(rng_); }
  PrimExpr leaf() {
    if (pick(3) == 0) return imm(pick(21) - 10);
    return vars_[pick(static_cast<int64_t>(vars_.size()))].var;
  }
  PrimExpr nonZero() {
    int64_t v = pick(8) + 1;
    if (pick(4) == 0) v = -v;  // negative divisors exercise floor semantics
    if (pick(6) == 0) v = 16;
    return imm(v);
  }
  PrimExpr imm(int64_t v) { return intImm(v, dtype_); }

  std::mt19937& rng_;
  const std::vector<Domain>& vars_;
  DataType dtype_;
};

// Calls `fn` with every assignment of the domains.
void forEachAssignment(const std::vector<Domain>& vars, const std::function<void(const Env&)>& fn) {
  Env env;
  std::function<void(size_t)> rec = [&](size_t k) {
    if (k == vars.size()) return fn(env);
    for (int64_t v = vars[k].lo; v < vars[k].lo + vars[k].extent; ++v) {
      env[vars[k].var.get()] = v;
      rec(k + 1);
    }
  };
  rec(0);
}

std::vector<Domain> randomDomains(std::mt19937& rng, DataType dtype = DataType::int32()) {
  std::uniform_int_distribution<int64_t> lo(-6, 6), extent(1, 7);
  std::vector<Domain> vars;
  for (const char* name : {"x", "y", "z"})
    vars.push_back({makeVar(name, dtype), lo(rng), extent(rng)});
  // Loop-like domains starting at 0 are the common case.
  vars[0].lo = 0;
  return vars;
}

// Returns how many (expression, assignment) pairs were compared.
int checkSimplifyPreservesValues(uint32_t seed, int trials, DataType dtype) {
  std::mt19937 rng(seed);
  int checked = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<Domain> vars = randomDomains(rng, dtype);
    Analyzer ana;
    for (const Domain& d : vars) ana.bind(d.var, Range{intImm(d.lo), intImm(d.extent)});
    ExprGenerator gen(rng, vars);
    PrimExpr e = trial % 4 == 3 ? gen.condition(2) : gen.index(3);
    PrimExpr s = ana.simplify(e);
    arith::ConstIntBound bound = ana.constIntBound(e);
    forEachAssignment(vars, [&](const Env& env) {
      auto want = evalInt(e, env);
      if (!want) return;  // division by zero: undefined
      auto got = evalInt(s, env);
      EXPECT_TRUE(got.has_value()) << text(e) << "  ->  " << text(s);
      if (!got) return;
      EXPECT_EQ(*got, *want) << text(e) << "  ->  " << text(s);
      EXPECT_GE(*want, bound.min) << text(e);
      EXPECT_LE(*want, bound.max) << text(e);
      ++checked;
    });
  }
  return checked;
}

TEST(ArithProperty, SimplifyPreservesValuesAndBoundsHold) {
  EXPECT_GT(checkSimplifyPreservesValues(20240601, 1500, DataType::int32()), 50000);
}

TEST(ArithProperty, Int64IndicesBehaveTheSame) {
  EXPECT_GT(checkSimplifyPreservesValues(31337, 500, DataType::int64()), 15000);
}

TEST(ArithProperty, SimplifyUnderConstraintHoldsWhereConstraintHolds) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<Domain> vars = randomDomains(rng);
    Analyzer ana;
    for (const Domain& d : vars) ana.bind(d.var, Range{intImm(d.lo), intImm(d.extent)});
    ExprGenerator gen(rng, vars);
    PrimExpr constraint = gen.condition(1);
    PrimExpr e = trial % 2 ? gen.condition(2) : gen.index(3);
    Analyzer::ConstraintScope scope(ana, constraint);
    PrimExpr s = ana.simplify(e);
    arith::ConstIntBound bound = ana.constIntBound(e);
    forEachAssignment(vars, [&](const Env& env) {
      auto holds = evalInt(constraint, env);
      if (!holds || !*holds) return;
      auto want = evalInt(e, env);
      if (!want) return;
      auto got = evalInt(s, env);
      ASSERT_TRUE(got.has_value()) << text(e) << " given " << text(constraint);
      ASSERT_EQ(*got, *want) << text(e) << "  ->  " << text(s) << " given " << text(constraint);
      ASSERT_GE(*want, bound.min) << text(e) << " given " << text(constraint);
      ASSERT_LE(*want, bound.max) << text(e) << " given " << text(constraint);
    });
  }
}

TEST(ArithProperty, EvalSetContainsEveryValue) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<Domain> vars = randomDomains(rng);
    Analyzer ana;
    // Relax x and y; z stays a bound variable of the analyzer (symbolic in the end points).
    ana.bind(vars[2].var, Range{intImm(vars[2].lo), intImm(vars[2].extent)});
    arith::DomainMap dom;
    for (int k = 0; k < 2; ++k)
      dom[vars[k].var.get()] = Range{intImm(vars[k].lo), intImm(vars[k].extent)};
    ExprGenerator gen(rng, vars);
    PrimExpr e = gen.index(3);
    arith::IntervalSet set = ana.evalSet(e, dom);
    forEachAssignment(vars, [&](const Env& env) {
      auto value = evalInt(e, env);
      if (!value) return;
      if (set.min) {
        auto lo = evalInt(set.min, env);
        if (lo) ASSERT_LE(*lo, *value) << text(e) << " min " << text(set.min);
      }
      if (set.max) {
        auto hi = evalInt(set.max, env);
        if (hi) ASSERT_GE(*hi, *value) << text(e) << " max " << text(set.max);
      }
    });
  }
}

}  // namespace
}  // namespace tessera::tir

namespace tessera::tir {
namespace {

// Split-fuse index patterns (x * m + y) // c and % c for strides m dividing c (and not), with
// inner extents that fit the stride and that overflow it, against direct evaluation.
TEST(ArithProperty, SplitFusePatterns) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int64_t> pickM(1, 8), pickK(1, 4), pickExt(1, 12), pickBase(-3, 3);
  for (int trial = 0; trial < 400; ++trial) {
    int64_t m = pickM(rng), cval = m * pickK(rng) + (trial % 5 == 0 ? 1 : 0);
    std::vector<Domain> vars{{makeVar("x"), 0, pickExt(rng)}, {makeVar("y"), 0, pickExt(rng)}};
    Analyzer ana;
    for (const Domain& d : vars) ana.bind(d.var, Range{intImm(d.lo), intImm(d.extent)});
    PrimExpr index = vars[0].var * m + vars[1].var + pickBase(rng);
    for (PrimExpr e : {floordiv(index, intImm(cval)), floormod(index, intImm(cval)),
                       floordiv(floormod(index, intImm(cval)), intImm(m)),
                       floordiv(index, intImm(cval)) * cval + floormod(index, intImm(cval))}) {
      PrimExpr s = ana.simplify(e);
      forEachAssignment(vars, [&](const Env& env) {
        ASSERT_EQ(*evalInt(s, env), *evalInt(e, env)) << text(e) << "  ->  " << text(s);
      });
    }
  }
}

}  // namespace
}  // namespace tessera::tir
