// Binary broadcast operators (kBroadcast): arithmetic, shifts, comparisons (bool result) and
// logical/bitwise ops, as a table of per-dtype-class element functions. The type relation checks
// dtypes (binary_c1, binary_c3) and broadcasts shapes (binary_c2); the kernel computes floats in
// double and integers exactly with wraparound, and reports an integer division by zero as a
// diagnostic (binary_c4) rather than crashing.
#include <cmath>
#include <cstdint>
#include <string>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/tensor.h"
#include "support/diagnostic.h"
#include "support/int_power.h"

namespace tessera::relay {
namespace {

// One binary op. A null function means the type relation rejects that dtype class. Integer
// functions receive the bit width so shifts can define out-of-range amounts.
struct BinaryDef {
  const char* name = nullptr;
  const char* summary = nullptr;
  double (*onFloat)(double, double) = nullptr;
  int64_t (*onInt)(int64_t, int64_t, int bits) = nullptr;
  uint64_t (*onUInt)(uint64_t, uint64_t, int bits) = nullptr;  // unsigned; bool if acceptsBool
  bool acceptsBool = false;
  bool boolResult = false;  // comparisons
  bool divides = false;     // integer division by zero must be reported, not executed
};

// Wrapping arithmetic: two's-complement results are the same computed on uint64.
int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Truncating division; INT64_MIN / -1 wraps (C++ leaves it undefined). b != 0 is checked before.
int64_t truncDiv(int64_t a, int64_t b) {
  if (b == -1) return wrapSub(0, a);
  return a / b;
}
int64_t truncMod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  return a % b;
}
int64_t floorDiv(int64_t a, int64_t b) {
  const int64_t q = truncDiv(a, b);
  const bool inexact = truncMod(a, b) != 0;
  return inexact && ((a < 0) != (b < 0)) ? q - 1 : q;
}
int64_t floorModInt(int64_t a, int64_t b) {
  const int64_t r = truncMod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

int64_t intPower(int64_t a, int64_t b, int) {
  return signedPower(a, b);
}
uint64_t uintPower(uint64_t a, uint64_t b, int) {
  return powerBySquaring(a, b);
}

// Shift amounts outside [0, bits) are undefined in C++ and LLVM; we define them as shifting every
// bit out (arithmetic right shifts keep the sign).
int64_t shiftLeft(int64_t a, int64_t b, int bits) {
  if (b < 0 || b >= bits) return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
}
int64_t shiftRight(int64_t a, int64_t b, int bits) {
  if (b < 0 || b >= bits) return a < 0 ? -1 : 0;
  return a >> b;
}
uint64_t shiftLeftU(uint64_t a, uint64_t b, int bits) {
  return b >= static_cast<uint64_t>(bits) ? 0 : a << b;
}
uint64_t shiftRightU(uint64_t a, uint64_t b, int bits) {
  return b >= static_cast<uint64_t>(bits) ? 0 : a >> b;
}

// numpy's maximum/minimum: a NaN operand gives NaN.
double maxFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a > b ? a : b;
}
double minFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? a : b;
}

const BinaryDef kBinaryOps[] = {
    {.name = "add",
     .summary = "lhs + rhs; integers wrap",
     .onFloat = [](double a, double b) { return a + b; },
     .onInt = [](int64_t a, int64_t b, int) { return wrapAdd(a, b); },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a + b; }},
    {.name = "subtract",
     .summary = "lhs - rhs; integers wrap",
     .onFloat = [](double a, double b) { return a - b; },
     .onInt = [](int64_t a, int64_t b, int) { return wrapSub(a, b); },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a - b; }},
    {.name = "multiply",
     .summary = "lhs * rhs; integers wrap",
     .onFloat = [](double a, double b) { return a * b; },
     .onInt = [](int64_t a, int64_t b, int) { return wrapMul(a, b); },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a * b; }},
    {.name = "divide",
     .summary = "lhs / rhs; integers truncate toward zero",
     .onFloat = [](double a, double b) { return a / b; },
     .onInt = [](int64_t a, int64_t b, int) { return truncDiv(a, b); },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a / b; },
     .divides = true},
    {.name = "floor_divide",
     .summary = "floor(lhs / rhs)",
     .onFloat = [](double a, double b) { return std::floor(a / b); },
     .onInt = [](int64_t a, int64_t b, int) { return floorDiv(a, b); },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a / b; },
     .divides = true},
    {.name = "mod",
     .summary = "remainder of the truncating division (sign of lhs)",
     .onFloat = [](double a, double b) { return std::fmod(a, b); },
     .onInt = [](int64_t a, int64_t b, int) { return truncMod(a, b); },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a % b; },
     .divides = true},
    {.name = "floor_mod",
     .summary = "remainder of the flooring division (sign of rhs)",
     .onFloat = [](double a, double b) { return a - std::floor(a / b) * b; },
     .onInt = [](int64_t a, int64_t b, int) { return floorModInt(a, b); },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a % b; },
     .divides = true},
    {.name = "power",
     .summary = "lhs ^ rhs",
     .onFloat = [](double a, double b) { return std::pow(a, b); },
     .onInt = intPower,
     .onUInt = uintPower},
    {.name = "maximum",
     .summary = "elementwise maximum; NaN propagates",
     .onFloat = maxFloat,
     .onInt = [](int64_t a, int64_t b, int) { return a > b ? a : b; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a > b ? a : b; },
     .acceptsBool = true},
    {.name = "minimum",
     .summary = "elementwise minimum; NaN propagates",
     .onFloat = minFloat,
     .onInt = [](int64_t a, int64_t b, int) { return a < b ? a : b; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a < b ? a : b; },
     .acceptsBool = true},
    {.name = "left_shift", .summary = "lhs << rhs", .onInt = shiftLeft, .onUInt = shiftLeftU},
    {.name = "right_shift",
     .summary = "lhs >> rhs; arithmetic for signed types",
     .onInt = shiftRight,
     .onUInt = shiftRightU},
    {.name = "equal",
     .summary = "lhs == rhs (bool result)",
     .onFloat = [](double a, double b) { return a == b ? 1.0 : 0.0; },
     .onInt = [](int64_t a, int64_t b, int) { return int64_t{a == b}; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a == b}; },
     .acceptsBool = true,
     .boolResult = true},
    {.name = "not_equal",
     .summary = "lhs != rhs (bool result)",
     .onFloat = [](double a, double b) { return a != b ? 1.0 : 0.0; },
     .onInt = [](int64_t a, int64_t b, int) { return int64_t{a != b}; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a != b}; },
     .acceptsBool = true,
     .boolResult = true},
    {.name = "less",
     .summary = "lhs < rhs (bool result)",
     .onFloat = [](double a, double b) { return a < b ? 1.0 : 0.0; },
     .onInt = [](int64_t a, int64_t b, int) { return int64_t{a < b}; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a < b}; },
     .acceptsBool = true,
     .boolResult = true},
    {.name = "less_equal",
     .summary = "lhs <= rhs (bool result)",
     .onFloat = [](double a, double b) { return a <= b ? 1.0 : 0.0; },
     .onInt = [](int64_t a, int64_t b, int) { return int64_t{a <= b}; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a <= b}; },
     .acceptsBool = true,
     .boolResult = true},
    {.name = "greater",
     .summary = "lhs > rhs (bool result)",
     .onFloat = [](double a, double b) { return a > b ? 1.0 : 0.0; },
     .onInt = [](int64_t a, int64_t b, int) { return int64_t{a > b}; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a > b}; },
     .acceptsBool = true,
     .boolResult = true},
    {.name = "greater_equal",
     .summary = "lhs >= rhs (bool result)",
     .onFloat = [](double a, double b) { return a >= b ? 1.0 : 0.0; },
     .onInt = [](int64_t a, int64_t b, int) { return int64_t{a >= b}; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a >= b}; },
     .acceptsBool = true,
     .boolResult = true},
    // TVM lowers logical ops to tir.And/Or, which take bool operands only.
    {.name = "logical_and",
     .summary = "logical and of bool tensors",
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a != 0 && b != 0}; },
     .acceptsBool = true},
    {.name = "logical_or",
     .summary = "logical or of bool tensors",
     .onUInt = [](uint64_t a, uint64_t b, int) { return uint64_t{a != 0 || b != 0}; },
     .acceptsBool = true},
    {.name = "bitwise_and",
     .summary = "bitwise and",
     .onInt = [](int64_t a, int64_t b, int) { return a & b; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a & b; },
     .acceptsBool = true},
    {.name = "bitwise_or",
     .summary = "bitwise or",
     .onInt = [](int64_t a, int64_t b, int) { return a | b; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a | b; },
     .acceptsBool = true},
    {.name = "bitwise_xor",
     .summary = "bitwise exclusive or",
     .onInt = [](int64_t a, int64_t b, int) { return a ^ b; },
     .onUInt = [](uint64_t a, uint64_t b, int) { return a ^ b; },
     .acceptsBool = true},
};

bool accepts(const BinaryDef& def, DataType t) {
  if (t.isFloat()) return def.onFloat != nullptr;
  if (t.isInt()) return def.onInt != nullptr;
  if (t.isBool()) return def.acceptsBool;
  return def.onUInt != nullptr;
}

// The dtype checks come first so a mixed-dtype call is reported as such even when its shapes
// also disagree.
std::optional<Type> binaryRel(const TypeReporter& r, const BinaryDef& def) {
  const TensorTypeNode* a = r.tensorArg(0);
  const TensorTypeNode* b = r.tensorArg(1);
  if (!a || !b) return std::nullopt;
  if (a->dtype != b->dtype) {
    r.fail("binary_c1", "lhs " + typeToString(r.arg(0)) + " and rhs " + typeToString(r.arg(1)) +
                            " must have the same dtype");
  }
  if (!accepts(def, a->dtype)) {
    r.fail("binary_c3", "operands " + typeToString(r.arg(0)) + " and " + typeToString(r.arg(1)) +
                            " have dtype " + a->dtype.name() + ", which " + def.name +
                            " does not support");
  }
  Shape shape = broadcastShapes(a->shape, b->shape, r, "binary_c2");
  return tensorType(std::move(shape), def.boolResult ? DataType::boolType() : a->dtype);
}

// Operands are read at full precision (double, int64 or uint64) through the broadcast index maps
// and the result is rounded or wrapped once into the output dtype; comparisons store 0/1 into
// bool.
Value binaryKernel(const BinaryDef& def, const std::vector<Value>& args, const Type& outType) {
  const NDArray& a = tensorAt(args, 0);
  const NDArray& b = tensorAt(args, 1);
  NDArray out = allocTensor(outType);
  const BroadcastIndexer ia(a.shape(), out.shape());
  const BroadcastIndexer ib(b.shape(), out.shape());
  const DataType t = a.dtype();
  if (t == DataType::float32() && out.dtype() == t) {
    // The common case (constant folding scales every weight): typed, a row at a time, with the
    // same double arithmetic and rounding as the generic loop below.
    const float* pa = a.as<float>();
    const float* pb = b.as<float>();
    float* po = out.as<float>();
    const int64_t n = out.numel(), row = out.ndim() > 0 ? out.shape().back() : 1;
    const int64_t sa = ia.innerStride(), sb = ib.innerStride();
    for (int64_t start = 0; start < n; start += row) {
      const float* ra = pa + ia.map(start);
      const float* rb = pb + ib.map(start);
      for (int64_t j = 0; j < row; ++j)
        po[start + j] = static_cast<float>(def.onFloat(ra[j * sa], rb[j * sb]));
    }
    return out;
  }
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t ja = ia.map(i);
    const int64_t jb = ib.map(i);
    if (t.isFloat()) {
      out.setFloat(i, def.onFloat(a.getFloat(ja), b.getFloat(jb)));
      continue;
    }
    // Checked before the element function runs: C++ integer division by zero is undefined.
    if (def.divides && b.getUInt(jb) == 0) {
      throwDiagnostic("binary_c4",
                      "integer division by zero: rhs of type " + b.describe() +
                          " has a zero at flat index " + std::to_string(jb),
                      Span{}, def.name);
    }
    if (t.isInt())
      out.setInt(i, def.onInt(a.getInt(ja), b.getInt(jb), t.bits()));
    else
      out.setUInt(i, def.onUInt(a.getUInt(ja), b.getUInt(jb), t.bits()));
  }
  return out;
}

Expr callBinary(const char* name, Expr lhs, Expr rhs) {
  return makeCall(opByName(name), {std::move(lhs), std::move(rhs)});
}

}  // namespace

void registerBinaryOps(OpRegistry& r) {
  // The table has static storage, so the relation and kernel closures can keep a pointer to it.
  for (const BinaryDef& def : kBinaryOps) {
    const BinaryDef* d = &def;
    r.add(OpDef{
        .name = def.name,
        .args = {"lhs", "rhs"},
        .summary = def.summary,
        .typeRelation = [d](const TypeReporter& rep) { return binaryRel(rep, *d); },
        .pattern = OpPattern::kBroadcast,
        .kernel = [d](const std::vector<Value>& args, const AttrsNode*,
                      const Type& outType) { return binaryKernel(*d, args, outType); },
    });
  }
}

// --- builders: one call per op, without attributes ---------------------------------------------

Expr add(Expr lhs, Expr rhs) {
  return callBinary("add", std::move(lhs), std::move(rhs));
}
Expr subtract(Expr lhs, Expr rhs) {
  return callBinary("subtract", std::move(lhs), std::move(rhs));
}
Expr multiply(Expr lhs, Expr rhs) {
  return callBinary("multiply", std::move(lhs), std::move(rhs));
}
Expr divide(Expr lhs, Expr rhs) {
  return callBinary("divide", std::move(lhs), std::move(rhs));
}
Expr floorDivide(Expr lhs, Expr rhs) {
  return callBinary("floor_divide", std::move(lhs), std::move(rhs));
}
Expr mod(Expr lhs, Expr rhs) {
  return callBinary("mod", std::move(lhs), std::move(rhs));
}
Expr floorMod(Expr lhs, Expr rhs) {
  return callBinary("floor_mod", std::move(lhs), std::move(rhs));
}
Expr power(Expr lhs, Expr rhs) {
  return callBinary("power", std::move(lhs), std::move(rhs));
}
Expr maximum(Expr lhs, Expr rhs) {
  return callBinary("maximum", std::move(lhs), std::move(rhs));
}
Expr minimum(Expr lhs, Expr rhs) {
  return callBinary("minimum", std::move(lhs), std::move(rhs));
}
Expr leftShift(Expr lhs, Expr rhs) {
  return callBinary("left_shift", std::move(lhs), std::move(rhs));
}
Expr rightShift(Expr lhs, Expr rhs) {
  return callBinary("right_shift", std::move(lhs), std::move(rhs));
}
Expr equal(Expr lhs, Expr rhs) {
  return callBinary("equal", std::move(lhs), std::move(rhs));
}
Expr notEqual(Expr lhs, Expr rhs) {
  return callBinary("not_equal", std::move(lhs), std::move(rhs));
}
Expr less(Expr lhs, Expr rhs) {
  return callBinary("less", std::move(lhs), std::move(rhs));
}
Expr lessEqual(Expr lhs, Expr rhs) {
  return callBinary("less_equal", std::move(lhs), std::move(rhs));
}
Expr greater(Expr lhs, Expr rhs) {
  return callBinary("greater", std::move(lhs), std::move(rhs));
}
Expr greaterEqual(Expr lhs, Expr rhs) {
  return callBinary("greater_equal", std::move(lhs), std::move(rhs));
}
Expr logicalAnd(Expr lhs, Expr rhs) {
  return callBinary("logical_and", std::move(lhs), std::move(rhs));
}
Expr logicalOr(Expr lhs, Expr rhs) {
  return callBinary("logical_or", std::move(lhs), std::move(rhs));
}
Expr bitwiseAnd(Expr lhs, Expr rhs) {
  return callBinary("bitwise_and", std::move(lhs), std::move(rhs));
}
Expr bitwiseOr(Expr lhs, Expr rhs) {
  return callBinary("bitwise_or", std::move(lhs), std::move(rhs));
}
Expr bitwiseXor(Expr lhs, Expr rhs) {
  return callBinary("bitwise_xor", std::move(lhs), std::move(rhs));
}

}  // namespace tessera::relay
