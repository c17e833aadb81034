#include "tir/arith/linear_sum.h"

#include <algorithm>
#include <cstdlib>

#include "tir/arith/int_math.h"

namespace tessera::tir::arith {

void LinearSum::addTerm(const PrimExpr& atom, int64_t coeff) {
  if (coeff == 0) return;
  for (auto it = terms.begin(); it != terms.end(); ++it) {
    if (!deepEqual(it->atom, atom)) continue;
    it->coeff = wrapAdd(it->coeff, coeff);
    if (it->coeff == 0) terms.erase(it);
    return;
  }
  terms.push_back({atom, coeff});
}

void LinearSum::addScaled(const LinearSum& other, int64_t scale) {
  for (const LinearTerm& t : other.terms) addTerm(t.atom, wrapMul(t.coeff, scale));
  base = wrapAdd(base, wrapMul(other.base, scale));
}

LinearSum LinearSum::withoutBase() const {
  LinearSum out = *this;
  out.base = 0;
  return out;
}

bool LinearSum::sameTerms(const LinearSum& other) const {
  if (terms.size() != other.terms.size()) return false;
  for (const LinearTerm& t : terms) {
    bool found = std::any_of(other.terms.begin(), other.terms.end(), [&](const LinearTerm& o) {
      return o.coeff == t.coeff && deepEqual(o.atom, t.atom);
    });
    if (!found) return false;
  }
  return true;
}

namespace {

PrimExpr scaled(const PrimExpr& atom, int64_t coeff, DataType dtype) {
  return coeff == 1 ? atom : mul(atom, intImm(coeff, dtype));
}

}  // namespace

PrimExpr LinearSum::toExpr() const {
  if (terms.empty()) return intImm(base, dtype);
  std::vector<LinearTerm> order = terms;
  std::stable_sort(order.begin(), order.end(), [](const LinearTerm& a, const LinearTerm& b) {
    return std::llabs(a.coeff) > std::llabs(b.coeff);
  });
  // Lead with a positive term so that `x - y` does not print as `y * -1 + x`.
  auto firstPositive =
      std::find_if(order.begin(), order.end(), [](const LinearTerm& t) { return t.coeff > 0; });
  if (firstPositive != order.end()) std::rotate(order.begin(), firstPositive, firstPositive + 1);
  PrimExpr out;
  if (order.front().coeff > 0) {
    out = scaled(order.front().atom, order.front().coeff, dtype);
  } else if (base > 0) {
    // Every term is negative: `8 - x` reads better than `x * -1 + 8`.
    out = intImm(base, dtype);
    for (const LinearTerm& t : order) out = sub(out, scaled(t.atom, -t.coeff, dtype));
    return out;
  } else {
    out = mul(order.front().atom, intImm(order.front().coeff, dtype));
  }
  for (size_t i = 1; i < order.size(); ++i) {
    const LinearTerm& t = order[i];
    out = t.coeff > 0 ? add(out, scaled(t.atom, t.coeff, dtype))
                      : sub(out, scaled(t.atom, -t.coeff, dtype));
  }
  if (base > 0) return add(out, intImm(base, dtype));
  if (base < 0) return sub(out, intImm(-base, dtype));
  return out;
}

namespace {

// Explicit worklist: sums of thousands of terms must not deepen the C++ stack.
struct Pending {
  PrimExpr expr;
  int64_t scale;
};

}  // namespace

LinearSum toLinear(const PrimExpr& e) {
  LinearSum out;
  out.dtype = e->dtype;
  std::vector<Pending> work{{e, 1}};
  while (!work.empty()) {
    Pending p = work.back();
    work.pop_back();
    if (const auto* i = p.expr->as<IntImmNode>()) {
      out.base = wrapAdd(out.base, wrapMul(i->value, p.scale));
      continue;
    }
    if (const auto* b = p.expr->as<BinaryNode>()) {
      if (b->op == BinaryOp::kAdd || b->op == BinaryOp::kSub) {
        // Pushed in reverse so that terms are seen left to right.
        work.push_back({b->b, b->op == BinaryOp::kAdd ? p.scale : wrapMul(p.scale, -1)});
        work.push_back({b->a, p.scale});
        continue;
      }
      if (b->op == BinaryOp::kMul) {
        if (const auto* c = b->b->as<IntImmNode>()) {
          work.push_back({b->a, wrapMul(p.scale, c->value)});
          continue;
        }
        if (const auto* c = b->a->as<IntImmNode>()) {
          work.push_back({b->b, wrapMul(p.scale, c->value)});
          continue;
        }
      }
    }
    out.addTerm(p.expr, p.scale);
  }
  return out;
}

}  // namespace tessera::tir::arith
