// Helpers the int8 kernel tests share (x86_int8_test.cc, x86_int8_amx_test.cc,
// x86_int8_batch_depthwise_test.cc): int8 constants over the whole range, the requantizing
// epilogue relay.quantize's realize produces, and what build() chose for each kernel.
#pragma once

#include <string>
#include <vector>

#include "../driver/build_test_util.h"
#include "relay/builder.h"
#include "tir/printer/printer.h"

namespace tessera::driver::test {

/// A random int32 bias of n values (the add after a quantized dense).
inline relay::Expr int32Bias(int64_t n, uint64_t seed) {
  return relay::constant(tessera::test::randomTensor({n}, DataType::int32(), seed, -5000, 5000));
}

/// The same shaped (n, 1, 1) by expand_dims (the add after a quantized conv2d).
inline relay::Expr channelBias(int64_t n, uint64_t seed) {
  return relay::callOp("expand_dims", {int32Bias(n, seed)},
                       {{"axis", AttrValue::integer(1)}, {"num_newaxis", AttrValue::integer(2)}});
}

/// int8 values over the whole range, the extremes included.
inline relay::Expr int8Constant(const std::vector<int64_t>& shape, uint64_t seed) {
  return relay::constant(tessera::test::randomTensor(shape, DataType::int8(), seed, -128, 128));
}

/// What realize makes of a quantized product's output: (+ bias,) fixed-point rescale by
/// 2^shift, clip, int8.
inline relay::Expr requantize(relay::Expr acc, relay::Expr bias = nullptr, int64_t shift = -7) {
  relay::Expr y = std::move(acc);
  if (bias) y = relay::callOp("add", {std::move(y), std::move(bias)});
  y = relay::callOp(
      "fixed_point_multiply", {y},
      {{"multiplier", AttrValue::integer(1518500250)}, {"shift", AttrValue::integer(shift)}});
  y = relay::callOp("clip", {y},
                    {{"a_min", AttrValue::floating(-127)}, {"a_max", AttrValue::floating(127)}});
  return relay::callOp("cast", {y}, {{"dtype", AttrValue::string("int8")}});
}

/// The implementations build() chose for every call (--explain-strategy's lines) and the
/// kernels' TensorIR.
struct BuiltKernels {
  std::vector<std::string> implementations;
  std::string tir;
  /// Whether some line names `what` ("nn.conv2d: conv2d_nchw_int8_amx.x86").
  bool mentions(const std::string& what) const {
    for (const std::string& l : implementations)
      if (l.find(what) != std::string::npos) return true;
    return false;
  }
  /// Whether some kernel calls the LLVM intrinsic `name`.
  bool calls(const std::string& name) const { return tir.find(name) != std::string::npos; }
  bool callsVnni() const { return calls("llvm.x86.avx512.vpdpbusd.512"); }
};

inline BuiltKernels kernelsOf(const relay::IRModule& mod,
                              const target::Target& target = codegen::hostTarget()) {
  const Built built = build(mod, target);
  BuiltKernels out;
  for (const KernelStrategy& k : built.strategies)
    for (const std::string& line : explainStrategy(k)) out.implementations.push_back(line);
  for (const tir::PrimFunc& f : built.kernels) out.tir += tir::toScript(f);
  return out;
}

}  // namespace tessera::driver::test
