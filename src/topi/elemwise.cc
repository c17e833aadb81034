// Elementwise computes. Float math uses TIR intrinsics (tir.exp, tir.erf, ...); integer forms
// follow the reference kernels (floor/ceil/trunc/round keep integers, isnan is false, ...).
#include "topi/elemwise.h"

#include <map>

#include "support/diagnostic.h"

namespace tessera::topi {
namespace {

using Fn = PrimExpr (*)(const PrimExpr&);

PrimExpr intrinsic(const char* name, const PrimExpr& x) {
  return tir::call(x->dtype, name, {x});
}
PrimExpr boolCall(const char* name, const PrimExpr& x) {
  return tir::call(DataType::boolType(), name, {x});
}
bool isFloat(const PrimExpr& x) {
  return x->dtype.isFloat();
}

// Float-only ops reject other dtypes; the type relation already did, so this is a guard for
// direct TOPI users.
PrimExpr floatOnly(const char* op, const PrimExpr& x) {
  if (!isFloat(x)) throwDiagnostic("topi_dtype", std::string(op) + ": needs a float tensor");
  return x;
}

PrimExpr signExpr(const PrimExpr& x) {
  const DataType t = x->dtype;
  if (t.isUInt() || t.isBool()) return tir::cast(t, tir::gt(x, constOf(t, 0)));
  PrimExpr s = tir::select(tir::gt(x, constOf(t, 0)), constOf(t, 1),
                           tir::select(tir::lt(x, constOf(t, 0)), constOf(t, -1), constOf(t, 0)));
  // NaN stays NaN, as in the reference.
  return isFloat(x) ? tir::select(boolCall("tir.isnan", x), x, s) : s;
}

const std::map<std::string, Fn>& unaryTable() {
  static const std::map<std::string, Fn> table = {
      {"negative", [](const PrimExpr& x) { return tir::sub(constOf(x->dtype, 0), x); }},
      {"exp", [](const PrimExpr& x) { return intrinsic("tir.exp", floatOnly("exp", x)); }},
      {"log", [](const PrimExpr& x) { return intrinsic("tir.log", floatOnly("log", x)); }},
      {"log2", [](const PrimExpr& x) { return intrinsic("tir.log2", floatOnly("log2", x)); }},
      {"log10", [](const PrimExpr& x) { return intrinsic("tir.log10", floatOnly("log10", x)); }},
      {"sqrt", [](const PrimExpr& x) { return intrinsic("tir.sqrt", floatOnly("sqrt", x)); }},
      {"rsqrt", [](const PrimExpr& x) { return intrinsic("tir.rsqrt", floatOnly("rsqrt", x)); }},
      {"tanh", [](const PrimExpr& x) { return intrinsic("tir.tanh", floatOnly("tanh", x)); }},
      {"sigmoid",
       [](const PrimExpr& x) { return intrinsic("tir.sigmoid", floatOnly("sigmoid", x)); }},
      {"erf", [](const PrimExpr& x) { return intrinsic("tir.erf", floatOnly("erf", x)); }},
      {"sin", [](const PrimExpr& x) { return intrinsic("tir.sin", floatOnly("sin", x)); }},
      {"cos", [](const PrimExpr& x) { return intrinsic("tir.cos", floatOnly("cos", x)); }},
      {"asin", [](const PrimExpr& x) { return intrinsic("tir.asin", floatOnly("asin", x)); }},
      {"acos", [](const PrimExpr& x) { return intrinsic("tir.acos", floatOnly("acos", x)); }},
      {"atan", [](const PrimExpr& x) { return intrinsic("tir.atan", floatOnly("atan", x)); }},
      {"round", [](const PrimExpr& x) { return isFloat(x) ? intrinsic("tir.round", x) : x; }},
      {"floor", [](const PrimExpr& x) { return isFloat(x) ? intrinsic("tir.floor", x) : x; }},
      {"ceil", [](const PrimExpr& x) { return isFloat(x) ? intrinsic("tir.ceil", x) : x; }},
      {"trunc", [](const PrimExpr& x) { return isFloat(x) ? intrinsic("tir.trunc", x) : x; }},
      {"sign", signExpr},
      {"abs",
       [](const PrimExpr& x) {
         if (isFloat(x)) return intrinsic("tir.fabs", x);
         if (!x->dtype.isInt()) return x;
         return tir::select(tir::lt(x, constOf(x->dtype, 0)), tir::sub(constOf(x->dtype, 0), x), x);
       }},
      {"copy", [](const PrimExpr& x) { return x; }},
      {"logical_not", [](const PrimExpr& x) { return tir::logicalNot(x); }},
      {"bitwise_not", [](const PrimExpr& x) { return intrinsic("tir.bitwise_not", x); }},
      {"isnan",
       [](const PrimExpr& x) {
         return isFloat(x) ? boolCall("tir.isnan", x) : tir::boolImm(false);
       }},
      {"isinf",
       [](const PrimExpr& x) {
         return isFloat(x) ? boolCall("tir.isinf", x) : tir::boolImm(false);
       }},
      {"isfinite",
       [](const PrimExpr& x) {
         return isFloat(x) ? boolCall("tir.isfinite", x) : tir::boolImm(true);
       }},
  };
  return table;
}

}  // namespace

Tensor elementwise(const Tensor& x, const std::function<PrimExpr(const PrimExpr&)>& f,
                   const std::string& name) {
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) { return f(x(std::vector<PrimExpr>(i.begin(), i.end()))); },
      te::ComputeOptions{.name = name, .tag = "elemwise"});
}

bool isUnaryOp(const std::string& op) {
  return unaryTable().count(op) > 0;
}

PrimExpr unaryExpr(const std::string& op, const PrimExpr& x) {
  auto it = unaryTable().find(op);
  if (it == unaryTable().end()) throwDiagnostic("topi_op", "no unary compute named " + op);
  return it->second(x);
}

Tensor unaryOp(const std::string& op, const Tensor& x) {
  const std::string name = "T_" + op;
  return elementwise(x, [&](const PrimExpr& v) { return unaryExpr(op, v); }, name);
}

Tensor cast(const Tensor& x, DataType dtype) {
  return elementwise(x, [&](const PrimExpr& v) { return tir::cast(dtype, v); }, "T_cast");
}

Tensor clip(const Tensor& x, double lo, double hi) {
  const DataType t = x.dtype();
  return elementwise(
      x, [&](const PrimExpr& v) { return tir::min(tir::max(v, constOf(t, lo)), constOf(t, hi)); },
      "T_clip");
}

Tensor relu(const Tensor& x) {
  return elementwise(
      x, [&](const PrimExpr& v) { return tir::max(v, constOf(v->dtype, 0)); }, "T_relu");
}

Tensor leakyRelu(const Tensor& x, double alpha) {
  return elementwise(
      x,
      [&](const PrimExpr& v) {
        const DataType t = v->dtype;
        return tir::select(tir::gt(v, constOf(t, 0)), v, tir::mul(v, constOf(t, alpha)));
      },
      "T_leaky_relu");
}

Tensor full(const std::vector<PrimExpr>& shape, DataType dtype, const Tensor& fillValue) {
  return te::compute(
      shape, [&](const std::vector<Var>&) { return tir::cast(dtype, fillValue({})); },
      te::ComputeOptions{.name = "T_full", .tag = "elemwise"});
}

Tensor fullConst(const std::vector<PrimExpr>& shape, DataType dtype, double value,
                 const std::string& name) {
  return te::compute(
      shape, [&](const std::vector<Var>&) { return constOf(dtype, value); },
      te::ComputeOptions{.name = name, .tag = "elemwise"});
}

Tensor fixedPointMultiply(const Tensor& x, int64_t multiplier, int64_t shift) {
  const DataType i64 = DataType::int64(), i32 = DataType::int32();
  auto shr = [&](PrimExpr a, int64_t s) {
    return tir::call(a->dtype, "tir.shift_right", {a, tir::intImm(s, a->dtype)});
  };
  return elementwise(
      x,
      [&](const PrimExpr& v) -> PrimExpr {
        PrimExpr result;
        if (multiplier == (int64_t{1} << 30)) {
          // A power of two: shift in int32 with round-half-up, as TVM's lowering does.
          const int64_t e = shift - 1;
          PrimExpr xi = tir::cast(i32, v);
          if (e == 0)
            result = xi;
          else if (e > 0)
            result = e >= 32 ? tir::intImm(0, i32)
                             : tir::call(i32, "tir.shift_left", {xi, tir::intImm(e, i32)});
          else
            result = shr(tir::add(xi, tir::intImm(-e > 32 ? 0 : int64_t{1} << (-e - 1), i32)),
                         std::min<int64_t>(-e, 31));
        } else {
          const int64_t ls = std::max<int64_t>(shift, 0), rs = std::max<int64_t>(-shift, 0);
          PrimExpr t = tir::cast(i64, v);
          if (ls > 0)
            t = ls >= 63 ? tir::intImm(0, i64) : tir::mul(t, tir::intImm(int64_t{1} << ls, i64));
          t = tir::mul(t, tir::intImm(multiplier, i64));
          if (30 + rs < 63) t = tir::add(t, tir::intImm(int64_t{1} << (30 + rs), i64));
          result = tir::cast(i32, shr(t, std::min<int64_t>(31 + rs, 63)));
        }
        return tir::cast(v->dtype, result);
      },
      "T_fixed_point_multiply");
}

}  // namespace tessera::topi
