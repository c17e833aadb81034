// ONNX's quantization operators as compositions (ONNX 1.12 semantics): QuantizeLinear,
// DequantizeLinear (per tensor or per axis), DynamicQuantizeLinear, and the integer products
// MatMulInteger and QLinearMatMul, computed in int32 after subtracting the zero points (exact).
#include <cmath>

#include "frontend/onnx/context.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

// A per-axis (1-D) scale or zero point laid along `axis` of a rank-`rank` value; a scalar as is.
Expr alongAxis(NodeContext& n, size_t input, int64_t rank) {
  const Expr v = n.input(input);
  const std::vector<int64_t> s = n.inputShape(input);
  if (s.empty() || (s.size() == 1 && s[0] == 1)) return s.empty() ? v : relay::squeeze(v);
  if (s.size() != 1) n.fail("onnx_input", "scale and zero point must be scalars or 1-D");
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 1), rank);
  const int64_t trailing = rank - 1 - axis;  // numpy broadcasting aligns the trailing axes
  return trailing == 0 ? v : relay::expandDims(v, 1, static_cast<int>(trailing));
}

// round half to even of x / scale, plus the zero point, saturated to `dtype`'s range.
Expr quantize(const Expr& x, const Expr& scale, const Expr& zeroPoint, DataType dtype) {
  const DataType f32 = DataType::float32();
  Expr q = roundHalfToEven(relay::divide(relay::cast(x, f32), scale), f32);
  q = relay::add(q, relay::cast(zeroPoint, f32));
  const double lo = dtype.isUInt() ? 0 : -std::ldexp(1.0, dtype.bits() - 1);
  const double hi =
      dtype.isUInt() ? std::ldexp(1.0, dtype.bits()) - 1 : std::ldexp(1.0, dtype.bits() - 1) - 1;
  return relay::cast(relay::clip(q, lo, hi), dtype);
}

void quantizeLinear(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  const DataType dtype = n.hasInput(2) ? n.inputDtype(2) : DataType::uint8();
  if (!(dtype == DataType::uint8() || dtype == DataType::int8()))
    n.fail("onnx_input", "the zero point must be uint8 or int8, not " + dtype.name());
  const Expr zero = n.hasInput(2) ? alongAxis(n, 2, rank) : scalarConstant(0, dtype);
  n.setOutput(0, quantize(n.input(0), alongAxis(n, 1, rank), zero, dtype));
}

void dequantizeLinear(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  const DataType f32 = DataType::float32();
  Expr x = relay::cast(n.input(0), f32);
  if (n.hasInput(2)) x = relay::subtract(x, relay::cast(alongAxis(n, 2, rank), f32));
  n.setOutput(0, relay::multiply(x, alongAxis(n, 1, rank)));
}

// DynamicQuantizeLinear: uint8 over the range [min(0, min x), max(0, max x)].
void dynamicQuantizeLinear(NodeContext& n) {
  const DataType f32 = DataType::float32();
  const Expr x = n.input(0);
  const Expr zero = scalarConstant(0, f32);
  const Expr lo = relay::minimum(relay::min(x), zero), hi = relay::maximum(relay::max(x), zero);
  const Expr scale = relay::divide(relay::subtract(hi, lo), scalarConstant(255, f32));
  const Expr zeroPoint = relay::cast(
      relay::clip(roundHalfToEven(relay::subtract(zero, relay::divide(lo, scale)), f32), 0, 255),
      DataType::uint8());
  n.setOutput(0, quantize(x, scale, zeroPoint, DataType::uint8()));
  n.setOutput(1, scale);
  n.setOutput(2, zeroPoint);
}

// An integer operand less its zero point, in int32.
Expr centred(NodeContext& n, size_t value, size_t zeroPoint) {
  Expr v = relay::cast(n.input(value), DataType::int32());
  if (n.hasInput(zeroPoint))
    v = relay::subtract(v, relay::cast(n.input(zeroPoint), DataType::int32()));
  return v;
}

void matMulInteger(NodeContext& n) {
  n.setOutput(0, matmulOf(n, centred(n, 0, 2), centred(n, 1, 3)));
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the int32 product, rescaled
// by a_scale * b_scale / y_scale and quantized to y's zero point.
void qlinearMatMul(NodeContext& n) {
  const Expr product = matmulOf(n, centred(n, 0, 2), centred(n, 3, 5));
  const DataType f32 = DataType::float32();
  const Expr real =
      relay::multiply(relay::cast(product, f32), relay::multiply(n.input(1), n.input(4)));
  n.setOutput(0, quantize(real, n.input(6), n.input(7), n.inputDtype(7)));
}

constexpr ConverterRow kRows[] = {
    {"DequantizeLinear", dequantizeLinear, "per tensor or per axis"},
    {"DynamicQuantizeLinear", dynamicQuantizeLinear, "uint8"},
    {"MatMulInteger", matMulInteger, "int32 result; zero points per tensor"},
    {"QLinearMatMul", qlinearMatMul, "per-tensor scales and zero points"},
    {"QuantizeLinear", quantizeLinear, "uint8/int8; per tensor or per axis; round half to even"},
};

}  // namespace

std::span<const ConverterRow> quantizeConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
