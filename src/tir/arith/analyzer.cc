// Analyzer: the state (variable domains, values, facts) and the entry points that run the
// analyses of this folder on it.
#include "tir/arith/analyzer.h"

#include "support/check.h"
#include "tir/arith/arith_state.h"
#include "tir/arith/canonical_simplify.h"
#include "tir/arith/const_int_bound.h"
#include "tir/arith/int_math.h"
#include "tir/arith/interval.h"

namespace tessera::tir::arith {

struct Analyzer::Impl {
  ArithState state;
  /// How many facts and conditions each open ConstraintScope found on entry.
  std::vector<std::pair<size_t, size_t>> scopes;

  void addFact(const LinearSum& sum, ConstIntBound bound) {
    LinearSum terms = sum.withoutBase();
    state.facts.push_back({terms, terms.toExpr(), bound});
    // Also as the negated sum, so that `n - x > 0` helps prove `x - n < 0`.
    LinearSum negated;
    negated.dtype = terms.dtype;
    negated.addScaled(terms, -1);
    state.facts.push_back({negated, negated.toExpr(), {boundNeg(bound.max), boundNeg(bound.min)}});
  }

  // Records what `cond` (simplified) tells about bounds: `a op b` bounds the linear sum a - b.
  void addConstraint(const PrimExpr& cond) {
    if (asConstInt(cond)) return;
    const auto* b = cond->as<BinaryNode>();
    if (b && b->op == BinaryOp::kAnd) {
      addConstraint(b->a);
      addConstraint(b->b);
      return;
    }
    state.trueConditions.push_back(cond);
    if (!b || !isComparison(b->op) || !isIndexType(b->a) || b->a->dtype != b->b->dtype) return;
    LinearSum diff = toLinear(b->a);
    diff.addScaled(toLinear(b->b), -1);
    if (diff.isConst()) return;
    int64_t k = diff.base;
    ConstIntBound bound;  // of diff without its constant
    switch (b->op) {
      case BinaryOp::kLT:
        bound.max = -k - 1;
        break;
      case BinaryOp::kLE:
        bound.max = -k;
        break;
      case BinaryOp::kGT:
        bound.min = -k + 1;
        break;
      case BinaryOp::kGE:
        bound.min = -k;
        break;
      case BinaryOp::kEQ:
        bound = {-k, -k};
        break;
      default:
        return;
    }
    if (diff.terms.size() == 1 && diff.terms[0].coeff != 1) {
      // c * x <= m  gives  x <= floor(m / c) for c > 0 (and flips for c < 0).
      int64_t c = diff.terms[0].coeff;
      ConstIntBound atom;
      int64_t lo = isInf(bound.min)
                       ? bound.min
                       : (c > 0 ? -floorDivInt(-bound.min, c) : floorDivInt(bound.min, c));
      int64_t hi = isInf(bound.max)
                       ? bound.max
                       : (c > 0 ? floorDivInt(bound.max, c) : -floorDivInt(-bound.max, c));
      if (c > 0)
        atom = {lo, hi};
      else
        atom = {isInf(hi) ? boundNeg(hi) : hi, isInf(lo) ? boundNeg(lo) : lo};
      LinearSum single;
      single.dtype = diff.dtype;
      single.addTerm(diff.terms[0].atom, 1);
      addFact(single, atom);
      return;
    }
    addFact(diff, bound);
  }
};

Analyzer::Analyzer() : impl_(new Impl) {}
Analyzer::~Analyzer() {
  delete impl_;
}

void Analyzer::bind(const Var& v, const Range& r) {
  TS_CHECK(v && r.min && r.extent) << "Analyzer::bind with a null variable or range";
  impl_->state.varValues.erase(v.get());
  impl_->state.varBounds.erase(v.get());
  PrimExpr extent = simplify(r.extent);
  // A unit domain pins the variable (as TVM's Analyzer::Bind does): it is substituted.
  if (isOne(extent)) {
    impl_->state.varValues[v.get()] = simplify(r.min);
    return;
  }
  ConstIntBound minB = constIntBound(r.min);
  ConstIntBound extB = constIntBound(extent);
  int64_t top = isInf(extB.max) ? extB.max : boundAdd(minB.max, extB.max - 1);
  impl_->state.varBounds[v.get()] = {minB.min, top};
}

void Analyzer::bindValue(const Var& v, const PrimExpr& value) {
  TS_CHECK(v && value) << "Analyzer::bindValue with a null variable or value";
  PrimExpr simplified = simplify(value);
  impl_->state.varBounds.erase(v.get());
  impl_->state.varValues[v.get()] = simplified;
}

PrimExpr Analyzer::simplify(const PrimExpr& e) {
  if (!e) return e;
  CanonicalSimplifier simplifier(impl_->state);
  PrimExpr out = simplifier.simplify(e);
  // A rewrite can expose another (a folded remainder makes an outer floordiv exact), so run to
  // a fixed point; three rounds reach it on everything the tests have seen.
  for (int round = 0; round < 3; ++round) {
    PrimExpr next = simplifier.simplify(out);
    if (deepEqual(next, out)) break;
    out = next;
  }
  return out;
}

bool Analyzer::canProve(const PrimExpr& cond) {
  return isConstInt(simplify(cond), 1);
}

bool Analyzer::canProveEqual(const PrimExpr& a, const PrimExpr& b) {
  if (isIndexType(a) && isIndexType(b)) return isZero(simplify(sub(a, b)));
  return deepEqual(simplify(a), simplify(b));
}

bool Analyzer::canProveLess(const PrimExpr& a, int64_t bound) {
  return constIntBound(a).max < bound;
}

bool Analyzer::canProveGreaterEqual(const PrimExpr& a, int64_t bound) {
  return constIntBound(a).min >= bound;
}

ConstIntBound Analyzer::constIntBound(const PrimExpr& e) {
  ConstIntBound raw = computeConstIntBound(e, impl_->state);
  if (!isIndexType(e)) return raw;
  CanonicalSimplifier simplifier(impl_->state);
  return intersectBounds(raw, simplifier.boundOf(simplify(e)));
}

IntervalSet Analyzer::evalSet(const PrimExpr& e, const DomainMap& dom) {
  CanonicalSimplifier simplifier(impl_->state);
  return evalInterval(e, dom, simplifier);
}

Analyzer::ConstraintScope::ConstraintScope(Analyzer& analyzer, const PrimExpr& constraint)
    : analyzer_(analyzer) {
  Impl& impl = *analyzer.impl_;
  impl.scopes.emplace_back(impl.state.facts.size(), impl.state.trueConditions.size());
  impl.addConstraint(analyzer.simplify(constraint));
}

Analyzer::ConstraintScope::~ConstraintScope() {
  Impl& impl = *analyzer_.impl_;
  auto [facts, conditions] = impl.scopes.back();
  impl.scopes.pop_back();
  impl.state.facts.resize(facts);
  impl.state.trueConditions.resize(conditions);
}

PrimExpr simplify(const PrimExpr& e) {
  Analyzer analyzer;
  return analyzer.simplify(e);
}

}  // namespace tessera::tir::arith
