// ONNX's window functions (opset 17: HannWindow, HammingWindow, BlackmanWindow): generalized
// cosine windows of a length known at import time, computed then as constants
// (w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size for periodic windows, size - 1
// for symmetric ones).
#include <cmath>
#include <numbers>

#include "frontend/onnx/context.h"
#include "frontend/onnx/tensor_proto.h"

namespace tessera::frontend::onnx {
namespace {

template <int kKind>  // 0 Hann, 1 Hamming, 2 Blackman
void cosineWindow(NodeContext& n) {
  const auto size = static_cast<int64_t>(n.constantScalar(0, "size"));
  if (size < 0 || size > (int64_t{1} << 24))
    n.fail("onnx_input", "the window size " + std::to_string(size) + " is out of range");
  const bool periodic = n.attrInt("periodic", 1) != 0;
  std::optional<DataType> dtype = dataTypeOf(static_cast<int32_t>(n.attrInt("output_datatype", 1)));
  if (!dtype)
    n.badAttr("output_datatype", std::to_string(n.attrInt("output_datatype", 1)), "numeric types");
  const double a0 = kKind == 0 ? 0.5 : kKind == 1 ? 25.0 / 46.0 : 0.42;
  const double a1 = kKind == 0 ? 0.5 : kKind == 1 ? 1 - 25.0 / 46.0 : 0.5;
  const double a2 = kKind == 2 ? 0.08 : 0.0;
  const double denominator = static_cast<double>(periodic ? size : size - 1);
  NDArray w = NDArray::empty({size}, *dtype);
  for (int64_t i = 0; i < size; ++i) {
    const double phase =
        denominator > 0 ? 2 * std::numbers::pi * static_cast<double>(i) / denominator : 0;
    w.setFloat(i, a0 - a1 * std::cos(phase) + a2 * std::cos(2 * phase));
  }
  n.setOutput(0, relay::makeConstant(w));
}

constexpr ConverterRow kRows[] = {
    {"BlackmanWindow", cosineWindow<2>, "size known at import; periodic, output_datatype"},
    {"HammingWindow", cosineWindow<1>, "size known at import; periodic, output_datatype"},
    {"HannWindow", cosineWindow<0>, "size known at import; periodic, output_datatype"},
};

}  // namespace

std::span<const ConverterRow> windowConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
