// Broadcast binary computes. Integer division and modulo follow the reference kernels (truncating
// divide/mod, flooring floor_divide/floor_mod); power of integers is exact (see powerExpr).
#include "topi/broadcast.h"

#include <map>

#include "support/diagnostic.h"

namespace tessera::topi {
namespace {

using Fn = PrimExpr (*)(const PrimExpr&, const PrimExpr&);

PrimExpr floatFloor(const PrimExpr& x) {
  return tir::call(x->dtype, "tir.floor", {x});
}

// Shifts by amounts outside [0, bits) shift every bit out (arithmetic right shifts keep the
// sign), as the reference defines them.
PrimExpr shiftExpr(const char* op, bool left, const PrimExpr& a, const PrimExpr& b) {
  const DataType t = a->dtype;
  const int bits = t.bits();
  PrimExpr inRange = tir::logicalAnd(tir::ge(b, constOf(t, 0)), tir::lt(b, constOf(t, bits)));
  PrimExpr shifted = tir::call(t, op, {a, b});
  PrimExpr out;
  if (left || t.isUInt())
    out = constOf(t, 0);
  else
    out = tir::select(tir::lt(a, constOf(t, 0)), constOf(t, -1), constOf(t, 0));
  return tir::select(inRange, shifted, out);
}

// tir.pow of integers is exact and wraps, with the reference's rule for negative exponents (0
// except for bases 1 and -1); the evaluator and codegen implement it, as llvm.pow has no integer
// form.
PrimExpr powerExpr(const PrimExpr& a, const PrimExpr& b) {
  return tir::call(a->dtype, "tir.pow", {a, b});
}

const std::map<std::string, Fn>& binaryTable() {
  static const std::map<std::string, Fn> table = {
      {"add", [](const PrimExpr& a, const PrimExpr& b) { return tir::add(a, b); }},
      {"subtract", [](const PrimExpr& a, const PrimExpr& b) { return tir::sub(a, b); }},
      {"multiply", [](const PrimExpr& a, const PrimExpr& b) { return tir::mul(a, b); }},
      {"divide", [](const PrimExpr& a, const PrimExpr& b) { return tir::truncdiv(a, b); }},
      {"floor_divide",
       [](const PrimExpr& a, const PrimExpr& b) {
         return a->dtype.isFloat() ? floatFloor(tir::truncdiv(a, b)) : tir::floordiv(a, b);
       }},
      {"mod", [](const PrimExpr& a, const PrimExpr& b) { return tir::truncmod(a, b); }},
      {"floor_mod",
       [](const PrimExpr& a, const PrimExpr& b) {
         if (!a->dtype.isFloat()) return tir::floormod(a, b);
         return tir::sub(a, tir::mul(floatFloor(tir::truncdiv(a, b)), b));
       }},
      {"power", powerExpr},
      {"maximum", [](const PrimExpr& a, const PrimExpr& b) { return tir::max(a, b); }},
      {"minimum", [](const PrimExpr& a, const PrimExpr& b) { return tir::min(a, b); }},
      {"left_shift", [](const PrimExpr& a,
                        const PrimExpr& b) { return shiftExpr("tir.shift_left", true, a, b); }},
      {"right_shift", [](const PrimExpr& a,
                         const PrimExpr& b) { return shiftExpr("tir.shift_right", false, a, b); }},
      {"equal", [](const PrimExpr& a, const PrimExpr& b) { return tir::eq(a, b); }},
      {"not_equal", [](const PrimExpr& a, const PrimExpr& b) { return tir::ne(a, b); }},
      {"less", [](const PrimExpr& a, const PrimExpr& b) { return tir::lt(a, b); }},
      {"less_equal", [](const PrimExpr& a, const PrimExpr& b) { return tir::le(a, b); }},
      {"greater", [](const PrimExpr& a, const PrimExpr& b) { return tir::gt(a, b); }},
      {"greater_equal", [](const PrimExpr& a, const PrimExpr& b) { return tir::ge(a, b); }},
      {"logical_and", [](const PrimExpr& a, const PrimExpr& b) { return tir::logicalAnd(a, b); }},
      {"logical_or", [](const PrimExpr& a, const PrimExpr& b) { return tir::logicalOr(a, b); }},
      {"bitwise_and",
       [](const PrimExpr& a, const PrimExpr& b) {
         return tir::call(a->dtype, "tir.bitwise_and", {a, b});
       }},
      {"bitwise_or",
       [](const PrimExpr& a, const PrimExpr& b) {
         return tir::call(a->dtype, "tir.bitwise_or", {a, b});
       }},
      {"bitwise_xor",
       [](const PrimExpr& a, const PrimExpr& b) {
         return tir::call(a->dtype, "tir.bitwise_xor", {a, b});
       }},
  };
  return table;
}

}  // namespace

Tensor broadcastBinary(const Tensor& a, const Tensor& b, const BinaryFn& f,
                       const std::string& name) {
  std::vector<PrimExpr> shape = broadcastShape(a.shape(), b.shape(), name);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        return f(a(broadcastIndex(a, shape, i)), b(broadcastIndex(b, shape, i)));
      },
      te::ComputeOptions{.name = name, .tag = "broadcast", .indexNames = axisNames(shape.size())});
}

bool isBinaryOp(const std::string& op) {
  return binaryTable().count(op) > 0;
}

PrimExpr binaryExpr(const std::string& op, const PrimExpr& a, const PrimExpr& b) {
  auto it = binaryTable().find(op);
  if (it == binaryTable().end()) throwDiagnostic("topi_op", "no binary compute named " + op);
  return it->second(a, b);
}

Tensor binaryOp(const std::string& op, const Tensor& a, const Tensor& b) {
  return broadcastBinary(
      a, b, [&](const PrimExpr& x, const PrimExpr& y) { return binaryExpr(op, x, y); }, "T_" + op);
}

Tensor add(const Tensor& a, const Tensor& b) {
  return binaryOp("add", a, b);
}
Tensor multiply(const Tensor& a, const Tensor& b) {
  return binaryOp("multiply", a, b);
}

Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y) {
  std::vector<PrimExpr> shape =
      broadcastShape(broadcastShape(cond.shape(), x.shape(), "where"), y.shape(), "where");
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        PrimExpr c = cond(broadcastIndex(cond, shape, i));
        if (!c->dtype.isBool()) c = tir::ne(c, constOf(c->dtype, 0));
        return tir::select(c, x(broadcastIndex(x, shape, i)), y(broadcastIndex(y, shape, i)));
      },
      te::ComputeOptions{
          .name = "T_where", .tag = "broadcast", .indexNames = axisNames(shape.size())});
}

}  // namespace tessera::topi
