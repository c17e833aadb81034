// NarrowFixedPointMultiply: `fixed_point_multiply` lowers to floor((x * m + r) / 2^s) computed in
// int64 (TVM's lowering, topi/elemwise.cc), which on x86 costs a widening, two 64-bit multiplies
// per 16 lanes, 64-bit adds and shifts and a narrowing again. In quantized networks the operand is
// usually small and proven so by the expression itself: a clip before the multiply (relu6 in the
// integer domain) or an int8 value widened. For such an operand the same value is computed
// exactly in int32 by splitting the multiplier at bit k, m = mh * 2^k + ml, and the rounding
// constant the same way, r = rh * 2^k + rl:
//
//   floor((x*m + r) / 2^s) = floor((x*mh + rh + floor((x*ml + rl) / 2^k)) / 2^(s-k))
//
// (nested floor division by powers of two). A k is taken only when every intermediate value of
// the right side provably fits int32 over the operand's bounds, so the rewrite is exact; without
// such a k the int64 form stays. Floor division by 2^n is the arithmetic shift right.
//
// The split rewrites vector expressions only (the pass runs after VectorizeLoop): x86's vector
// units have no 64-bit multiply of full lanes, so the int64 form costs widening, two vpmuldq per
// 16 lanes and narrowing, where the split costs two vpmulld; a scalar int64 multiply is one
// instruction, and the split would be more. The float forms below take scalars too: no dearer
// than the int64 form there, and far cheaper once LLVM vectorizes the scalar loop (a requantizing
// residual addition, which the generic schedule leaves to LLVM).
//
// Where the split needs its low part (about six vector operations) and the operand takes few
// values (a relu6 clip bounds it to a few thousand), a float form is cheaper: one conversion,
// one fused multiply-add against 1.5 * 2^23 and one integer subtract,
//
//   bits(fma(float(x), c, 1.5 * 2^23)) - bits(1.5 * 2^23) = round-to-nearest-even(x * c)
//
// (adding 1.5 * 2^23 leaves a float whose last mantissa bit is worth 1). It is not the same
// function in general (c is m / 2^s rounded to 24 bits, and ties round to even), so it is taken
// only when it gives the exact value for every value the operand can take, checked here one by
// one, and only on a target with FMA (the kernel carries its target; without an FMA unit the
// multiply-add would be a library call).
//
// An operand with no useful bound (a linear bottleneck's accumulator) whose result is clipped
// (to int8's range before the cast) takes a clamped float form instead:
//
//   bits(max(fma(float(x), c, 1.5 * 2^23), 2^23)) - bits(1.5 * 2^23)
//
// is non-decreasing in x over all of int32 (every step is monotone; the clamp keeps the float
// positive, where its bits order as it does), so where it equals the exact value on the window
// of x whose results lie within the clip, plus one value on each side, it is below the clip
// wherever the exact value is below it and above wherever above: the clipped results agree
// everywhere. The window is checked value by value.
//
// A relu6 epilogue, clip(f(clip(y, 0, hi1)), lo, hi), loses the bounds its other clip implies
// (f is non-decreasing): the inner upper bound where f(hi1) >= hi, the outer lower one where
// f(0) >= lo; the operand max(y, 0) then takes the plain float form, checked on the window.
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "target/target.h"
#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

using Int128 = __int128;
constexpr Int128 kInt32Min = -(Int128{1} << 31), kInt32Max = (Int128{1} << 31) - 1;
constexpr Int128 kInt64Min = -(Int128{1} << 63), kInt64Max = (Int128{1} << 63) - 1;

// The integer constant `e` is, seen through a broadcast.
std::optional<int64_t> constantOf(const PrimExpr& e) {
  if (const auto* b = e->as<BroadcastNode>()) return constantOf(b->value);
  if (const int64_t* c = asConstInt(e)) return *c;
  return std::nullopt;
}

// floor((x * m + r) / 2^s), with x an integer of at most 32 bits widened to int64.
struct FixedPointForm {
  PrimExpr x;
  int64_t m = 0, r = 0, s = 0;
};

// The operand and constant of `x * m` (either order) with x a widened narrow integer.
bool matchProduct(const PrimExpr& e, FixedPointForm& form) {
  const auto* mul = e->as<BinaryNode>();
  if (!mul || mul->op != BinaryOp::kMul) return false;
  for (const auto& [value, factor] : {std::pair{mul->a, mul->b}, std::pair{mul->b, mul->a}}) {
    std::optional<int64_t> m = constantOf(factor);
    const auto* widen = value->as<CastNode>();
    if (!m || !widen) continue;
    const DataType from = widen->value->dtype;
    if (!from.isInteger() || from.bits() > 32 || (from.isUInt() && from.bits() == 32)) continue;
    form.x = widen->value;
    form.m = *m;
    return true;
  }
  return false;
}

// `shift_right(x * m + r, s)` in int64 (the add may be missing or have its operands swapped).
std::optional<FixedPointForm> matchFixedPoint(const PrimExpr& e) {
  const auto* call = e->as<CallNode>();
  if (!call || call->op != "tir.shift_right" || call->args.size() != 2) return std::nullopt;
  if (call->dtype.element() != DataType::int64()) return std::nullopt;
  FixedPointForm form;
  std::optional<int64_t> s = constantOf(call->args[1]);
  if (!s || *s < 0 || *s > 62) return std::nullopt;
  form.s = *s;
  const PrimExpr& sum = call->args[0];
  if (matchProduct(sum, form)) return form;
  const auto* add = sum->as<BinaryNode>();
  if (!add || add->op != BinaryOp::kAdd) return std::nullopt;
  for (const auto& [term, constant] : {std::pair{add->a, add->b}, std::pair{add->b, add->a}}) {
    std::optional<int64_t> r = constantOf(constant);
    if (r && matchProduct(term, form)) {
      form.r = *r;
      return form;
    }
  }
  return std::nullopt;
}

struct Interval {
  Int128 lo, hi;
  bool fits(Int128 min, Int128 max) const { return lo >= min && hi <= max; }
};
Interval scale(Interval x, int64_t c) {
  Int128 a = x.lo * c, b = x.hi * c;
  return {std::min(a, b), std::max(a, b)};
}
Interval shiftBy(Interval x, Int128 c) {
  return {x.lo + c, x.hi + c};
}
Int128 floorShift(Int128 v, int64_t k) {
  return v >> k;  // arithmetic: floor division by 2^k
}

// The split point k of an exact int32 evaluation over x in `x`, preferring the one with the fewest
// operations (no low part at all when x * m itself fits).
struct Split {
  int64_t k, mh, ml, rh, rl;
};
std::optional<Split> chooseSplit(const FixedPointForm& f, Interval x) {
  // The int64 original must not wrap either, or it would not equal the exact value.
  if (!shiftBy(scale(x, f.m), f.r).fits(kInt64Min, kInt64Max)) return std::nullopt;
  std::optional<Split> best;
  int bestCost = 0;
  for (int64_t k = 0; k <= std::min<int64_t>(f.s, 31); ++k) {
    if (f.s - k > 31) continue;
    const Int128 mask = (Int128{1} << k) - 1;
    const Split sp{k, static_cast<int64_t>(Int128{f.m} >> k), static_cast<int64_t>(f.m & mask),
                   static_cast<int64_t>(Int128{f.r} >> k), static_cast<int64_t>(f.r & mask)};
    const Interval high = scale(x, sp.mh), low = shiftBy(scale(x, sp.ml), sp.rl);
    const Interval lowShifted{floorShift(low.lo, k), floorShift(low.hi, k)};
    const Interval withRound = shiftBy(high, sp.rh);
    const Interval total{withRound.lo + lowShifted.lo, withRound.hi + lowShifted.hi};
    bool ok = high.fits(kInt32Min, kInt32Max) && withRound.fits(kInt32Min, kInt32Max) &&
              total.fits(kInt32Min, kInt32Max) && Int128{sp.rh} <= kInt32Max;
    if (sp.ml != 0)
      ok = ok && low.fits(kInt32Min, kInt32Max) && scale(x, sp.ml).fits(kInt32Min, kInt32Max);
    if (!ok) continue;
    const int cost = (sp.ml != 0 ? 4 : 0) + (sp.rh != 0 ? 1 : 0) + (f.s - k > 0 ? 1 : 0);
    if (!best || cost < bestCost) best = sp, bestCost = cost;
  }
  return best;
}

PrimExpr constantLike(int64_t v, DataType type) {
  PrimExpr c = intImm(v, type.element());
  return type.lanes() > 1 ? broadcast(c, type.lanes()) : c;
}

PrimExpr shiftRight(const PrimExpr& a, int64_t n) {
  if (n == 0) return a;
  return call(a->dtype, "tir.shift_right", {a, constantLike(n, a->dtype)});
}

// The int32 evaluation of `f` with the split `sp`.
PrimExpr narrowForm(const FixedPointForm& f, const Split& sp) {
  const DataType i32 = DataType::int32().withLanes(f.x->dtype.lanes());
  const PrimExpr x = cast(i32, f.x);
  PrimExpr total = sp.mh == 0 ? constantLike(0, i32) : mul(x, constantLike(sp.mh, i32));
  if (sp.rh != 0) total = add(total, constantLike(sp.rh, i32));
  if (sp.ml != 0) {
    PrimExpr low = mul(x, constantLike(sp.ml, i32));
    if (sp.rl != 0) low = add(low, constantLike(sp.rl, i32));
    total = add(total, shiftRight(low, sp.k));
  }
  return shiftRight(total, f.s - sp.k);
}

// The float forms (see the top of the file). The plain one is checked on every value x can
// take, at most kMaxCheckedValues; the clamped one (for a clipped result) on the window of x
// whose results lie within the clip, plus one value on each side, at most kMaxWindowValues.
constexpr float kMagic = 12582912.0f;      // 1.5 * 2^23
constexpr float kClampFloor = 8388608.0f;  // 2^23: keeps every clamped result positive
constexpr Int128 kMaxCheckedValues = Int128{1} << 17;
constexpr Int128 kMaxWindowValues = Int128{1} << 20;

int64_t floatFormValue(int64_t x, float c, bool clamped) {
  float t = std::fma(static_cast<float>(x), c, kMagic);
  if (clamped) t = std::max(t, kClampFloor);
  return int64_t{std::bit_cast<int32_t>(t)} - std::bit_cast<int32_t>(kMagic);
}

// The constant c (the float nearest m / 2^s or one of its two neighbours) for which the float
// form equals floor((x*m + r) / 2^s) on every x in `values`, if there is one.
std::optional<float> exactConstant(const FixedPointForm& f, Interval values, bool clamped) {
  if (f.m <= 0) return std::nullopt;
  const float nearest = static_cast<float>(std::ldexp(static_cast<double>(f.m), -f.s));
  for (float c : {nearest, std::nextafter(nearest, 0.0f), std::nextafter(nearest, INFINITY)}) {
    bool exact = std::isfinite(c) && c > 0;
    for (Int128 v = values.lo; exact && v <= values.hi; ++v)
      exact = floatFormValue(static_cast<int64_t>(v), c, clamped) == floorShift(v * f.m + f.r, f.s);
    if (exact) return c;
  }
  return std::nullopt;
}

std::optional<float> chooseFloatForm(const FixedPointForm& f, Interval x) {
  if (x.hi - x.lo + 1 > kMaxCheckedValues || x.lo < -(Int128{1} << 24) || x.hi > (Int128{1} << 24))
    return std::nullopt;
  return exactConstant(f, x, /*clamped=*/false);
}

Int128 floorDiv(Int128 a, Int128 b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The float form for a result clipped to [lo, hi], checked on the window of x whose results lie
// within the clip plus one value on each side: clamped for any int32 x, plain where x >= 0 (the
// plain form is then non-decreasing too: its multiply-add stays positive).
std::optional<float> chooseWindowFloatForm(const FixedPointForm& f, Interval x, int64_t lo,
                                           int64_t hi, bool clamped) {
  if (f.m <= 0 || lo > hi || (!clamped && x.lo < 0)) return std::nullopt;
  const Int128 two = Int128{1} << f.s;
  // f(v) >= lo  <=>  v >= ceil((lo * 2^s - r) / m);  f(v) <= hi  <=>  v <= floor(((hi + 1) * 2^s
  // - r - 1) / m).
  const Int128 first = -floorDiv(-(Int128{lo} * two - f.r), f.m);
  const Int128 last = floorDiv((Int128{hi} + 1) * two - f.r - 1, f.m);
  const Interval window{std::max(x.lo, first - 1), std::min(x.hi, last + 1)};
  if (window.hi - window.lo + 1 > kMaxWindowValues) return std::nullopt;
  return exactConstant(f, window, clamped);
}

// The int32 value of `f` by a float form with constant `c`.
PrimExpr floatForm(const FixedPointForm& f, float c, bool clamped) {
  const int lanes = f.x->dtype.lanes();
  const DataType f32 = DataType::float32().withLanes(lanes);
  const DataType i32 = DataType::int32().withLanes(lanes);
  const auto splat = [&](PrimExpr v) { return lanes > 1 ? broadcast(v, lanes) : v; };
  PrimExpr t = call(f32, "tir.fma", {cast(f32, f.x), splat(floatImm(c)), splat(floatImm(kMagic))});
  if (clamped) t = max(t, splat(floatImm(kClampFloor)));
  return sub(call(i32, "tir.reinterpret", {t}), constantLike(std::bit_cast<int32_t>(kMagic), i32));
}

// `min(max(a, lo), hi)` or `max(min(a, hi), lo)` with constant bounds.
struct Clip {
  PrimExpr value;
  int64_t lo = 0, hi = 0;
};
std::optional<Clip> matchClip(const PrimExpr& e) {
  const auto* outer = e->as<BinaryNode>();
  if (!outer || (outer->op != BinaryOp::kMin && outer->op != BinaryOp::kMax)) return std::nullopt;
  const auto* inner = outer->a->as<BinaryNode>();
  const BinaryOp innerOp = outer->op == BinaryOp::kMin ? BinaryOp::kMax : BinaryOp::kMin;
  if (!inner || inner->op != innerOp) return std::nullopt;
  const std::optional<int64_t> outerBound = constantOf(outer->b), innerBound = constantOf(inner->b);
  if (!outerBound || !innerBound) return std::nullopt;
  return outer->op == BinaryOp::kMin ? Clip{inner->a, *innerBound, *outerBound}
                                     : Clip{inner->a, *outerBound, *innerBound};
}

bool targetHasFma(const PrimFunc& func) {
  const AttrValue* t = func->attrs.find("target");
  return t && target::Target::parse(t->asString()).hasFeature("fma");
}

class Narrower : public IRMutator {
 public:
  explicit Narrower(bool fma) : fma_(fma) {}

  PrimExpr visitExpr(const PrimExpr& e) override {
    if (!e) return e;
    if (fma_) {
      if (std::optional<PrimExpr> clipped = clippedFloatForm(e)) return *clipped;
    }
    // The narrowing cast around the multiply. The narrow form computes the same integer (it fits
    // int32), so any cast of it to 32 bits or fewer gives what the cast of the int64 one gave.
    if (const auto* c = e->as<CastNode>(); c && c->dtype.isInteger() && c->dtype.bits() <= 32) {
      if (std::optional<FixedPointForm> f = matchFixedPoint(c->value)) {
        // The operand's bound is read before its own multiplies are rewritten (a residual
        // addition requantizes a requantized value): the float form's bits bound nothing. The
        // operand is visited only where a form is taken; else the fall-through visits it.
        const arith::ConstIntBound b = analyzer_.constIntBound(f->x);
        const bool vector = c->dtype.lanes() > 1;
        if (b.min != arith::ConstIntBound::kNegInf && b.max != arith::ConstIntBound::kPosInf) {
          const Interval range{b.min, b.max};
          const std::optional<Split> sp = chooseSplit(*f, range);
          if (fma_ && (!sp || sp->ml != 0 || !vector)) {
            if (std::optional<float> c = floatFormOf(*f, range)) {
              f->x = visitExpr(f->x);
              return cast(e->dtype, floatForm(*f, *c, /*clamped=*/false));
            }
          }
          if (sp && vector) {
            f->x = visitExpr(f->x);
            return cast(e->dtype, narrowForm(*f, *sp));
          }
        }
      }
    }
    return IRMutator::visitExpr(e);
  }

 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    analyzer_.bind(op->loopVar, Range{op->min, op->extent});
    return IRMutator::visitFor(op, self);
  }

 private:
  // A clip around a requantizing multiply whose operand neither split nor the checked float form
  // can take (too wide a bound): the clamped float form, when the window checks.
  std::optional<PrimExpr> clippedFloatForm(const PrimExpr& e) {
    const std::optional<Clip> clip = matchClip(e);
    if (!clip) return std::nullopt;
    const auto* narrow = clip->value->as<CastNode>();
    if (!narrow || narrow->dtype.element() != DataType::int32()) return std::nullopt;
    std::optional<FixedPointForm> f = matchFixedPoint(narrow->value);
    if (!f) return std::nullopt;
    if (std::optional<PrimExpr> folded = foldedClipsForm(*clip, *f)) return folded;
    const arith::ConstIntBound b = analyzer_.constIntBound(f->x);
    const DataType xt = f->x->dtype.element();
    Interval range{xt.isUInt() ? 0 : -(Int128{1} << (xt.bits() - 1)),
                   (Int128{1} << (xt.bits() - (xt.isUInt() ? 0 : 1))) - 1};
    if (b.min != arith::ConstIntBound::kNegInf) range.lo = std::max<Int128>(range.lo, b.min);
    if (b.max != arith::ConstIntBound::kPosInf) range.hi = std::min<Int128>(range.hi, b.max);
    // Where the plain forms apply they are as cheap or cheaper.
    const std::optional<Split> sp = chooseSplit(*f, range);
    if ((sp && sp->ml == 0) || floatFormOf(*f, range)) return std::nullopt;
    const auto key = std::tuple{f->m, f->r, f->s, range.lo, range.hi, clip->lo, clip->hi};
    auto it = clamped_.find(key);
    if (it == clamped_.end())
      it = clamped_.emplace(key, chooseWindowFloatForm(*f, range, clip->lo, clip->hi, true)).first;
    if (!it->second) return std::nullopt;
    f->x = visitExpr(f->x);  // only where this form is taken: else the caller visits it
    const DataType i32 = clip->value->dtype;
    return min(max(floatForm(*f, *it->second, /*clamped=*/true), constantLike(clip->lo, i32)),
               constantLike(clip->hi, i32));
  }

  // A relu6 epilogue, clip(f(clip(y, lo1, hi1)), lo2, hi2) with a positive multiplier (f is then
  // non-decreasing) and lo1 >= 0: where f(hi1) >= hi2 the inner upper bound changes no result
  // (every y above it ends at hi2 either way), and where f(lo1) >= lo2 neither does the outer
  // lower bound. Without them the operand max(y, lo1) is bounded only below, so the multiply takes
  // the plain float form checked on the window of operands whose results lie within the outer
  // clip: two vector operations fewer than the clipped operand's checked float form.
  std::optional<PrimExpr> foldedClipsForm(const Clip& clip, FixedPointForm f) {
    const std::optional<Clip> inner = matchClip(f.x);
    if (!inner || f.m <= 0 || inner->lo < 0 || inner->lo > inner->hi) return std::nullopt;
    const auto exact = [&](int64_t v) { return floorShift(Int128{v} * f.m + f.r, f.s); };
    if (exact(inner->hi) < clip.hi) return std::nullopt;
    const auto key = std::tuple{f.m, f.r, f.s, Int128{inner->lo}, kInt32Max, clip.lo, clip.hi};
    auto it = folded_.find(key);
    if (it == folded_.end())
      it = folded_
               .emplace(key, chooseWindowFloatForm(f, Interval{inner->lo, kInt32Max}, clip.lo,
                                                   clip.hi, /*clamped=*/false))
               .first;
    if (!it->second) return std::nullopt;
    const DataType i32 = clip.value->dtype;
    f.x = max(visitExpr(inner->value), constantLike(inner->lo, inner->value->dtype));
    PrimExpr result = floatForm(f, *it->second, /*clamped=*/false);
    if (exact(inner->lo) < clip.lo) result = max(result, constantLike(clip.lo, i32));
    return min(result, constantLike(clip.hi, i32));
  }

  // An unrolled kernel repeats one epilogue per accumulator: each form is checked once.
  std::optional<float> floatFormOf(const FixedPointForm& f, Interval x) {
    const auto key = std::tuple{f.m, f.r, f.s, x.lo, x.hi};
    auto it = checked_.find(key);
    if (it == checked_.end()) it = checked_.emplace(key, chooseFloatForm(f, x)).first;
    return it->second;
  }

  bool fma_;
  arith::Analyzer analyzer_;
  std::map<std::tuple<int64_t, int64_t, int64_t, Int128, Int128>, std::optional<float>> checked_;
  std::map<std::tuple<int64_t, int64_t, int64_t, Int128, Int128, int64_t, int64_t>,
           std::optional<float>>
      clamped_, folded_;
};

}  // namespace

PrimFunc narrowFixedPointMultiply(const PrimFunc& func) {
  Narrower narrower(targetHasFma(func));
  return withBody(func, narrower.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
