// Scalar semantics of the TensorIR evaluator: arithmetic in the element type (integers wrap to
// their width, float32 rounds after every operation), C casts, truncating vs flooring division,
// intrinsics, and element loads/stores of every dtype.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "support/diagnostic.h"
#include "support/float16.h"
#include "support/int_power.h"
#include "tir/eval/eval_program.h"

namespace tessera::tir::evalimpl {

int64_t wrapInt(int64_t v, DataType t) {
  int bits = t.bits();
  if (t.isBool()) return v != 0;
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.code() == DataType::Code::kUInt) return static_cast<int64_t>(u);
  // Sign-extend from `bits`.
  uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((u ^ sign) - sign);
}

double roundFloat(double v, DataType t) {
  if (t.code() == DataType::Code::kBFloat)
    return bfloat16ToFloat(floatToBfloat16(static_cast<float>(v)));
  switch (t.bits()) {
    case 16:
      return halfToFloat(floatToHalf(static_cast<float>(v)));
    case 32:
      return static_cast<double>(static_cast<float>(v));
    default:
      return v;
  }
}

namespace {

bool isUnsigned(DataType t) {
  return t.code() == DataType::Code::kUInt;
}

[[noreturn]] void divisionByZero(const char* what) {
  throwDiagnostic("tir_eval", std::string(what) + ": integer division by zero");
}

Scalar intResult(int64_t v, DataType t) {
  Scalar s;
  s.i = wrapInt(v, t);
  return s;
}
Scalar floatResult(double v, DataType t) {
  Scalar s;
  s.f = roundFloat(v, t);
  return s;
}
Scalar boolResult(bool v) {
  Scalar s;
  s.i = v ? 1 : 0;
  return s;
}

int64_t floorDivInt(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // wraps like hardware
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorModInt(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Scalar integerBinary(BinaryOp op, DataType t, int64_t a, int64_t b, const char* what) {
  auto ua = static_cast<uint64_t>(a);
  auto ub = static_cast<uint64_t>(b);
  bool uns = isUnsigned(t) || t.isBool();
  switch (op) {
    case BinaryOp::kAdd:
      return intResult(static_cast<int64_t>(ua + ub), t);
    case BinaryOp::kSub:
      return intResult(static_cast<int64_t>(ua - ub), t);
    case BinaryOp::kMul:
      return intResult(static_cast<int64_t>(ua * ub), t);
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
      if (b == 0) divisionByZero(what);
      if (uns) return intResult(static_cast<int64_t>(ua / ub), t);
      if (op == BinaryOp::kFloorDiv) return intResult(floorDivInt(a, b), t);
      return intResult(b == -1 ? static_cast<int64_t>(0 - ua) : a / b, t);
    case BinaryOp::kMod:
    case BinaryOp::kFloorMod:
      if (b == 0) divisionByZero(what);
      if (uns) return intResult(static_cast<int64_t>(ua % ub), t);
      if (op == BinaryOp::kFloorMod) return intResult(floorModInt(a, b), t);
      return intResult(b == -1 ? 0 : a % b, t);
    case BinaryOp::kMin:
      return intResult(uns ? static_cast<int64_t>(std::min(ua, ub)) : std::min(a, b), t);
    case BinaryOp::kMax:
      return intResult(uns ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b), t);
    case BinaryOp::kEQ:
      return boolResult(a == b);
    case BinaryOp::kNE:
      return boolResult(a != b);
    case BinaryOp::kLT:
      return boolResult(uns ? ua < ub : a < b);
    case BinaryOp::kLE:
      return boolResult(uns ? ua <= ub : a <= b);
    case BinaryOp::kGT:
      return boolResult(uns ? ua > ub : a > b);
    case BinaryOp::kGE:
      return boolResult(uns ? ua >= ub : a >= b);
    case BinaryOp::kAnd:
      return boolResult(a != 0 && b != 0);
    case BinaryOp::kOr:
      return boolResult(a != 0 || b != 0);
  }
  return intResult(0, t);
}

Scalar floatBinary(BinaryOp op, DataType t, double a, double b) {
  switch (op) {
    case BinaryOp::kAdd:
      return floatResult(a + b, t);
    case BinaryOp::kSub:
      return floatResult(a - b, t);
    case BinaryOp::kMul:
      return floatResult(a * b, t);
    case BinaryOp::kDiv:
      return floatResult(a / b, t);
    case BinaryOp::kMod:
      return floatResult(std::fmod(a, b), t);
    case BinaryOp::kFloorDiv:
      return floatResult(std::floor(roundFloat(a / b, t)), t);
    case BinaryOp::kFloorMod: {
      double q = std::floor(roundFloat(a / b, t));
      return floatResult(a - roundFloat(q * b, t), t);
    }
    case BinaryOp::kMin:
      return floatResult(std::fmin(a, b), t);
    case BinaryOp::kMax:
      return floatResult(std::fmax(a, b), t);
    case BinaryOp::kEQ:
      return boolResult(a == b);
    case BinaryOp::kNE:
      return boolResult(a != b);
    case BinaryOp::kLT:
      return boolResult(a < b);
    case BinaryOp::kLE:
      return boolResult(a <= b);
    case BinaryOp::kGT:
      return boolResult(a > b);
    case BinaryOp::kGE:
      return boolResult(a >= b);
    case BinaryOp::kAnd:
      return boolResult(a != 0 && b != 0);
    case BinaryOp::kOr:
      return boolResult(a != 0 || b != 0);
  }
  return floatResult(0, t);
}

// Integer power (support/int_power.h); an unsigned exponent is never negative.
int64_t intPower(int64_t a, int64_t b, DataType t) {
  if (isUnsigned(t))
    return static_cast<int64_t>(
        powerBySquaring(static_cast<uint64_t>(a), static_cast<uint64_t>(b)));
  return signedPower(a, b);
}

// Float -> integer as C does for in-range values; out-of-range values saturate instead of being
// undefined, so the evaluator stays deterministic.
int64_t floatToInt(double v, DataType to) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  if (isUnsigned(to)) {
    if (t <= 0) return 0;
    if (t >= 18446744073709551615.0) return -1;
    return static_cast<int64_t>(static_cast<uint64_t>(t));
  }
  if (t <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  if (t >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(t);
}

}  // namespace

Scalar binary(BinaryOp op, DataType t, Scalar a, Scalar b, const char* what) {
  if (t.isFloat()) return floatBinary(op, t, a.f, b.f);
  return integerBinary(op, t, a.i, b.i, what);
}

Scalar castScalar(DataType from, DataType to, Scalar v) {
  if (to.isBool()) return boolResult(from.isFloat() ? v.f != 0 : v.i != 0);
  if (to.isFloat()) {
    if (from.isFloat()) return floatResult(v.f, to);
    double d = isUnsigned(from) ? static_cast<double>(static_cast<uint64_t>(v.i))
                                : static_cast<double>(v.i);
    return floatResult(d, to);
  }
  if (from.isFloat()) return intResult(floatToInt(v.f, to), to);
  return intResult(v.i, to);
}

bool lookupIntrinsic(const std::string& op, Intrinsic* out) {
  static const std::unordered_map<std::string, Intrinsic> table = {
      {"tir.if_then_else", Intrinsic::kIfThenElse},
      {"tir.likely", Intrinsic::kLikely},
      {"tir.exp", Intrinsic::kExp},
      {"tir.exp2", Intrinsic::kExp2},
      {"tir.exp10", Intrinsic::kExp10},
      {"tir.log", Intrinsic::kLog},
      {"tir.log2", Intrinsic::kLog2},
      {"tir.log10", Intrinsic::kLog10},
      {"tir.log1p", Intrinsic::kLog1p},
      {"tir.tanh", Intrinsic::kTanh},
      {"tir.sin", Intrinsic::kSin},
      {"tir.cos", Intrinsic::kCos},
      {"tir.tan", Intrinsic::kTan},
      {"tir.sinh", Intrinsic::kSinh},
      {"tir.cosh", Intrinsic::kCosh},
      {"tir.asin", Intrinsic::kAsin},
      {"tir.acos", Intrinsic::kAcos},
      {"tir.atan", Intrinsic::kAtan},
      {"tir.atan2", Intrinsic::kAtan2},
      {"tir.erf", Intrinsic::kErf},
      {"tir.sigmoid", Intrinsic::kSigmoid},
      {"tir.sqrt", Intrinsic::kSqrt},
      {"tir.rsqrt", Intrinsic::kRsqrt},
      {"tir.pow", Intrinsic::kPow},
      {"tir.fabs", Intrinsic::kFabs},
      {"tir.abs", Intrinsic::kAbs},
      {"tir.floor", Intrinsic::kFloor},
      {"tir.ceil", Intrinsic::kCeil},
      {"tir.round", Intrinsic::kRound},
      {"tir.nearbyint", Intrinsic::kNearbyint},
      {"tir.trunc", Intrinsic::kTrunc},
      {"tir.fmod", Intrinsic::kFmod},
      {"tir.copysign", Intrinsic::kCopysign},
      {"tir.hypot", Intrinsic::kHypot},
      {"tir.shift_left", Intrinsic::kShiftLeft},
      {"tir.shift_right", Intrinsic::kShiftRight},
      {"tir.bitwise_and", Intrinsic::kBitwiseAnd},
      {"tir.bitwise_or", Intrinsic::kBitwiseOr},
      {"tir.bitwise_xor", Intrinsic::kBitwiseXor},
      {"tir.bitwise_not", Intrinsic::kBitwiseNot},
      {"tir.isnan", Intrinsic::kIsnan},
      {"tir.isinf", Intrinsic::kIsinf},
      {"tir.isfinite", Intrinsic::kIsfinite},
      {"tir.fma", Intrinsic::kFma},
      {"tir.clz", Intrinsic::kClz},
      {"tir.popcount", Intrinsic::kPopcount},
      {"tir.reinterpret", Intrinsic::kReinterpret},
  };
  auto it = table.find(op);
  if (it == table.end()) return false;
  *out = it->second;
  return true;
}

Scalar intrinsic(Intrinsic fn, DataType resultType, DataType argType, const Scalar* args,
                 size_t nargs) {
  auto f1 = [&](double (*g)(double)) { return floatResult(g(args[0].f), resultType); };
  auto f2 = [&](double (*g)(double, double)) {
    return floatResult(g(args[0].f, args[1].f), resultType);
  };
  (void)nargs;
  switch (fn) {
    case Intrinsic::kIfThenElse:
      return args[0].i ? args[1] : args[2];  // lazy path is in eval.cc
    case Intrinsic::kLikely:
      return args[0];
    case Intrinsic::kExp:
      return f1(std::exp);
    case Intrinsic::kExp2:
      return f1(std::exp2);
    case Intrinsic::kExp10:
      return floatResult(std::pow(10.0, args[0].f), resultType);
    case Intrinsic::kLog:
      return f1(std::log);
    case Intrinsic::kLog2:
      return f1(std::log2);
    case Intrinsic::kLog10:
      return f1(std::log10);
    case Intrinsic::kLog1p:
      return f1(std::log1p);
    case Intrinsic::kTanh:
      return f1(std::tanh);
    case Intrinsic::kSin:
      return f1(std::sin);
    case Intrinsic::kCos:
      return f1(std::cos);
    case Intrinsic::kTan:
      return f1(std::tan);
    case Intrinsic::kSinh:
      return f1(std::sinh);
    case Intrinsic::kCosh:
      return f1(std::cosh);
    case Intrinsic::kAsin:
      return f1(std::asin);
    case Intrinsic::kAcos:
      return f1(std::acos);
    case Intrinsic::kAtan:
      return f1(std::atan);
    case Intrinsic::kAtan2:
      return f2(std::atan2);
    case Intrinsic::kErf:
      return f1(std::erf);
    case Intrinsic::kSigmoid:
      return floatResult(1.0 / (1.0 + std::exp(-args[0].f)), resultType);
    case Intrinsic::kSqrt:
      return f1(std::sqrt);
    case Intrinsic::kRsqrt:
      return floatResult(1.0 / std::sqrt(args[0].f), resultType);
    case Intrinsic::kPow:
      if (argType.isInteger())
        return intResult(intPower(args[0].i, args[1].i, argType), resultType);
      return f2(std::pow);
    case Intrinsic::kFabs:
      return f1(std::fabs);
    case Intrinsic::kAbs:
      if (argType.isFloat()) return f1(std::fabs);
      if (isUnsigned(argType)) return args[0];
      return intResult(
          args[0].i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(args[0].i)) : args[0].i,
          resultType);
    case Intrinsic::kFloor:
      return f1(std::floor);
    case Intrinsic::kCeil:
      return f1(std::ceil);
    // round is half away from zero, like the graph-level reference kernel (and llvm.round);
    // nearbyint rounds ties to even.
    case Intrinsic::kRound:
      return f1(static_cast<double (*)(double)>(std::round));
    case Intrinsic::kNearbyint:
      return f1(std::nearbyint);
    case Intrinsic::kTrunc:
      return f1(std::trunc);
    case Intrinsic::kFmod:
      return f2(std::fmod);
    case Intrinsic::kCopysign:
      return f2(std::copysign);
    case Intrinsic::kHypot:
      return f2(std::hypot);
    case Intrinsic::kShiftLeft: {
      int64_t s = args[1].i;
      if (s < 0 || s >= argType.bits()) return intResult(0, resultType);
      return intResult(static_cast<int64_t>(static_cast<uint64_t>(args[0].i) << s), resultType);
    }
    case Intrinsic::kShiftRight: {
      int64_t s = std::min<int64_t>(std::max<int64_t>(args[1].i, 0), 63);
      // Arithmetic shift for signed types, logical for unsigned (values are zero-extended).
      if (isUnsigned(argType))
        return intResult(static_cast<int64_t>(static_cast<uint64_t>(args[0].i) >> s), resultType);
      return intResult(args[0].i >> s, resultType);
    }
    case Intrinsic::kBitwiseAnd:
      return intResult(args[0].i & args[1].i, resultType);
    case Intrinsic::kBitwiseOr:
      return intResult(args[0].i | args[1].i, resultType);
    case Intrinsic::kBitwiseXor:
      return intResult(args[0].i ^ args[1].i, resultType);
    case Intrinsic::kBitwiseNot:
      return intResult(~args[0].i, resultType);
    case Intrinsic::kIsnan:
      return boolResult(argType.isFloat() && std::isnan(args[0].f));
    case Intrinsic::kIsinf:
      return boolResult(argType.isFloat() && std::isinf(args[0].f));
    case Intrinsic::kIsfinite:
      return boolResult(!argType.isFloat() || std::isfinite(args[0].f));
    case Intrinsic::kFma:
      if (!argType.isFloat())
        return intResult(static_cast<int64_t>(static_cast<uint64_t>(args[0].i) *
                                                  static_cast<uint64_t>(args[1].i) +
                                              static_cast<uint64_t>(args[2].i)),
                         resultType);
      // One rounding, in the result's precision: a double fma rounded again to float32 could
      // differ from float32's fused multiply-add (double rounding).
      if (resultType.element() == DataType::float32())
        return floatResult(std::fma(static_cast<float>(args[0].f), static_cast<float>(args[1].f),
                                    static_cast<float>(args[2].f)),
                           resultType);
      return floatResult(std::fma(args[0].f, args[1].f, args[2].f), resultType);
    case Intrinsic::kClz: {
      uint64_t u = static_cast<uint64_t>(args[0].i);
      int bits = argType.bits();
      if (bits < 64) u &= (uint64_t{1} << bits) - 1;
      return intResult(std::countl_zero(u) - (64 - bits), resultType);
    }
    case Intrinsic::kReinterpret: {
      // Lane by lane: the evaluator has no meaning for a reinterpret that regroups lanes.
      if (argType.bits() != resultType.bits() || argType.bits() > 64)
        throwDiagnostic("tir_eval", "reinterpret from " + argType.name() + " to " +
                                        resultType.name() + " changes the lane width");
      uint8_t bytes[8] = {};
      writeElement(bytes, argType.element(), args[0]);
      return readElement(bytes, resultType.element());
    }
    case Intrinsic::kPopcount: {
      uint64_t u = static_cast<uint64_t>(args[0].i);
      if (argType.bits() < 64) u &= (uint64_t{1} << argType.bits()) - 1;
      return intResult(std::popcount(u), resultType);
    }
  }
  return args[0];
}

Scalar readElement(const uint8_t* p, DataType t) {
  Scalar s;
  if (t.isFloat()) {
    if (t.code() == DataType::Code::kBFloat || t.bits() == 16) {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      s.f = t.code() == DataType::Code::kBFloat ? bfloat16ToFloat(bits) : halfToFloat(bits);
    } else if (t.bits() == 32) {
      float f;
      std::memcpy(&f, p, 4);
      s.f = f;
    } else {
      std::memcpy(&s.f, p, 8);
    }
    return s;
  }
  int64_t v = 0;
  switch (t.bytes()) {
    case 1:
      v = isUnsigned(t) ? int64_t{*p} : int64_t{static_cast<int8_t>(*p)};
      break;
    case 2: {
      uint16_t u;
      std::memcpy(&u, p, 2);
      v = isUnsigned(t) ? int64_t{u} : int64_t{static_cast<int16_t>(u)};
      break;
    }
    case 4: {
      uint32_t u;
      std::memcpy(&u, p, 4);
      v = isUnsigned(t) ? int64_t{u} : int64_t{static_cast<int32_t>(u)};
      break;
    }
    default:
      std::memcpy(&v, p, 8);
  }
  s.i = t.isBool() ? (v != 0) : v;
  return s;
}

void writeElement(uint8_t* p, DataType t, Scalar v) {
  if (t.isFloat()) {
    if (t.code() == DataType::Code::kBFloat || t.bits() == 16) {
      auto f = static_cast<float>(v.f);
      uint16_t bits = t.code() == DataType::Code::kBFloat ? floatToBfloat16(f) : floatToHalf(f);
      std::memcpy(p, &bits, 2);
    } else if (t.bits() == 32) {
      auto f = static_cast<float>(v.f);
      std::memcpy(p, &f, 4);
    } else {
      std::memcpy(p, &v.f, 8);
    }
    return;
  }
  auto u = static_cast<uint64_t>(v.i);
  switch (t.bytes()) {
    case 1:
      *p = static_cast<uint8_t>(u);
      break;
    case 2: {
      auto x = static_cast<uint16_t>(u);
      std::memcpy(p, &x, 2);
      break;
    }
    case 4: {
      auto x = static_cast<uint32_t>(u);
      std::memcpy(p, &x, 4);
      break;
    }
    default:
      std::memcpy(p, &u, 8);
  }
}

}  // namespace tessera::tir::evalimpl
