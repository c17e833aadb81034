// Elementwise ONNX operators: activations, unary math, broadcast binary arithmetic and
// comparisons, variadic Max/Min/Sum/Mean, Clip, Where, Cast and Identity. Each maps to one Relay
// op or a short composition of them.
#include <cmath>

#include "frontend/onnx/context.h"
#include "frontend/onnx/tensor_proto.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

// Most elementwise ops are one Relay call; the templates keep each table row to one line.
template <Expr (*F)(Expr)>
void unary(NodeContext& n) {
  n.setOutput(0, F(n.input(0)));
}

template <Expr (*F)(Expr, Expr)>
void binary(NodeContext& n) {
  n.setOutput(0, F(n.input(0), n.input(1)));
}

Expr relu(Expr x) {
  return relay::nn::relu(std::move(x));
}

void reciprocal(NodeContext& n) {
  n.setOutput(0, relay::divide(scalarConstant(1, n.inputDtype(0)), n.input(0)));
}

void identity(NodeContext& n) {
  n.setOutput(0, n.input(0));
}

void leakyRelu(NodeContext& n) {
  n.setOutput(0, relay::nn::leakyRelu(n.input(0), {.alpha = n.attrFloat("alpha", 0.01)}));
}

// PRelu: x for x >= 0, slope * x otherwise; the slope broadcasts unidirectionally.
// PRelu. Before opset 7 a 1-D slope of C values applied per channel (axis 1), and ONNX's version
// converter passes such a slope through unchanged; when numpy broadcasting cannot apply it (the
// last axis is not C), it is read the old way, as (C, 1, ..., 1).
void prelu(NodeContext& n) {
  Expr x = n.input(0);
  Expr slope = n.input(1);
  const std::vector<int64_t> shape = n.inputShape(0);
  const std::vector<int64_t> slopeShape = n.inputShape(1);
  if (slopeShape.size() == 1 && shape.size() >= 3 && slopeShape[0] == shape[1] &&
      !broadcastShapes(shape, slopeShape)) {
    std::vector<int64_t> perChannel(shape.size() - 1, 1);
    perChannel[0] = shape[1];
    slope = n.fold(relay::reshape(slope, perChannel));
  }
  Expr zero = scalarConstant(0, n.inputDtype(0));
  n.setOutput(0,
              relay::add(relay::maximum(x, zero), relay::multiply(slope, relay::minimum(x, zero))));
}

// HardSigmoid: max(0, min(1, alpha * x + beta)).
Expr hardSigmoidOf(NodeContext& n, const Expr& x, double alpha, double beta) {
  const DataType dtype = n.dtypeOf(x);
  Expr linear =
      relay::add(relay::multiply(x, scalarConstant(alpha, dtype)), scalarConstant(beta, dtype));
  return relay::clip(linear, 0, 1);
}

void hardSigmoid(NodeContext& n) {
  n.setOutput(0, hardSigmoidOf(n, n.input(0), n.attrFloat("alpha", 0.2), n.attrFloat("beta", 0.5)));
}

// The exponential activations as compositions (as TVM's frontend writes them). Each negative
// branch is selected with `where`, so exp of a large positive input is never used.
Expr expMinusOne(NodeContext& n, const Expr& x) {
  return relay::subtract(relay::exp(x), scalarConstant(1, n.dtypeOf(x)));
}

// Elu: x for x >= 0, alpha * (exp(x) - 1) otherwise.
Expr eluOf(NodeContext& n, const Expr& x, double alpha) {
  const DataType dtype = n.dtypeOf(x);
  return relay::where(relay::less(x, scalarConstant(0, dtype)),
                      relay::multiply(scalarConstant(alpha, dtype), expMinusOne(n, x)), x);
}

void elu(NodeContext& n) {
  n.setOutput(0, eluOf(n, n.input(0), n.attrFloat("alpha", 1.0)));
}

// Selu: gamma * (x for x > 0, alpha * (exp(x) - 1) otherwise); ONNX's defaults.
void selu(NodeContext& n) {
  const Expr x = n.input(0);
  const double gamma = n.attrFloat("gamma", 1.05070102214813232421875);
  n.setOutput(0, relay::multiply(scalarConstant(gamma, n.dtypeOf(x)),
                                 eluOf(n, x, n.attrFloat("alpha", 1.67326319217681884765625))));
}

// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
void celu(NodeContext& n) {
  const Expr x = n.input(0);
  const DataType dtype = n.dtypeOf(x);
  const double alpha = n.attrFloat("alpha", 1.0);
  const Expr zero = scalarConstant(0, dtype);
  const Expr scaled = relay::divide(x, scalarConstant(alpha, dtype));
  n.setOutput(0, relay::add(relay::maximum(x, zero),
                            relay::minimum(zero, relay::multiply(scalarConstant(alpha, dtype),
                                                                 expMinusOne(n, scaled)))));
}

// Softplus: log(1 + exp(x)), written max(x, 0) + log(1 + exp(-|x|)) so that it does not
// overflow for large x.
Expr softplusOf(NodeContext& n, const Expr& x) {
  const DataType dtype = n.dtypeOf(x);
  const Expr tail =
      relay::log(relay::add(scalarConstant(1, dtype), relay::exp(relay::negative(relay::abs(x)))));
  return relay::add(relay::maximum(x, scalarConstant(0, dtype)), tail);
}

void softplus(NodeContext& n) {
  n.setOutput(0, softplusOf(n, n.input(0)));
}

// Softsign: x / (1 + |x|).
void softsign(NodeContext& n) {
  const Expr x = n.input(0);
  n.setOutput(0, relay::divide(x, relay::add(scalarConstant(1, n.dtypeOf(x)), relay::abs(x))));
}

// Mish: x * tanh(softplus(x)).
void mish(NodeContext& n) {
  const Expr x = n.input(0);
  n.setOutput(0, relay::multiply(x, relay::tanh(softplusOf(n, x))));
}

// ThresholdedRelu: x for x > alpha, 0 otherwise.
void thresholdedRelu(NodeContext& n) {
  const Expr x = n.input(0);
  const DataType dtype = n.dtypeOf(x);
  n.setOutput(0, relay::where(relay::greater(x, scalarConstant(n.attrFloat("alpha", 1.0), dtype)),
                              x, scalarConstant(0, dtype)));
}

void hardSwish(NodeContext& n) {
  Expr x = n.input(0);
  n.setOutput(0, relay::multiply(x, hardSigmoidOf(n, x, 1.0 / 6, 0.5)));
}

// Pow allows an exponent of another type; Relay's power needs one dtype. The result has the
// base's type, computed as ONNX's reference does (np.power(x, y).astype(x.dtype)) and ONNX
// Runtime (std::pow): an integer base with a float exponent is raised in float64 and truncated,
// so 4 ^ 0.5 is 2, not 4 ^ 0; otherwise the exponent is cast to the base's type.
void pow(NodeContext& n) {
  const DataType baseType = n.inputDtype(0);
  const DataType exponentType = n.inputDtype(1);
  if (baseType.isInteger() && exponentType.isFloat()) {
    const DataType f64 = DataType::float64();
    Expr real = relay::power(relay::cast(n.input(0), f64), relay::cast(n.input(1), f64));
    n.setOutput(0, relay::cast(real, baseType));
    return;
  }
  Expr exponent = n.input(1);
  if (exponentType != baseType) exponent = relay::cast(exponent, baseType);
  n.setOutput(0, relay::power(n.input(0), exponent));
}

// Mod: fmod=0 takes the divisor's sign (floor_mod), fmod=1 the dividend's (C fmod).
void mod(NodeContext& n) {
  const int64_t fmod = n.attrInt("fmod", 0);
  if (fmod != 0 && fmod != 1) n.badAttr("fmod", std::to_string(fmod), "0 or 1");
  if (fmod == 0 && n.inputDtype(0).isFloat())
    n.fail("onnx_attr", "fmod=0 is not allowed for floating-point inputs (the ONNX spec)");
  n.setOutput(0,
              fmod ? relay::mod(n.input(0), n.input(1)) : relay::floorMod(n.input(0), n.input(1)));
}

template <Expr (*F)(Expr, Expr)>
void variadic(NodeContext& n) {
  Expr acc = n.input(0);
  for (size_t i = 1; i < n.numInputs(); ++i) acc = F(acc, n.input(i));
  n.setOutput(0, acc);
}

// Mean: the sum of the inputs divided by their count.
void mean(NodeContext& n) {
  Expr acc = n.input(0);
  for (size_t i = 1; i < n.numInputs(); ++i) acc = relay::add(acc, n.input(i));
  const double count = static_cast<double>(n.numInputs());
  n.setOutput(0, count == 1 ? acc : relay::divide(acc, scalarConstant(count, n.inputDtype(0))));
}

// Clip: bounds are optional inputs since opset 11 (attributes min/max before). A missing bound is
// unbounded; run-time bounds become maximum/minimum with the bound tensors.
void clip(NodeContext& n) {
  Expr x = n.input(0);
  const DataType dtype = n.inputDtype(0);
  std::optional<double> lo = n.attrFloatOpt("min");
  std::optional<double> hi = n.attrFloatOpt("max");
  Expr loExpr, hiExpr;
  if (n.hasInput(1)) {
    if (n.constantInput(1))
      lo = n.constantScalar(1, "min");
    else
      loExpr = n.input(1);
  }
  if (n.hasInput(2)) {
    if (n.constantInput(2))
      hi = n.constantScalar(2, "max");
    else
      hiExpr = n.input(2);
  }
  if (lo && hi && !loExpr && !hiExpr) {
    n.setOutput(0, relay::clip(x, *lo, *hi));
    return;
  }
  if (lo) loExpr = scalarConstant(*lo, dtype);
  if (hi) hiExpr = scalarConstant(*hi, dtype);
  if (loExpr) x = relay::maximum(x, loExpr);
  if (hiExpr) x = relay::minimum(x, hiExpr);
  n.setOutput(0, x);
}

void where(NodeContext& n) {
  n.setOutput(0, relay::where(n.input(0), n.input(1), n.input(2)));
}

// Cast: `to` is a TensorProto.DataType code; strings and complex types have no Relay dtype.
void cast(NodeContext& n) {
  std::optional<int64_t> to = n.attrIntOpt("to");
  if (!to) n.fail("onnx_attr", "attribute 'to' is required");
  std::optional<DataType> dtype = dataTypeOf(static_cast<int32_t>(*to));
  if (!dtype)
    n.badAttr("to", onnxTypeName(static_cast<int32_t>(*to)), "numeric and bool element types");
  n.setOutput(0, relay::cast(n.input(0), *dtype));
}

// BitShift (opset 11): unsigned integers shifted LEFT or RIGHT by the second input.
void bitShift(NodeContext& n) {
  const std::string direction = n.attrString("direction", "");
  if (!n.inputDtype(0).isUInt()) n.fail("onnx_input", "BitShift takes unsigned integers");
  if (direction == "LEFT") return n.setOutput(0, relay::leftShift(n.input(0), n.input(1)));
  if (direction == "RIGHT") return n.setOutput(0, relay::rightShift(n.input(0), n.input(1)));
  n.badAttr("direction", direction, "LEFT, RIGHT");
}

void isNaN(NodeContext& n) {
  n.setOutput(0, relay::isnan(n.input(0)));
}

// CastLike: Cast to the element type of the second input.
void castLike(NodeContext& n) {
  n.setOutput(0, relay::cast(n.input(0), n.inputDtype(1)));
}

// IsInf: +inf and/or -inf, as detect_positive / detect_negative say.
void isInf(NodeContext& n) {
  const Expr x = n.input(0);
  const bool positive = n.attrInt("detect_positive", 1) != 0;
  const bool negative = n.attrInt("detect_negative", 1) != 0;
  const Expr zero = scalarConstant(0, n.dtypeOf(x));
  Expr inf = relay::isinf(x);
  if (positive && !negative) inf = relay::logicalAnd(inf, relay::greater(x, zero));
  if (negative && !positive) inf = relay::logicalAnd(inf, relay::less(x, zero));
  if (!positive && !negative) inf = relay::logicalAnd(inf, relay::isnan(x));  // always false
  n.setOutput(0, inf);
}

// Tan, Sinh, Cosh from the ops that exist.
void tan(NodeContext& n) {
  const Expr x = n.input(0);
  n.setOutput(0, relay::divide(relay::sin(x), relay::cos(x)));
}

template <bool kSinh>
void hyperbolic(NodeContext& n) {
  const Expr x = n.input(0);
  const Expr e = relay::exp(x), inverse = relay::exp(relay::negative(x));
  const Expr sum = kSinh ? relay::subtract(e, inverse) : relay::add(e, inverse);
  n.setOutput(0, relay::multiply(sum, scalarConstant(0.5, n.dtypeOf(x))));
}

// Round: half to even, as ONNX (and NumPy) round; Relay's round goes half away from zero, so a
// tie takes twice the rounded half instead.
void roundHalfEven(NodeContext& n) {
  n.setOutput(0, roundHalfToEven(n.input(0), n.dtypeOf(n.input(0))));
}

// Asinh, Acosh, Atanh through logarithms: log(x + sqrt(x^2 + 1)), log(x + sqrt(x^2 - 1)),
// log((1 + x) / (1 - x)) / 2.
template <int kKind>  // 0 asinh, 1 acosh, 2 atanh
void inverseHyperbolic(NodeContext& n) {
  const Expr x = n.input(0);
  const DataType dtype = n.dtypeOf(x);
  const Expr one = scalarConstant(1, dtype);
  if (kKind == 2) {
    const Expr ratio = relay::divide(relay::add(one, x), relay::subtract(one, x));
    return n.setOutput(0, relay::multiply(relay::log(ratio), scalarConstant(0.5, dtype)));
  }
  const Expr square = relay::multiply(x, x);
  const Expr root =
      relay::sqrt(kKind == 0 ? relay::add(square, one) : relay::subtract(square, one));
  n.setOutput(0, relay::log(relay::add(x, root)));
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
void shrink(NodeContext& n) {
  const Expr x = n.input(0);
  const DataType dtype = n.dtypeOf(x);
  const double lambd = n.attrFloat("lambd", 0.5), bias = n.attrFloat("bias", 0.0);
  const Expr above =
      relay::where(relay::greater(x, scalarConstant(lambd, dtype)),
                   relay::subtract(x, scalarConstant(bias, dtype)), scalarConstant(0, dtype));
  n.setOutput(0, relay::where(relay::less(x, scalarConstant(-lambd, dtype)),
                              relay::add(x, scalarConstant(bias, dtype)), above));
}

constexpr ConverterRow kRows[] = {
    {"Abs", unary<relay::abs>, ""},
    {"Acos", unary<relay::acos>, ""},
    {"Acosh", inverseHyperbolic<1>, ""},
    {"Add", binary<relay::add>, "numpy broadcasting"},
    {"And", binary<relay::logicalAnd>, ""},
    {"Asin", unary<relay::asin>, ""},
    {"Asinh", inverseHyperbolic<0>, ""},
    {"Atan", unary<relay::atan>, ""},
    {"Atanh", inverseHyperbolic<2>, ""},
    {"BitShift", bitShift, "direction LEFT/RIGHT; unsigned integers"},
    {"BitwiseAnd", binary<relay::bitwiseAnd>, "opset 18; integer types"},
    {"BitwiseNot", unary<relay::bitwiseNot>, "opset 18; integer types"},
    {"BitwiseOr", binary<relay::bitwiseOr>, "opset 18; integer types"},
    {"BitwiseXor", binary<relay::bitwiseXor>, "opset 18; integer types"},
    {"Cast", cast, "numeric and bool types"},
    {"CastLike", castLike, ""},
    {"Ceil", unary<relay::ceil>, ""},
    {"Celu", celu, ""},
    {"Clip", clip, "min/max as inputs (opset 11+) or attributes; run-time bounds allowed"},
    {"Cos", unary<relay::cos>, ""},
    {"Cosh", hyperbolic<false>, ""},
    {"Div", binary<relay::divide>, "integers truncate"},
    {"Elu", elu, ""},
    {"Equal", binary<relay::equal>, ""},
    {"Erf", unary<relay::erf>, ""},
    {"Exp", unary<relay::exp>, ""},
    {"Floor", unary<relay::floor>, ""},
    {"Greater", binary<relay::greater>, ""},
    {"GreaterOrEqual", binary<relay::greaterEqual>, ""},
    {"HardSigmoid", hardSigmoid, ""},
    {"HardSwish", hardSwish, ""},
    {"Identity", identity, ""},
    {"IsInf", isInf, "detect_positive, detect_negative"},
    {"IsNaN", isNaN, ""},
    {"LeakyRelu", leakyRelu, ""},
    {"Less", binary<relay::less>, ""},
    {"LessOrEqual", binary<relay::lessEqual>, ""},
    {"Log", unary<relay::log>, ""},
    {"Max", variadic<relay::maximum>, "any number of inputs"},
    {"Mean", mean, "any number of inputs"},
    {"Min", variadic<relay::minimum>, "any number of inputs"},
    {"Mish", mish, "opset 18 (accepted in earlier opsets too)"},
    {"Mod", mod, "fmod 0 and 1"},
    {"Mul", binary<relay::multiply>, ""},
    {"Neg", unary<relay::negative>, ""},
    {"Not", unary<relay::logicalNot>, ""},
    {"Or", binary<relay::logicalOr>, ""},
    {"PRelu", prelu, ""},
    {"Pow", pow, "exponent of any type; an int base with a float exponent runs in float64"},
    {"Reciprocal", reciprocal, ""},
    {"Relu", unary<relu>, ""},
    {"Round", roundHalfEven, "half to even"},
    {"Selu", selu, ""},
    {"Shrink", shrink, ""},
    {"Sigmoid", unary<relay::sigmoid>, ""},
    {"Sign", unary<relay::sign>, ""},
    {"Sin", unary<relay::sin>, ""},
    {"Sinh", hyperbolic<true>, ""},
    {"Softplus", softplus, "computed as max(x, 0) + log(1 + exp(-|x|))"},
    {"Softsign", softsign, ""},
    {"Sqrt", unary<relay::sqrt>, ""},
    {"Sub", binary<relay::subtract>, ""},
    {"Sum", variadic<relay::add>, "any number of inputs"},
    {"Tan", tan, ""},
    {"Tanh", unary<relay::tanh>, ""},
    {"ThresholdedRelu", thresholdedRelu, ""},
    {"Where", where, ""},
    {"Xor", binary<relay::bitwiseXor>, "bool inputs"},
};

}  // namespace

Expr roundHalfToEven(const Expr& x, DataType dtype) {
  const Expr away = relay::round(x);
  const Expr tie = relay::equal(relay::abs(relay::subtract(away, x)), scalarConstant(0.5, dtype));
  const Expr even = relay::multiply(scalarConstant(2, dtype),
                                    relay::round(relay::multiply(x, scalarConstant(0.5, dtype))));
  return relay::where(tie, even, away);
}

std::span<const ConverterRow> mathConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
