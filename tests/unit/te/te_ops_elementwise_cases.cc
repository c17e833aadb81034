// Differential cases: unary and binary elementwise ops, casts and clips (odd shapes, float and
// integer dtypes; integer results must match exactly).
#include "te_ops_util.h"

namespace tessera::test {
namespace {

std::string unary(const std::string& op, const std::string& type) {
  return "def @main(%x: Tensor[" + type + "]) { " + op + "(%x) }";
}
std::string binary(const std::string& op, const std::string& ta, const std::string& tb) {
  return "def @main(%a: Tensor[" + ta + "], %b: Tensor[" + tb + "]) { " + op + "(%a, %b) }";
}

std::vector<OpCase> build() {
  std::vector<OpCase> cases;
  const std::string f1 = "(3, 5), float32", f2 = "(2, 3, 7), float32";
  for (const char* op :
       {"negative", "exp", "tanh", "sigmoid", "erf", "sin", "cos", "round", "floor", "ceil",
        "trunc", "sign", "abs", "copy", "isnan", "isinf", "isfinite"}) {
    cases.push_back({.name = std::string(op) + "_f32", .text = unary(op, f1), .lo = -3, .hi = 3});
    cases.push_back(
        {.name = std::string(op) + "_f32_3d", .text = unary(op, f2), .lo = -3, .hi = 3});
  }
  for (const char* op : {"log", "log2", "log10", "sqrt", "rsqrt"})
    cases.push_back({.name = std::string(op) + "_f32", .text = unary(op, f2), .lo = 0.1, .hi = 4});
  // asin and acos are defined on [-1, 1]; atan everywhere (the 3-D shape vectorizes).
  for (const char* op : {"asin", "acos", "atan"})
    cases.push_back(
        {.name = std::string(op) + "_f32", .text = unary(op, f2), .lo = -0.99, .hi = 0.99});
  cases.push_back({.name = "atan_f32_wide", .text = unary("atan", f1), .lo = -30, .hi = 30});
  for (const char* op : {"negative", "abs", "sign", "floor", "ceil", "round", "trunc",
                         "bitwise_not", "copy", "isnan", "isinf", "isfinite"})
    cases.push_back({.name = std::string(op) + "_i32",
                     .text = unary(op, "(4, 5), int32"),
                     .lo = -50,
                     .hi = 50});
  cases.push_back({.name = "logical_not_bool", .text = unary("logical_not", "(3, 4), bool")});

  for (const char* op :
       {"add", "subtract", "multiply", "divide", "floor_divide", "floor_mod", "mod", "maximum",
        "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    cases.push_back(
        {.name = std::string(op) + "_f32", .text = binary(op, f1, f1), .lo = -2, .hi = 2});
    cases.push_back({.name = std::string(op) + "_bcast",
                     .text = binary(op, "(2, 1, 5), float32", "(3, 1), float32"),
                     .lo = -2,
                     .hi = 2});
  }
  for (const char* op :
       {"add", "subtract", "multiply", "maximum", "minimum", "equal", "not_equal", "less",
        "less_equal", "greater", "greater_equal", "bitwise_and", "bitwise_or", "bitwise_xor"})
    cases.push_back({.name = std::string(op) + "_i32",
                     .text = binary(op, "(3, 7), int32", "(7), int32"),
                     .lo = -40,
                     .hi = 40});
  // Integer division never sees a zero divisor (the reference reports it as an error).
  for (const char* op : {"divide", "floor_divide", "mod", "floor_mod"})
    cases.push_back({.name = std::string(op) + "_i32",
                     .text = binary(op, "(3, 7), int32", "(3, 7), int32"),
                     .lo = 1,
                     .hi = 30});
  for (const char* op : {"left_shift", "right_shift"})
    cases.push_back({.name = std::string(op) + "_i32",
                     .text = binary(op, "(3, 5), int32", "(5), int32"),
                     .lo = 0,
                     .hi = 12});
  // Unsigned types: negative draws wrap to the top of the range, so values with the high bit set
  // meet small ones and a signed comparison, division or shift would give other results.
  for (const char* t : {"uint8", "uint16", "uint32", "uint64"}) {
    const std::string ta = std::string("(3, 7), ") + t, tb = std::string("(7), ") + t;
    for (const char* op : {"maximum", "minimum", "less", "less_equal", "greater", "greater_equal",
                           "equal", "add", "subtract", "multiply"})
      cases.push_back(
          {.name = std::string(op) + "_" + t, .text = binary(op, ta, tb), .lo = -40, .hi = 40});
    // Never a zero divisor: every draw is negative, so every value is near the top.
    for (const char* op : {"divide", "floor_divide", "mod", "floor_mod"})
      cases.push_back(
          {.name = std::string(op) + "_" + t, .text = binary(op, ta, ta), .lo = -30, .hi = -1});
    cases.push_back({.name = std::string("right_shift_") + t,
                     .text = binary("right_shift", ta, tb),
                     .lo = -12,
                     .hi = 12});
  }
  cases.push_back(
      {.name = "power_f32", .text = binary("power", f1, f1), .lo = 0.2, .hi = 2, .rtol = 1e-4});
  // Integer power is exact and wraps; a negative exponent gives 0 except for bases 1 and -1.
  cases.push_back({.name = "power_i32",
                   .text = binary("power", "(4, 9), int32", "(4, 9), int32"),
                   .lo = -4,
                   .hi = 9});
  for (const char* t : {"int8", "int64", "uint16", "uint64"})
    cases.push_back({.name = std::string("power_") + t + "_wraps",
                     .text = binary("power", std::string("(3, 7), ") + t, std::string("(7), ") + t),
                     .lo = -40,
                     .hi = 40});
  for (const char* op : {"logical_and", "logical_or"})
    cases.push_back(
        {.name = std::string(op) + "_bool", .text = binary(op, "(2, 3, 4), bool", "(3, 4), bool")});

  cases.push_back({.name = "cast_f32_to_i32",
                   .text = "def @main(%x: Tensor[(3, 5), float32]) { cast(%x, dtype=\"int32\") }",
                   .lo = -50,
                   .hi = 50});
  cases.push_back({.name = "cast_u32_to_f32",
                   .text = "def @main(%x: Tensor[(7), uint32]) { cast(%x, dtype=\"float32\") }",
                   .lo = -50,
                   .hi = 50});
  cases.push_back({.name = "cast_u8_to_i64",
                   .text = "def @main(%x: Tensor[(7), uint8]) { cast(%x, dtype=\"int64\") }",
                   .lo = -50,
                   .hi = 50});
  cases.push_back({.name = "cast_i8_to_u32",
                   .text = "def @main(%x: Tensor[(7), int8]) { cast(%x, dtype=\"uint32\") }",
                   .lo = -50,
                   .hi = 50});
  cases.push_back({.name = "cast_f32_to_u8",
                   .text = "def @main(%x: Tensor[(3, 5), float32]) { cast(%x, dtype=\"uint8\") }",
                   .lo = 0,
                   .hi = 250});
  cases.push_back({.name = "cast_i32_to_f32",
                   .text = "def @main(%x: Tensor[(7), int32]) { cast(%x, dtype=\"float32\") }",
                   .lo = -50,
                   .hi = 50});
  cases.push_back(
      {.name = "clip_f32",
       .text = "def @main(%x: Tensor[(3, 5), float32]) { clip(%x, a_min=-0.5f, a_max=0.25f) }"});
  cases.push_back({.name = "clip_i32",
                   .text = "def @main(%x: Tensor[(9), int32]) { clip(%x, a_min=-3f, a_max=6f) }",
                   .lo = -10,
                   .hi = 10});
  cases.push_back({.name = "fixed_point_multiply",
                   .text = "def @main(%x: Tensor[(4, 5), int32]) { fixed_point_multiply(%x, "
                           "multiplier=1395864371, shift=-3) }",
                   .lo = -5000,
                   .hi = 5000});
  cases.push_back({.name = "fixed_point_multiply_pow2",
                   .text = "def @main(%x: Tensor[(4, 5), int32]) { fixed_point_multiply(%x, "
                           "multiplier=1073741824, shift=-2) }",
                   .lo = -5000,
                   .hi = 5000});
  cases.push_back({.name = "simulated_quantize",
                   .text = "def @main(%x: Tensor[(4, 6), float32]) { "
                           "relay.op.annotation.simulated_quantize(%x, 0.0625f, -127f, 127f, "
                           "kind=1) }",
                   .lo = -10,
                   .hi = 10});
  cases.push_back({.name = "simulated_quantize_identity",
                   .text = "def @main(%x: Tensor[(4, 6), float32]) { "
                           "relay.op.annotation.simulated_quantize(%x, 0f, 0f, 0f, kind=0) }"});
  cases.push_back(
      {.name = "stop_fusion",
       .text = "def @main(%x: Tensor[(3, 5), float32]) { annotation.stop_fusion(%x) }"});
  cases.push_back({.name = "cast_hint",
                   .text = "def @main(%x: Tensor[(3, 5), float32]) { annotation.cast_hint(%x, "
                           "dtype=\"int8\") }"});
  return cases;
}

}  // namespace

const std::vector<OpCase>& elementwiseCases() {
  static const std::vector<OpCase> cases = build();
  return cases;
}

}  // namespace tessera::test
