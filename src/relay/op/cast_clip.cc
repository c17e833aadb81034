// Element-type conversion and value-range ops: cast, clip, fixed_point_multiply (the exact integer
// semantics of spec §3.7), TVM's GetFixedPointMultiplierShift, and the identity annotations
// annotation.stop_fusion and annotation.cast_hint. Every conversion is defined for every input:
// float-to-int casts saturate where C++ would be undefined, and shifts never exceed the width.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/tensor.h"
#include "support/check.h"

namespace tessera::relay {
namespace {

// --- cast ----------------------------------------------------------------------------------------

// Converts in[i] into out[j]'s dtype (spec §3.6): float to integer truncates toward zero and
// saturates at the target's range (NaN gives 0); integer to integer keeps the low bits; anything
// to bool tests != 0 (NaN is true, as in C++ and LLVM's fcmp une).
void castElement(const NDArray& in, int64_t i, const NDArray& out, int64_t j) {
  const DataType from = in.dtype();
  const DataType to = out.dtype();
  if (to.isBool()) {
    out.setUInt(j, from.isFloat() ? in.getFloat(i) != 0.0 : in.getUInt(i) != 0);
    return;
  }
  if (to.isFloat()) {
    out.setFloat(j, in.getFloat(i));  // getFloat reads every integer type exactly as a double
    return;
  }
  if (!from.isFloat()) {
    if (from.isInt())
      out.setInt(j, in.getInt(i));  // setInt wraps to the target width
    else
      out.setUInt(j, in.getUInt(i));
    return;
  }
  const double v = std::trunc(in.getFloat(i));
  if (std::isnan(v)) {
    out.setInt(j, 0);
    return;
  }
  if (to.isUInt()) {
    const uint64_t top = to.bits() == 64 ? ~uint64_t{0} : (uint64_t{1} << to.bits()) - 1;
    // static_cast<double>(top) may round up to 2^bits; >= catches exactly the overflowing values.
    if (v <= 0)
      out.setUInt(j, 0);
    else if (v >= static_cast<double>(top))
      out.setUInt(j, top);
    else
      out.setUInt(j, static_cast<uint64_t>(v));
    return;
  }
  const int64_t top =
      to.bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (to.bits() - 1)) - 1;
  const int64_t bottom = -top - 1;
  if (v >= static_cast<double>(top))
    out.setInt(j, top);
  else if (v <= static_cast<double>(bottom))
    out.setInt(j, bottom);
  else
    out.setInt(j, static_cast<int64_t>(v));
}

std::optional<Type> castRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const DataType dtype = r.attrs<CastAttrs>().dtype;
  if (dtype.isVoid())
    r.fail("cast_c1", "dtype must be set to cast data of type " + typeToString(r.arg(0)));
  return tensorType(t->shape, dtype);
}

Value castKernel(const std::vector<Value>& args, const AttrsNode*, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  for (int64_t i = 0; i < x.numel(); ++i) castElement(x, i, out, i);
  return out;
}

// --- clip ----------------------------------------------------------------------------------------

// A bound converted to `dtype` exactly as cast would convert it (e.g. -1e10 to int8 is -128).
NDArray boundIn(double bound, DataType dtype) {
  NDArray converted = NDArray::empty({}, dtype);
  castElement(NDArray::scalar(bound, DataType::float64()), 0, converted, 0);
  return converted;
}

// Identity type; reading the attrs makes a call built without its required bounds an internal
// error here rather than in the kernel.
std::optional<Type> clipRel(const TypeReporter& r) {
  (void)r.attrs<ClipAttrs>();
  return identityRel(r);
}

Value clipKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const auto* a = attrsAs<ClipAttrs>(attrs);
  TS_CHECK(a) << "clip without ClipAttrs";
  NDArray out = allocTensor(outType);
  const DataType t = x.dtype();
  const NDArray lo = boundIn(a->aMin, t);
  const NDArray hi = boundIn(a->aMax, t);
  // min(max(x, lo), hi): with lo > hi every element becomes hi; a NaN element stays NaN.
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (t.isFloat()) {
      double v = x.getFloat(i);
      if (v < lo.getFloat(0)) v = lo.getFloat(0);
      if (v > hi.getFloat(0)) v = hi.getFloat(0);
      out.setFloat(i, v);
    } else if (t.isInt()) {
      out.setInt(i, std::min(std::max(x.getInt(i), lo.getInt(0)), hi.getInt(0)));
    } else {
      out.setUInt(i, std::min(std::max(x.getUInt(i), lo.getUInt(0)), hi.getUInt(0)));
    }
  }
  return out;
}

// --- fixed_point_multiply ------------------------------------------------------------------------

// One element of spec §3.7. Shift amounts that would reach the 64-bit width (|shift| > 32, far
// outside what GetFixedPointMultiplierShift produces for int32 data) saturate instead of being
// undefined: left shifts give 0, right shifts give the sign.
int32_t fixedPointMultiplyElement(int64_t x, int32_t m, int32_t s) {
  if (m == (int32_t{1} << 30)) {
    // An exact power of two: TVM's lowering shifts in int32 arithmetic.
    const int64_t e = int64_t{s} - 1;
    const int32_t xi = static_cast<int32_t>(x);
    if (e == 0) return xi;  // TVM computes 1 << -1 here (undefined); a factor of 1 is x
    if (e > 0) return e >= 32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(xi) << e);
    const int64_t rshift = -e;
    const uint32_t round = rshift > 32 ? 0 : static_cast<uint32_t>(uint64_t{1} << (rshift - 1));
    const auto sum = static_cast<int32_t>(static_cast<uint32_t>(xi) + round);  // int32 wraps
    return sum >> std::min<int64_t>(rshift, 31);
  }
  const int64_t ls = std::max<int32_t>(s, 0);
  const int64_t rs = std::max<int64_t>(-int64_t{s}, 0);
  // Two's-complement products and shifts are computed on uint64 so that overflow wraps.
  uint64_t t = ls >= 64 ? 0 : static_cast<uint64_t>(x) << ls;
  t *= static_cast<uint64_t>(int64_t{m});
  if (30 + rs < 64) t += uint64_t{1} << (30 + rs);  // + 0.5 ulp: round half toward +inf
  const auto wide = static_cast<int64_t>(t);
  const int64_t total = 31 + rs;
  const int64_t y = total >= 64 ? (wide < 0 ? -1 : 0) : wide >> total;
  return static_cast<int32_t>(y);
}

std::optional<Type> fixedPointMultiplyRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  (void)r.attrs<FixedPointMultiplyAttrs>();  // required: a call without them is a bug
  if (!t->dtype.isInteger()) {
    r.fail("fixed_point_multiply_c1",
           "data of type " + typeToString(r.arg(0)) + " must have an integer dtype");
  }
  return r.arg(0);
}

Value fixedPointMultiplyKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                               const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const auto* a = attrsAs<FixedPointMultiplyAttrs>(attrs);
  TS_CHECK(a) << "fixed_point_multiply without FixedPointMultiplyAttrs";
  NDArray out = allocTensor(outType);
  // The result is narrowed through int32 even for int64 data (spec §3.7), then widened back.
  for (int64_t i = 0; i < x.numel(); ++i)
    out.setInt(i, fixedPointMultiplyElement(x.getInt(i), a->multiplier, a->shift));
  return out;
}

// --- annotations ---------------------------------------------------------------------------------

Value identityKernel(const std::vector<Value>& args, const AttrsNode*, const Type&) {
  return args.at(0);
}

}  // namespace

std::pair<int32_t, int32_t> fixedPointMultiplierShift(double value) {
  // TVM casts NaN/inf to integers here (undefined); x86-64 yields (0, 0), which seed 000 relies on.
  if (value == 0.0 || !std::isfinite(value)) return {0, 0};
  int exponent = 0;
  const double fraction = std::frexp(value, &exponent);  // value = fraction * 2^exponent
  int64_t q = std::llround(fraction * 2147483648.0);
  if (q == (int64_t{1} << 31)) {
    // Rounding reached 1.0: renormalise so the multiplier fits in int32.
    q /= 2;
    ++exponent;
  }
  return {static_cast<int32_t>(q), exponent};
}

// The annotations are kOpaque so FuseOps keeps them as boundaries; neither is
// TNonComputational (spec §1.5), so FoldConstant may fold through them.
void registerCastOps(OpRegistry& r) {
  r.add(OpDef{.name = "cast",
              .args = {"data"},
              .summary = "convert the element type (float to int truncates and saturates)",
              .attrs = attrsType<CastAttrs>(),
              .typeRelation = castRel,
              .pattern = OpPattern::kElemWise,
              .kernel = castKernel});
  r.add(OpDef{.name = "clip",
              .args = {"data"},
              .summary = "min(max(x, a_min), a_max) with the bounds in x's dtype",
              .attrs = attrsType<ClipAttrs>(),
              .typeRelation = clipRel,
              .pattern = OpPattern::kElemWise,
              .kernel = clipKernel});
  r.add(OpDef{.name = "fixed_point_multiply",
              .args = {"data"},
              .summary = "x * multiplier * 2^(shift - 31) in exact integer arithmetic",
              .attrs = attrsType<FixedPointMultiplyAttrs>(),
              .typeRelation = fixedPointMultiplyRel,
              .pattern = OpPattern::kElemWise,
              .kernel = fixedPointMultiplyKernel});
  r.add(OpDef{.name = "annotation.stop_fusion",
              .args = {"data"},
              .summary = "identity that FuseOps never fuses across",
              .typeRelation = identityRel,
              .pattern = OpPattern::kOpaque,
              .kernel = identityKernel});
  r.add(OpDef{.name = "annotation.cast_hint",
              .args = {"data"},
              .summary = "identity marking data as to be cast to dtype",
              .attrs = attrsType<CastHintAttrs>(),
              .typeRelation = identityRel,
              .pattern = OpPattern::kOpaque,
              .kernel = identityKernel});
}

// --- builders ------------------------------------------------------------------------------------

Expr cast(Expr data, DataType dtype) {
  return makeCall(opByName("cast"), {std::move(data)}, makeAttrs(CastAttrs{.dtype = dtype}));
}
Expr clip(Expr data, double aMin, double aMax) {
  return makeCall(opByName("clip"), {std::move(data)},
                  makeAttrs(ClipAttrs{.aMin = aMin, .aMax = aMax}));
}
Expr fixedPointMultiply(Expr data, int32_t multiplier, int32_t shift) {
  return makeCall(opByName("fixed_point_multiply"), {std::move(data)},
                  makeAttrs(FixedPointMultiplyAttrs{.multiplier = multiplier, .shift = shift}));
}
Expr stopFusion(Expr data) {
  return makeCall(opByName("annotation.stop_fusion"), {std::move(data)});
}
Expr castHint(Expr data, DataType dtype) {
  return makeCall(opByName("annotation.cast_hint"), {std::move(data)},
                  makeAttrs(CastHintAttrs{.dtype = dtype}));
}

}  // namespace tessera::relay
