// GraphContext and NodeContext: value bindings (nested scopes for subgraphs), the per-node type
// cache, attribute access with type checks, subgraph conversion, and node-naming diagnostics.
#include "frontend/onnx/context.h"

#include <algorithm>

#include "frontend/onnx/tensor_proto.h"
#include "relay/interp/interpreter.h"
#include "relay/op_registry.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

using relay::Expr;
using relay::ExprKind;

// --- GraphContext --------------------------------------------------------------------------------

// Scopes are a stack of undo records over one name map: lookups stay one map search however deep
// the nesting, and leaving a scope puts back exactly the bindings it shadowed.
GraphContext::Scope::Scope(GraphContext& graph, std::string where) : graph_(graph) {
  graph_.scopes_.push_back({std::move(where) + ": ", {}});
}

GraphContext::Scope::~Scope() {
  for (auto& [name, previous] : graph_.scopes_.back().shadowed) {
    if (previous)
      graph_.values_[name] = std::move(previous);
    else
      graph_.values_.erase(name);
  }
  graph_.scopes_.pop_back();
}

void GraphContext::bind(const std::string& name, Expr expr) {
  if (scopes_.empty()) {
    TS_CHECK(!values_.count(name)) << "ONNX value '" << name << "' bound twice";
  } else {
    const bool fresh = scopes_.back().shadowed.emplace(name, lookup(name)).second;
    TS_CHECK(fresh) << "ONNX value '" << name << "' bound twice in one scope";
  }
  boundNodes_.insert(expr.get());
  values_[name] = std::move(expr);
}

Expr GraphContext::lookup(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : it->second;
}

bool GraphContext::isBound(const std::string& name) const {
  if (!scopes_.empty()) return scopes_.back().shadowed.count(name) != 0;
  return values_.count(name) != 0 || released_.count(name) != 0;
}

const std::string& GraphContext::scopePrefix() const {
  static const std::string kTopLevel;
  return scopes_.empty() ? kTopLevel : scopes_.back().prefix;
}

std::optional<NDArray> GraphContext::knownValue(const Expr& e) {
  auto c = relay::exprAs<relay::ConstantNode>(e);
  if (c && c->hasData()) return c->data;
  return specializedValue(e);
}

Type GraphContext::typeOf(const Expr& root) {
  if (auto it = types_.find(root.get()); it != types_.end()) return it->second.second;
  // Post-order over the nodes not typed yet; typed nodes end the walk, so each node is typed once
  // and the work per ONNX node is proportional to the expressions its converter built.
  std::vector<std::pair<Expr, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (types_.count(e.get())) continue;
    if (expanded) {
      Type t = computeType(e);
      types_.emplace(e.get(), std::make_pair(e, std::move(t)));
      continue;
    }
    stack.emplace_back(e, true);
    std::vector<Expr> kids;
    if (const auto* call = e->as<relay::CallNode>()) kids = call->args;
    if (const auto* tuple = e->as<relay::TupleNode>()) kids = tuple->fields;
    if (const auto* item = e->as<relay::TupleGetItemNode>()) kids = {item->tuple};
    if (const auto* node = e->as<relay::IfNode>())
      kids = {node->cond, node->thenBranch, node->elseBranch};
    for (const Expr& k : kids)
      if (!types_.count(k.get())) stack.emplace_back(k, false);
  }
  return types_.at(root.get()).second;
}

bool GraphContext::isSmall(const Type& t) {
  if (const auto* tuple = t->as<TupleTypeNode>()) {
    for (const Type& f : tuple->fields)
      if (!isSmall(f)) return false;
    return true;
  }
  const auto* tensor = t->as<TensorTypeNode>();
  if (!tensor) return false;
  std::optional<std::vector<int64_t>> dims = staticShape(tensor->shape);
  if (!dims) return false;
  int64_t numel = 1;
  for (int64_t d : *dims)
    if (__builtin_mul_overflow(numel, d, &numel)) return false;
  return numel <= kMaxFoldElements;
}

// Walks the computation of `e` down to its leaves: constants with data, and (with
// `throughInputs`) graph inputs that have a specialised value, which are returned. Without it a
// bound value that is not a constant depends on an input (or was too large to fold), so it ends
// the search. nullopt when `e` is not such a computation: another input, an unknown constant, a
// stateful op, a function, or an intermediate too large to evaluate at import.
std::optional<std::vector<relay::Var>> GraphContext::knownComputation(const Expr& e,
                                                                      bool throughInputs) {
  std::vector<relay::Var> inputs;
  std::vector<Expr> stack{e};
  std::unordered_set<const relay::ExprNode*> seen;
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (!seen.insert(x.get()).second) continue;
    if (const auto* c = x->as<relay::ConstantNode>()) {
      if (!c->hasData()) return std::nullopt;
      continue;
    }
    if (x->kind == ExprKind::kVar) {
      if (!throughInputs || !specialized_.count(x.get())) return std::nullopt;
      inputs.push_back(relay::exprAs<relay::VarNode>(x));
      continue;
    }
    if ((!throughInputs && boundNodes_.count(x.get())) || !isSmall(typeOf(x))) return std::nullopt;
    if (const auto* call = x->as<relay::CallNode>()) {
      const auto* op = call->op->as<relay::OpNode>();
      if (!op || op->def->stateful) return std::nullopt;
      stack.insert(stack.end(), call->args.begin(), call->args.end());
    } else if (const auto* tuple = x->as<relay::TupleNode>()) {
      stack.insert(stack.end(), tuple->fields.begin(), tuple->fields.end());
    } else if (const auto* item = x->as<relay::TupleGetItemNode>()) {
      stack.push_back(item->tuple);
    } else {
      return std::nullopt;
    }
  }
  return inputs;
}

Expr GraphContext::tryFold(const Expr& e) {
  if (e->kind == ExprKind::kConstant || !knownComputation(e, false)) return e;
  relay::Value v = relay::evaluateClosed(e);
  if (!v.isTensor()) return e;
  Expr folded = relay::makeConstant(v.tensor());
  (void)typeOf(folded);
  forgetIntermediates(e);
  return folded;
}

// The type cache holds the expressions it types. Those a fold replaced (down to the bound values
// they read) are forgotten, so a transposed weight does not keep the original alive.
void GraphContext::forgetIntermediates(const Expr& root) {
  std::vector<Expr> stack{root};
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (boundNodes_.count(x.get()) || !types_.erase(x.get())) continue;
    if (const auto* call = x->as<relay::CallNode>())
      stack.insert(stack.end(), call->args.begin(), call->args.end());
    else if (const auto* tuple = x->as<relay::TupleNode>())
      stack.insert(stack.end(), tuple->fields.begin(), tuple->fields.end());
    else if (const auto* item = x->as<relay::TupleGetItemNode>())
      stack.push_back(item->tuple);
  }
}

void GraphContext::release(const std::string& name) {
  TS_CHECK(scopes_.empty()) << "names are released at the top level only";
  auto it = values_.find(name);
  if (it == values_.end()) return;
  // Only a constant is dropped from the caches: other values may still be reached (and typed)
  // through later expressions, and are cheap to keep.
  if (it->second->kind == ExprKind::kConstant) {
    types_.erase(it->second.get());
    boundNodes_.erase(it->second.get());
  }
  values_.erase(it);
  released_.insert(name);  // still defined: a second definition is an error
}

std::string GraphContext::declareFunction(const std::string& base, Type retType) {
  std::string name = base;
  for (int k = 1; returnTypes_.count(name); ++k) name = base + "_" + std::to_string(k);
  returnTypes_[name] = std::move(retType);
  return name;
}

void GraphContext::defineFunction(const std::string& name, relay::Function fn) {
  TS_CHECK(returnTypes_.count(name)) << "@" << name << " defined before it is declared";
  functions_[name] = std::move(fn);
}

// The op's own type relation gives the result type; every argument type is already complete, so
// an `assign` from the relation can only confirm a type or report a mismatch.
Type GraphContext::computeType(const Expr& e) {
  auto typeAt = [&](const Expr& k) { return types_.at(k.get()).second; };
  switch (e->kind) {
    case ExprKind::kVar:
      return e->as<relay::VarNode>()->typeAnnotation;
    case ExprKind::kConstant:
      return e->as<relay::ConstantNode>()->declaredType;
    case ExprKind::kTuple: {
      std::vector<Type> fields;
      for (const Expr& f : e->as<relay::TupleNode>()->fields) fields.push_back(typeAt(f));
      return tupleType(std::move(fields));
    }
    case ExprKind::kTupleGetItem: {
      const auto* item = e->as<relay::TupleGetItemNode>();
      const auto* tuple = typeAt(item->tuple)->as<TupleTypeNode>();
      TS_CHECK(tuple && item->index >= 0 && item->index < static_cast<int>(tuple->fields.size()))
          << "bad projection built by the ONNX importer";
      return tuple->fields[item->index];
    }
    case ExprKind::kIf: {
      // The If converter builds one only over branches of equal types.
      const auto* node = e->as<relay::IfNode>();
      TS_CHECK(typeEqual(typeAt(node->thenBranch), typeAt(node->elseBranch)))
          << "if branches of different types built by the ONNX importer";
      return typeAt(node->thenBranch);
    }
    case ExprKind::kCall:
      break;
    default:
      TS_CHECK(false) << "unexpected expression built by the ONNX importer: " << exprSummary(e);
  }
  const auto* call = e->as<relay::CallNode>();
  if (const auto* global = call->op->as<relay::GlobalVarNode>()) {
    auto it = returnTypes_.find(global->name);
    TS_CHECK(it != returnTypes_.end() && it->second) << "call of an unknown @" << global->name;
    return it->second;
  }
  const auto* op = call->op->as<relay::OpNode>();
  TS_CHECK(op && op->def->typeRelation) << "the ONNX importer calls only registered ops";
  const relay::OpDef* def = op->def;
  TS_CHECK(call->args.size() == def->args.size()) << def->name << " built with a wrong arity";
  std::vector<Type> args;
  for (const Expr& a : call->args) args.push_back(typeAt(a));
  relay::TypeReporter reporter(
      def->name, args, call->attrs.get(), call->span, [&](size_t i, const Type& t) {
        if (!typeEqual(args.at(i), t))
          throwDiagnostic("type_mismatch",
                          "argument '" + def->args.at(i) + "' has type " +
                              typeToString(args.at(i)) + " but " + typeToString(t) + " is expected",
                          Span{}, def->name);
      });
  std::optional<Type> out = def->typeRelation(reporter);
  if (!out || !isCompleteType(*out))
    throwDiagnostic("infer", "unable to infer the result type", Span{}, def->name);
  return *out;
}

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

const TensorTypeNode& NodeContext::inputType(size_t i) const {
  Type t = graph_.typeOf(input(i));
  const auto* tensor = t->as<TensorTypeNode>();
  if (!tensor) fail("onnx_input", "input " + std::to_string(i) + " is not a tensor");
  return *tensor;
}

std::optional<NDArray> NodeContext::constantInput(size_t i) const {
  return graph_.knownValue(input(i));
}

void GraphContext::setSpecializedValue(const relay::Var& param, NDArray value) {
  specialized_[param.get()] = std::move(value);
}

// A value computed from specialised inputs only (Cast(size) feeding a Range, as the expanded
// window functions do) is evaluated with those inputs' values: the function of the inputs it uses,
// applied to their values.
std::optional<NDArray> GraphContext::specializedValue(const relay::Expr& e) {
  if (auto it = specialized_.find(e.get()); it != specialized_.end()) return it->second;
  if (specialized_.empty() || e->kind == ExprKind::kVar) return std::nullopt;
  std::optional<std::vector<relay::Var>> inputs = knownComputation(e, true);
  if (!inputs || inputs->empty()) return std::nullopt;
  std::vector<Expr> values;
  for (const relay::Var& v : *inputs)
    values.push_back(relay::makeConstant(specialized_.at(v.get())));
  relay::Value v = relay::evaluateClosed(
      relay::makeCall(relay::makeFunction(std::move(*inputs), e), std::move(values)));
  if (!v.isTensor()) return std::nullopt;
  return v.tensor();
}

// Shape-like inputs must be constants by now: everything computable at import has been folded, so
// a non-constant here really depends on run-time data.
std::vector<int64_t> NodeContext::constantInts(size_t i, const std::string& what) const {
  std::optional<NDArray> value = constantInput(i);
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
  if (!dims) fail("onnx_dynamic", "shape " + shapeToString(tensor->shape) + " is not static");
  return *dims;
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

// --- free helpers --------------------------------------------------------------------------------

Expr scalarConstant(double value, DataType dtype) {
  return relay::makeConstant(NDArray::scalar(value, dtype));
}

Expr int64Constant(const std::vector<int64_t>& values) {
  NDArray a = NDArray::empty({static_cast<int64_t>(values.size())}, DataType::int64());
  for (size_t i = 0; i < values.size(); ++i) a.as<int64_t>()[i] = values[i];
  return relay::makeConstant(a);
}

Expr iotaConstant(const std::vector<int64_t>& shape, int64_t step) {
  NDArray a = NDArray::empty(shape, DataType::int64());
  for (int64_t i = 0; i < a.numel(); ++i) a.as<int64_t>()[i] = i * step;
  return relay::makeConstant(a);
}

std::optional<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = x == 1 ? y : x;
  }
  return out;
}

int64_t extentProduct(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t k = begin; k < end && k < shape.size(); ++k) p *= shape[k];
  return p;
}

}  // namespace tessera::frontend::onnx
