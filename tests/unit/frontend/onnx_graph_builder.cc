// OnnxGraph / OnnxNode: test-side construction of ONNX models with the protobuf API.
#include "onnx_graph_builder.h"

#include <cstring>
#include <stdexcept>

namespace tessera::test {

namespace {

int32_t onnxCode(DataType dtype) {
  if (dtype == DataType::float32()) return ::onnx::TensorProto::FLOAT;
  if (dtype == DataType::float64()) return ::onnx::TensorProto::DOUBLE;
  if (dtype == DataType::int64()) return ::onnx::TensorProto::INT64;
  if (dtype == DataType::int32()) return ::onnx::TensorProto::INT32;
  if (dtype == DataType::int8()) return ::onnx::TensorProto::INT8;
  if (dtype == DataType::uint8()) return ::onnx::TensorProto::UINT8;
  if (dtype == DataType::boolType()) return ::onnx::TensorProto::BOOL;
  throw std::runtime_error("onnx_graph_builder: unsupported dtype " + dtype.name());
}

}  // namespace

::onnx::AttributeProto* OnnxNode::add(const std::string& name,
                                      ::onnx::AttributeProto::AttributeType type) {
  ::onnx::AttributeProto* a = node_->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

OnnxNode& OnnxNode::i(const std::string& name, int64_t value) {
  add(name, ::onnx::AttributeProto::INT)->set_i(value);
  return *this;
}

OnnxNode& OnnxNode::f(const std::string& name, float value) {
  add(name, ::onnx::AttributeProto::FLOAT)->set_f(value);
  return *this;
}

OnnxNode& OnnxNode::s(const std::string& name, const std::string& value) {
  add(name, ::onnx::AttributeProto::STRING)->set_s(value);
  return *this;
}

OnnxNode& OnnxNode::ints(const std::string& name, const std::vector<int64_t>& values) {
  ::onnx::AttributeProto* a = add(name, ::onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
  return *this;
}

OnnxNode& OnnxNode::floats(const std::string& name, const std::vector<float>& values) {
  ::onnx::AttributeProto* a = add(name, ::onnx::AttributeProto::FLOATS);
  for (float v : values) a->add_floats(v);
  return *this;
}

OnnxNode& OnnxNode::t(const std::string& name, const NDArray& value) {
  *add(name, ::onnx::AttributeProto::TENSOR)->mutable_t() = tensorProtoOf("", value);
  return *this;
}

OnnxNode& OnnxNode::g(const std::string& name, const OnnxGraph& body) {
  *add(name, ::onnx::AttributeProto::GRAPH)->mutable_g() = body.graph();
  return *this;
}

OnnxGraph::OnnxGraph(int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("tessera-test");
  ::onnx::OperatorSetIdProto* id = model_.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

OnnxGraph& OnnxGraph::input(const std::string& name, const std::vector<int64_t>& shape,
                            int32_t elemType) {
  ::onnx::ValueInfoProto* info = model_.mutable_graph()->add_input();
  info->set_name(name);
  ::onnx::TypeProto_Tensor* t = info->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elemType);
  ::onnx::TensorShapeProto* s = t->mutable_shape();
  for (int64_t d : shape) {
    if (d < 0)
      s->add_dim()->set_dim_param("N");
    else
      s->add_dim()->set_dim_value(d);
  }
  return *this;
}

OnnxGraph& OnnxGraph::initializer(const std::string& name, const NDArray& value, bool alsoInput) {
  *model_.mutable_graph()->add_initializer() = tensorProtoOf(name, value);
  if (alsoInput) input(name, value.shape(), onnxCode(value.dtype()));
  return *this;
}

OnnxGraph& OnnxGraph::output(const std::string& name) {
  model_.mutable_graph()->add_output()->set_name(name);
  return *this;
}

OnnxNode OnnxGraph::node(const std::string& opType, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, const std::string& name) {
  ::onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(opType);
  n->set_name(name);
  for (const std::string& in : inputs) n->add_input(in);
  for (const std::string& out : outputs) n->add_output(out);
  return OnnxNode(n);
}

std::string OnnxGraph::bytes() const {
  return model_.SerializeAsString();
}

::onnx::TensorProto tensorProtoOf(const std::string& name, const NDArray& value) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnxCode(value.dtype()));
  for (int64_t d : value.shape()) t.add_dims(d);
  t.set_raw_data(std::string(static_cast<const char*>(value.data()), value.nbytes()));
  return t;
}

}  // namespace tessera::test
