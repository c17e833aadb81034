// Shared helpers of the ONNX importer tests: import a built graph and run it with the reference
// interpreter, and float tensors from value lists.
#pragma once

#include <string>
#include <vector>

#include "frontend/onnx/importer.h"
#include "onnx_graph_builder.h"
#include "relay/interp/interpreter.h"
#include "test_util.h"

namespace tessera::test {

/// Imports `g` and runs @main on `inputs` (in graph-input order).
inline relay::Value runOnnx(const OnnxGraph& g, const std::vector<NDArray>& inputs,
                            const frontend::onnx::ImportOptions& options = {}) {
  relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), options);
  relay::Interpreter interp(m);
  std::vector<relay::Value> args(inputs.begin(), inputs.end());
  return interp.run(args);
}

/// The single tensor result of runOnnx.
inline NDArray runOnnx1(const OnnxGraph& g, const std::vector<NDArray>& inputs,
                        const frontend::onnx::ImportOptions& options = {}) {
  relay::Value v = runOnnx(g, inputs, options);
  EXPECT_TRUE(v.isTensor());
  return v.isTensor() ? v.tensor() : NDArray();
}

/// A float32 tensor.
inline NDArray f32(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  return tensorOf(shape, DataType::float32(), values);
}

/// An int64 tensor.
inline NDArray i64(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  return tensorOf(shape, DataType::int64(), values);
}

/// 0, 1, ..., n-1 (or from `start`).
inline std::vector<double> iota(int n, double start = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + i);
  return v;
}

}  // namespace tessera::test
