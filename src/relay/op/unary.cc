// Unary elementwise operators (kElemWise, identity type): a table of per-dtype-class element
// functions, the type relation that rejects the dtype classes an op has no function for
// (label unary_c1), the reference kernel, and the builders declared in tensor.h. Floats are
// computed in double and rounded once into the output dtype; integers are exact and wrap.
#include <cmath>
#include <cstdint>
#include <string>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/tensor.h"

namespace tessera::relay {
namespace {

// One unary op. A null function means the type relation rejects that dtype class.
struct UnaryDef {
  const char* name = nullptr;
  const char* summary = nullptr;
  double (*onFloat)(double) = nullptr;
  int64_t (*onInt)(int64_t) = nullptr;
  uint64_t (*onUInt)(uint64_t) = nullptr;  // unsigned integers; also bool when acceptsBool
  bool acceptsBool = false;
  bool boolResult = false;  // the predicates isnan/isinf/isfinite
};

// Signed negation through uint64, so the most negative value wraps instead of overflowing.
int64_t wrapNegate(int64_t x) {
  return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(x));
}
int64_t keepInt(int64_t x) {
  return x;
}
uint64_t keepUInt(uint64_t x) {
  return x;
}
double sigmoidOf(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double signOf(double x) {
  if (std::isnan(x)) return x;
  return static_cast<double>((x > 0) - (x < 0));
}

int64_t zeroInt(int64_t) {
  return 0;
}
uint64_t zeroUInt(uint64_t) {
  return 0;
}

const UnaryDef kUnaryOps[] = {
    {.name = "negative",
     .summary = "-x; integers wrap",
     .onFloat = [](double x) { return -x; },
     .onInt = wrapNegate,
     .onUInt = [](uint64_t x) { return uint64_t{0} - x; }},
    {.name = "exp", .summary = "e^x", .onFloat = [](double x) { return std::exp(x); }},
    {.name = "log",
     .summary = "natural logarithm",
     .onFloat = [](double x) { return std::log(x); }},
    {.name = "log2",
     .summary = "base-2 logarithm",
     .onFloat = [](double x) { return std::log2(x); }},
    {.name = "log10",
     .summary = "base-10 logarithm",
     .onFloat = [](double x) { return std::log10(x); }},
    {.name = "sqrt", .summary = "square root", .onFloat = [](double x) { return std::sqrt(x); }},
    {.name = "rsqrt",
     .summary = "1 / sqrt(x)",
     .onFloat = [](double x) { return 1.0 / std::sqrt(x); }},
    {.name = "tanh",
     .summary = "hyperbolic tangent",
     .onFloat = [](double x) { return std::tanh(x); }},
    {.name = "sigmoid", .summary = "1 / (1 + e^-x)", .onFloat = sigmoidOf},
    {.name = "erf",
     .summary = "Gauss error function",
     .onFloat = [](double x) { return std::erf(x); }},
    {.name = "sin", .summary = "sine", .onFloat = [](double x) { return std::sin(x); }},
    {.name = "cos", .summary = "cosine", .onFloat = [](double x) { return std::cos(x); }},
    {.name = "asin", .summary = "arcsine", .onFloat = [](double x) { return std::asin(x); }},
    {.name = "acos", .summary = "arccosine", .onFloat = [](double x) { return std::acos(x); }},
    {.name = "atan", .summary = "arctangent", .onFloat = [](double x) { return std::atan(x); }},
    // std::round rounds half away from zero, as LLVM's llvm.round does (spec §3.6).
    {.name = "round",
     .summary = "round half away from zero",
     .onFloat = [](double x) { return std::round(x); },
     .onInt = keepInt,
     .onUInt = keepUInt},
    {.name = "floor",
     .summary = "round toward -inf",
     .onFloat = [](double x) { return std::floor(x); },
     .onInt = keepInt,
     .onUInt = keepUInt},
    {.name = "ceil",
     .summary = "round toward +inf",
     .onFloat = [](double x) { return std::ceil(x); },
     .onInt = keepInt,
     .onUInt = keepUInt},
    {.name = "trunc",
     .summary = "round toward zero",
     .onFloat = [](double x) { return std::trunc(x); },
     .onInt = keepInt,
     .onUInt = keepUInt},
    {.name = "sign",
     .summary = "-1, 0 or 1",
     .onFloat = signOf,
     .onInt = [](int64_t x) { return int64_t{(x > 0) - (x < 0)}; },
     .onUInt = [](uint64_t x) { return uint64_t{x > 0}; }},
    {.name = "abs",
     .summary = "absolute value; the most negative integer wraps to itself",
     .onFloat = [](double x) { return std::fabs(x); },
     .onInt = [](int64_t x) { return x < 0 ? wrapNegate(x) : x; },
     .onUInt = keepUInt},
    {.name = "copy",
     .summary = "the same values",
     .onFloat = [](double x) { return x; },
     .onInt = keepInt,
     .onUInt = keepUInt,
     .acceptsBool = true},
    // TVM lowers logical_not to tir.Not, which takes bool only.
    {.name = "logical_not",
     .summary = "logical negation of a bool tensor",
     .onUInt = [](uint64_t x) { return uint64_t{x == 0}; },
     .acceptsBool = true},
    {.name = "bitwise_not",
     .summary = "bitwise complement",
     .onInt = [](int64_t x) { return ~x; },
     .onUInt = [](uint64_t x) { return ~x; },
     .acceptsBool = true},
    {.name = "isnan",
     .summary = "x is NaN (bool result)",
     .onFloat = [](double x) { return std::isnan(x) ? 1.0 : 0.0; },
     .onInt = zeroInt,
     .onUInt = zeroUInt,
     .acceptsBool = true,
     .boolResult = true},
    {.name = "isinf",
     .summary = "x is infinite (bool result)",
     .onFloat = [](double x) { return std::isinf(x) ? 1.0 : 0.0; },
     .onInt = zeroInt,
     .onUInt = zeroUInt,
     .acceptsBool = true,
     .boolResult = true},
    {.name = "isfinite",
     .summary = "x is neither NaN nor infinite (bool result)",
     .onFloat = [](double x) { return std::isfinite(x) ? 1.0 : 0.0; },
     .onInt = [](int64_t) { return int64_t{1}; },
     .onUInt = [](uint64_t) { return uint64_t{1}; },
     .acceptsBool = true,
     .boolResult = true},
};

// Bool is a 1-bit unsigned type, so it has its own flag rather than following onUInt.
bool accepts(const UnaryDef& def, DataType t) {
  if (t.isFloat()) return def.onFloat != nullptr;
  if (t.isInt()) return def.onInt != nullptr;
  if (t.isBool()) return def.acceptsBool;
  return def.onUInt != nullptr;
}

// "floating-point, signed integer" — what the op accepts, for the error message.
std::string acceptedText(const UnaryDef& def) {
  std::string s;
  auto add = [&](bool ok, const char* what) {
    if (ok) s += (s.empty() ? "" : ", ") + std::string(what);
  };
  add(def.onFloat != nullptr, "floating-point");
  add(def.onInt != nullptr, "signed integer");
  add(def.onUInt != nullptr, "unsigned integer");
  add(def.acceptsBool, "bool");
  return s;
}

std::optional<Type> unaryRel(const TypeReporter& r, const UnaryDef& def) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  if (!accepts(def, t->dtype)) {
    r.fail("unary_c1", "data of type " + typeToString(r.arg(0)) + " has an unsupported dtype " +
                           t->dtype.name() + "; expected " + acceptedText(def));
  }
  if (def.boolResult) return tensorType(t->shape, DataType::boolType());
  return r.arg(0);
}

// Each element function sees the value at full precision (double, int64 or uint64); the setter
// then rounds or wraps it once into the output dtype, which is what "compute in double, store
// into the dtype" and "integers wrap" mean for every width.
Value unaryKernel(const UnaryDef& def, const std::vector<Value>& args, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  const DataType t = x.dtype();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (t.isFloat())
      out.setFloat(i, def.onFloat(x.getFloat(i)));
    else if (t.isInt())
      out.setInt(i, def.onInt(x.getInt(i)));
    else if (t.isBool())
      out.setUInt(i, def.onUInt(x.getUInt(i)) & 1);  // ~1 must read as 0, not "nonzero"
    else
      out.setUInt(i, def.onUInt(x.getUInt(i)));
  }
  return out;
}

Expr callUnary(const char* name, Expr data) {
  return makeCall(opByName(name), {std::move(data)});
}

}  // namespace

void registerUnaryOps(OpRegistry& r) {
  // The table has static storage, so the relation and kernel closures can keep a pointer to it.
  for (const UnaryDef& def : kUnaryOps) {
    const UnaryDef* d = &def;
    r.add(OpDef{
        .name = def.name,
        .args = {"data"},
        .summary = def.summary,
        .typeRelation = [d](const TypeReporter& rep) { return unaryRel(rep, *d); },
        .pattern = OpPattern::kElemWise,
        .kernel = [d](const std::vector<Value>& args, const AttrsNode*,
                      const Type& outType) { return unaryKernel(*d, args, outType); },
    });
  }
}

// --- builders: one call per op, without attributes ---------------------------------------------

Expr negative(Expr data) {
  return callUnary("negative", std::move(data));
}
Expr exp(Expr data) {
  return callUnary("exp", std::move(data));
}
Expr log(Expr data) {
  return callUnary("log", std::move(data));
}
Expr log2(Expr data) {
  return callUnary("log2", std::move(data));
}
Expr log10(Expr data) {
  return callUnary("log10", std::move(data));
}
Expr sqrt(Expr data) {
  return callUnary("sqrt", std::move(data));
}
Expr rsqrt(Expr data) {
  return callUnary("rsqrt", std::move(data));
}
Expr tanh(Expr data) {
  return callUnary("tanh", std::move(data));
}
Expr sigmoid(Expr data) {
  return callUnary("sigmoid", std::move(data));
}
Expr erf(Expr data) {
  return callUnary("erf", std::move(data));
}
Expr sin(Expr data) {
  return callUnary("sin", std::move(data));
}
Expr cos(Expr data) {
  return callUnary("cos", std::move(data));
}
Expr asin(Expr data) {
  return callUnary("asin", std::move(data));
}
Expr acos(Expr data) {
  return callUnary("acos", std::move(data));
}
Expr atan(Expr data) {
  return callUnary("atan", std::move(data));
}
Expr round(Expr data) {
  return callUnary("round", std::move(data));
}
Expr floor(Expr data) {
  return callUnary("floor", std::move(data));
}
Expr ceil(Expr data) {
  return callUnary("ceil", std::move(data));
}
Expr trunc(Expr data) {
  return callUnary("trunc", std::move(data));
}
Expr sign(Expr data) {
  return callUnary("sign", std::move(data));
}
Expr abs(Expr data) {
  return callUnary("abs", std::move(data));
}
Expr copy(Expr data) {
  return callUnary("copy", std::move(data));
}
Expr logicalNot(Expr data) {
  return callUnary("logical_not", std::move(data));
}
Expr bitwiseNot(Expr data) {
  return callUnary("bitwise_not", std::move(data));
}
Expr isnan(Expr data) {
  return callUnary("isnan", std::move(data));
}
Expr isinf(Expr data) {
  return callUnary("isinf", std::move(data));
}
Expr isfinite(Expr data) {
  return callUnary("isfinite", std::move(data));
}

}  // namespace tessera::relay
