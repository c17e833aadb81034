// Builds small ONNX models in tests with the real protobuf API: graph inputs, initializers, nodes
// with attributes, outputs, and the opset; `bytes()` serializes the ModelProto.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/onnx/onnx_proto.h"
#include "runtime/ndarray.h"

namespace tessera::test {

class OnnxGraph;

/// A fluent handle on one NodeProto: `g.node("Conv", {"x", "w"}, {"y"}).ints("pads", {1, 1, 1,
/// 1})`.
class OnnxNode {
 public:
  explicit OnnxNode(::onnx::NodeProto* node) : node_(node) {}
  OnnxNode& i(const std::string& name, int64_t value);
  OnnxNode& f(const std::string& name, float value);
  OnnxNode& s(const std::string& name, const std::string& value);
  OnnxNode& ints(const std::string& name, const std::vector<int64_t>& values);
  OnnxNode& floats(const std::string& name, const std::vector<float>& values);
  OnnxNode& t(const std::string& name, const NDArray& value);
  /// A GRAPH attribute (an If branch, a Loop body): the graph of `body`, whose opset is ignored.
  OnnxNode& g(const std::string& name, const OnnxGraph& body);
  ::onnx::NodeProto& proto() { return *node_; }

 private:
  ::onnx::AttributeProto* add(const std::string& name, ::onnx::AttributeProto::AttributeType type);
  ::onnx::NodeProto* node_;
};

/// A ModelProto under construction with one graph.
class OnnxGraph {
 public:
  explicit OnnxGraph(int64_t opset = 13);
  /// A graph input; a negative extent becomes the symbolic dimension "N".
  OnnxGraph& input(const std::string& name, const std::vector<int64_t>& shape,
                   int32_t elemType = ::onnx::TensorProto::FLOAT);
  /// An initializer (a constant the graph reads by name); `alsoInput` also lists it as an input.
  OnnxGraph& initializer(const std::string& name, const NDArray& value, bool alsoInput = false);
  OnnxGraph& output(const std::string& name);
  OnnxNode node(const std::string& opType, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const std::string& name = "");
  std::string bytes() const;
  ::onnx::ModelProto& model() { return model_; }
  const ::onnx::GraphProto& graph() const { return model_.graph(); }

 private:
  ::onnx::ModelProto model_;
};

/// A TensorProto holding `value` in raw_data.
::onnx::TensorProto tensorProtoOf(const std::string& name, const NDArray& value);

}  // namespace tessera::test
