// NodeContext: one ONNX node as a converter sees it — its inputs (with their types and, when known
// at import, their values), its attributes with type checks, its subgraphs, its outputs, and
// diagnostics that name the node.
#include "frontend/onnx/context.h"

#include <algorithm>

#include "frontend/onnx/tensor_proto.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

using relay::Expr;
using relay::ExprKind;

// --- NodeContext: inputs -------------------------------------------------------------------------

NodeContext::NodeContext(GraphContext& graph, const ::onnx::NodeProto& node, int index)
    : graph_(graph), node_(node), index_(index) {}

std::string NodeContext::describe() const {
  std::string s = graph_.scopePrefix() + "node #" + std::to_string(index_);
  if (!node_.name().empty()) s += " '" + node_.name() + "'";
  return s + " (" + node_.op_type() + ")";
}

bool NodeContext::hasInput(size_t i) const {
  return i < numInputs() && !node_.input(static_cast<int>(i)).empty();
}

// ONNX requires topological order, so an unknown name is either a typo or a node listed before its
// producer; both are the same error for the user.
Expr NodeContext::input(size_t i) const {
  if (!hasInput(i))
    fail("onnx_input", "input " + std::to_string(i) + " is required but not given (the node has " +
                           std::to_string(numInputs()) + " inputs)");
  const std::string& name = node_.input(static_cast<int>(i));
  Expr e = graph_.lookup(name);
  if (!e)
    fail("onnx_undefined",
         "input '" + name + "' is not a graph input, an initializer or an earlier node's output");
  return e;
}

const SymShape* NodeContext::symbolicInput(size_t i) const {
  if (!hasInput(i)) return nullptr;
  Expr e = graph_.lookup(node_.input(static_cast<int>(i)));
  return e ? graph_.symbolicShape(e) : nullptr;
}

const TensorTypeNode& NodeContext::inputType(size_t i) const {
  Type t = graph_.typeOf(input(i));
  const auto* tensor = t->as<TensorTypeNode>();
  if (!tensor) fail("onnx_input", "input " + std::to_string(i) + " is not a tensor");
  return *tensor;
}

std::optional<NDArray> NodeContext::constantInput(size_t i) const {
  return graph_.knownValue(input(i));
}

std::vector<int64_t> NodeContext::constantInts(size_t i, const std::string& what) const {
  std::optional<NDArray> value = constantInput(i);
  if (!value && symbolicInput(i)) (void)input(i);  // the diagnostic for a symbolic shape value
  if (!value)
    fail("onnx_dynamic",
         "the " + what + " input '" + node_.input(static_cast<int>(i)) +
             "' depends on run-time data; only values known at import time (initializers, "
             "constants, shapes of statically shaped tensors, and graph inputs whose value is "
             "given: tessera run --input, ImportOptions::inputValues) are supported");
  if (!value->dtype().isInteger())
    fail("onnx_input",
         "the " + what + " input must hold integers but has type " + value->dtype().name());
  if (value->ndim() > 1)
    fail("onnx_input", "the " + what + " input must be 0-D or 1-D but has " +
                           std::to_string(value->ndim()) + " dimensions");
  std::vector<int64_t> out;
  for (int64_t k = 0; k < value->numel(); ++k) out.push_back(value->getInt(k));
  return out;
}

double NodeContext::constantScalar(size_t i, const std::string& what) const {
  std::optional<NDArray> value = constantInput(i);
  if (!value)
    fail("onnx_dynamic",
         "the " + what + " input '" + node_.input(static_cast<int>(i)) +
             "' depends on run-time data; only constants (or graph inputs whose value is given: "
             "tessera run --input) are supported");
  if (value->numel() != 1)
    fail("onnx_input",
         "the " + what + " input must hold one value but holds " + std::to_string(value->numel()));
  return value->getFloat(0);
}

// --- NodeContext: attributes ---------------------------------------------------------------------

const ::onnx::AttributeProto* NodeContext::findAttr(const std::string& name) const {
  for (const ::onnx::AttributeProto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

namespace {

const char* attrTypeName(int type) {
  switch (type) {
    case ::onnx::AttributeProto::FLOAT:
      return "FLOAT";
    case ::onnx::AttributeProto::INT:
      return "INT";
    case ::onnx::AttributeProto::STRING:
      return "STRING";
    case ::onnx::AttributeProto::TENSOR:
      return "TENSOR";
    case ::onnx::AttributeProto::FLOATS:
      return "FLOATS";
    case ::onnx::AttributeProto::INTS:
      return "INTS";
    case ::onnx::AttributeProto::STRINGS:
      return "STRINGS";
    case ::onnx::AttributeProto::GRAPH:
      return "GRAPH";
    default:
      return "another type";
  }
}

}  // namespace

// Attribute types are checked, not coerced: a FLOAT `axis` is a broken exporter, and guessing
// would hide it.
const ::onnx::AttributeProto* NodeContext::typedAttr(
    const std::string& name, ::onnx::AttributeProto::AttributeType type) const {
  const ::onnx::AttributeProto* a = findAttr(name);
  if (!a) return nullptr;
  if (a->type() != type)
    fail("onnx_attr", "attribute '" + name + "' must be " + attrTypeName(type) + " but is " +
                          attrTypeName(a->type()));
  return a;
}

int64_t NodeContext::attrInt(const std::string& name, int64_t fallback) const {
  return attrIntOpt(name).value_or(fallback);
}

std::optional<int64_t> NodeContext::attrIntOpt(const std::string& name) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::INT);
  return a ? std::optional(a->i()) : std::nullopt;
}

double NodeContext::attrFloat(const std::string& name, double fallback) const {
  return attrFloatOpt(name).value_or(fallback);
}

std::optional<double> NodeContext::attrFloatOpt(const std::string& name) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::FLOAT);
  return a ? std::optional<double>(a->f()) : std::nullopt;
}

std::optional<std::vector<int64_t>> NodeContext::attrInts(const std::string& name) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::INTS);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> NodeContext::attrFloats(const std::string& name) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::FLOATS);
  if (!a) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

std::optional<std::vector<std::string>> NodeContext::attrStrings(const std::string& name) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::STRINGS);
  if (!a) return std::nullopt;
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}

std::string NodeContext::attrString(const std::string& name, const std::string& fallback) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::STRING);
  return a ? a->s() : fallback;
}

// Tensor attributes (Constant's value, ConstantOfShape's fill) decode like initializers; the
// decoder's diagnostic is re-issued so it names this node.
std::optional<NDArray> NodeContext::attrTensor(const std::string& name) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::TENSOR);
  if (!a) return std::nullopt;
  try {
    return tensorFromProto(a->t(), "attribute '" + name + "'");
  } catch (const DiagnosticError& e) {
    fail(e.diagnostic().code, e.diagnostic().context + ": " + e.diagnostic().message);
  }
}

const ::onnx::GraphProto& NodeContext::attrGraph(const std::string& name) const {
  const auto* a = typedAttr(name, ::onnx::AttributeProto::GRAPH);
  if (!a) fail("onnx_attr", "attribute '" + name + "' (a graph) is required");
  return a->g();
}

void NodeContext::badAttr(const std::string& name, const std::string& found,
                          const std::string& supported) const {
  fail("onnx_unsupported_attr",
       "attribute " + name + "=" + found + " is not supported; supported: " + supported);
}

// --- NodeContext: subgraphs ---------------------------------------------------------------------

// ONNX subgraphs see every value of their enclosing graphs by name, so the nested scope only adds
// bindings; the subgraph's own names may shadow outer ones and vanish when the scope ends. Its
// outputs may be its inputs or outer values as well as its nodes' results.
std::vector<Expr> NodeContext::convertSubgraph(const ::onnx::GraphProto& graph,
                                               const std::vector<Expr>& inputs,
                                               const std::string& label) const {
  // Computed before the scope opens: inside it, describe() names the subgraph's nodes.
  const std::string where = describe();
  auto bad = [&](const std::string& code, const std::string& message) {
    throwDiagnostic(code, label + ": " + message, Span{}, where);
  };
  if (graph.input_size() != static_cast<int>(inputs.size()))
    bad("onnx_subgraph", "it must have " + std::to_string(inputs.size()) + " inputs but has " +
                             std::to_string(graph.input_size()));
  if (graph.sparse_initializer_size() > 0)
    bad("onnx_tensor", "sparse initializers are not supported");
  GraphContext::Scope scope(graph_, where + ", " + label);
  auto define = [&](const std::string& name, Expr value, const std::string& what) {
    if (name.empty()) bad("onnx_subgraph", what + " has no name");
    if (graph_.isBound(name)) bad("onnx_duplicate", what + " '" + name + "' is defined twice");
    graph_.bind(name, std::move(value));
  };
  for (int k = 0; k < graph.input_size(); ++k)
    define(graph.input(k).name(), inputs[static_cast<size_t>(k)], "an input");
  for (const ::onnx::TensorProto& t : graph.initializer())
    define(t.name(), relay::makeConstant(tensorFromProto(t, where + ", " + label)),
           "an initializer");
  for (int k = 0; k < graph.node_size(); ++k) convertNode(graph_, graph.node(k), k);
  std::vector<Expr> outputs;
  for (const ::onnx::ValueInfoProto& info : graph.output()) {
    Expr e = graph_.lookup(info.name());
    if (!e) bad("onnx_undefined", "output '" + info.name() + "' is never computed");
    outputs.push_back(e);
  }
  return outputs;
}

// --- NodeContext: outputs and helpers ------------------------------------------------------------

bool NodeContext::outputUsed(size_t i) const {
  return i < numOutputs() && !node_.output(static_cast<int>(i)).empty();
}

// Omitted outputs (empty names) are never bound; the importer binds the rest after the node's
// types check, so a failing node leaves no partial bindings behind.
void NodeContext::setOutput(size_t i, Expr value) {
  if (!outputUsed(i)) return;
  outputs_.emplace_back(i, std::move(value));
}

void NodeContext::requireOutputsAtMost(size_t n, const std::string& why) const {
  for (size_t i = n; i < numOutputs(); ++i)
    if (outputUsed(i))
      fail("onnx_unsupported_output", "output " + std::to_string(i) + " ('" +
                                          node_.output(static_cast<int>(i)) +
                                          "') is not supported: " + why);
}

// Inputs have static shapes and every op keeps them static, so a non-static shape is unexpected
// but still a user-visible diagnostic rather than an internal error.
std::vector<int64_t> NodeContext::shapeOf(const Expr& e) const {
  Type t = graph_.typeOf(e);
  const auto* tensor = t->as<TensorTypeNode>();
  if (!tensor) fail("onnx_input", "expected a tensor but found " + typeToString(t));
  std::optional<std::vector<int64_t>> dims = staticShape(tensor->shape);
  if (!dims)
    fail("onnx_dynamic", "shape " + shapeToString(tensor->shape) +
                             " is not static and this operator needs its extents at import; give "
                             "the dynamic graph inputs static shapes with --input-shape "
                             "NAME=D0,D1,... (ImportOptions::inputShapes)");
  return *dims;
}

std::vector<int64_t> NodeContext::inputDims(size_t i) const {
  std::vector<int64_t> dims;
  for (const Dim& d : inputType(i).shape) dims.push_back(d.isConst() ? d.value() : -1);
  return dims;
}

std::vector<int64_t> NodeContext::inputShapeDynamicBatch(size_t i) const {
  const TensorTypeNode& t = inputType(i);
  std::vector<int64_t> dims;
  for (size_t k = 0; k < t.shape.size(); ++k) {
    if (t.shape[k].isConst()) {
      dims.push_back(t.shape[k].value());
      continue;
    }
    if (k != 0)
      fail("onnx_dynamic", "shape " + shapeToString(t.shape) +
                               " is dynamic past its leading (batch) axis, which this operator "
                               "needs static");
    dims.push_back(-1);
  }
  return dims;
}

DataType NodeContext::dtypeOf(const Expr& e) const {
  Type t = graph_.typeOf(e);
  const auto* tensor = t->as<TensorTypeNode>();
  if (!tensor) fail("onnx_input", "expected a tensor but found " + typeToString(t));
  return tensor->dtype;
}

int64_t NodeContext::normalizeAxis(int64_t axis, int64_t rank, const std::string& what) const {
  if (axis < -rank || axis >= rank)
    fail("onnx_axis", what + " " + std::to_string(axis) + " is out of range for rank " +
                          std::to_string(rank) + " (expected " + std::to_string(-rank) + " to " +
                          std::to_string(rank - 1) + ")");
  return axis < 0 ? axis + rank : axis;
}

void NodeContext::fail(const std::string& code, const std::string& message) const {
  throwDiagnostic(code, message, Span{}, describe());
}

}  // namespace tessera::frontend::onnx
