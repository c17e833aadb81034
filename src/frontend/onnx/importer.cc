// The import driver: parse the ModelProto, check the opset, bind initializers and graph inputs,
// convert the nodes in order (folding every node whose inputs are all known), and wrap the graph
// outputs in @main. Any problem throws before a module exists, so nothing is half-built.
#include "frontend/onnx/importer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include "frontend/onnx/context.h"
#include "frontend/onnx/tensor_proto.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

// Every converter family (one per file).
std::array<std::span<const ConverterRow>, 22> converterFamilies() {
  return {nnConverters(),      linalgConverters(),  mathConverters(),    shapeConverters(),
          tensorConverters(),  reduceConverters(),  lossConverters(),    quantizeConverters(),
          resizeConverters(),  windowConverters(),  rnnConverters(),     scatterConverters(),
          reorderConverters(), einsumConverters(),  sampleConverters(),  poolExtraConverters(),
          signalConverters(),  qconvConverters(),   controlConverters(), textConverters(),
          dynamicConverters(), sequenceConverters()};
}

const ConverterRow* findConverter(const std::string& opType) {
  for (auto family : converterFamilies())
    for (const ConverterRow& row : family)
      if (opType == row.opType) return &row;
  return nullptr;
}

std::string supportedList() {
  std::string out;
  for (const SupportedOp& op : supportedOps())
    out += (out.empty() ? "" : ", ") + std::string(op.opType);
  return out;
}

bool isDefaultDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

int64_t defaultOpset(const ::onnx::ModelProto& model, const std::string& source) {
  std::optional<int64_t> version;
  for (const ::onnx::OperatorSetIdProto& id : model.opset_import())
    if (isDefaultDomain(id.domain())) version = id.version();
  if (!version)
    throwDiagnostic("onnx_opset", "the model imports no opset of the default ONNX domain", Span{},
                    source);
  return *version;
}

// What would make ONNX's version converter crash rather than fail: it trusts that every value a
// node reads or the graph returns is defined, and it does not guard subgraphs. The checker of
// libonnx 1.12 lets an undefined graph output through, so the names are checked here.
std::optional<std::string> unsafeForConverter(const ::onnx::GraphProto& graph) {
  std::set<std::string> defined;
  for (const auto& v : graph.input()) defined.insert(v.name());
  for (const auto& t : graph.initializer()) defined.insert(t.name());
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    for (const auto& a : node.attribute())
      if (a.has_g() || a.graphs_size() > 0)
        return "node #" + std::to_string(i) + " (" + node.op_type() + ") has a subgraph";
    for (const std::string& in : node.input())
      if (!in.empty() && !defined.count(in))
        return "node #" + std::to_string(i) + " (" + node.op_type() + ") reads '" + in +
               "', which nothing before it defines";
    for (const std::string& out : node.output()) defined.insert(out);
  }
  for (const auto& v : graph.output())
    if (!defined.count(v.name())) return "graph output '" + v.name() + "' is never defined";
  return std::nullopt;
}

// Runs libonnx's shape inference and version converter in a child process: both trust their
// input and crash on some malformed models (found by fuzzing), which must be an error here, never
// a crash. The child sends back 'M' + the converted model, or 'E' + the converter's message.
std::optional<::onnx::ModelProto> convertIsolated(const ::onnx::ModelProto& model, int64_t target,
                                                  std::string* error) {
  int fds[2];
  if (pipe(fds) != 0) {
    *error = "cannot create a pipe for the converter";
    return std::nullopt;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string reply;
    try {
      ::onnx::ModelProto shaped = model;
      // The converter's adapters need the shapes of intermediate values: infer them first.
      ::onnx::shape_inference::InferShapes(shaped);
      reply = "M" + ::onnx::version_conversion::ConvertVersion(shaped, static_cast<int>(target))
                        .SerializeAsString();
    } catch (const std::exception& e) {
      reply = std::string("E") + e.what();
    }
    for (size_t sent = 0; sent < reply.size();) {
      const ssize_t n = write(fds[1], reply.data() + sent, reply.size() - sent);
      if (n <= 0) _exit(3);
      sent += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    *error = "cannot start the converter";
    return std::nullopt;
  }
  std::string reply;
  char buffer[65536];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) reply.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || reply.empty()) {
    *error = "it crashed on this model (the model is malformed)";
    return std::nullopt;
  }
  if (reply[0] == 'E') {
    *error = reply.substr(1);
    return std::nullopt;
  }
  ::onnx::ModelProto converted;
  if (!converted.ParseFromArray(reply.data() + 1, static_cast<int>(reply.size() - 1))) {
    *error = "its result could not be read back";
    return std::nullopt;
  }
  return converted;
}

bool hasSubgraphs(const ::onnx::GraphProto& graph) {
  for (const ::onnx::NodeProto& node : graph.node())
    for (const ::onnx::AttributeProto& a : node.attribute())
      if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

// Operators whose older forms the converters take themselves (NodeContext::sourceOpset).
const std::set<std::string> kOldFormsConverted = {"Scan"};

// True when every node of `graph` and of its subgraphs has the same operator version at opset
// `from` as at `to` (or is in kOldFormsConverted): the model then means the same at `to` and is
// imported without ONNX's version converter, which cannot convert subgraphs.
bool sameOperators(const ::onnx::GraphProto& graph, int64_t from, int64_t to) {
  for (const ::onnx::NodeProto& node : graph.node()) {
    for (const ::onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g() && !sameOperators(a.g(), from, to)) return false;
      for (const ::onnx::GraphProto& g : a.graphs())
        if (!sameOperators(g, from, to)) return false;
    }
    if (!isDefaultDomain(node.domain())) return false;
    if (kOldFormsConverted.count(node.op_type())) continue;
    const auto* old = ::onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(from));
    const auto* now = ::onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(to));
    if (!old || !now || old->since_version() != now->since_version()) return false;
  }
  return true;
}

// A model of an opset older than the implemented range, brought into it by ONNX's own version
// converter (to the oldest implemented opset, so that as few operators as possible change).
// Newer opsets are refused outright: libonnx 1.12's converter knows no opset past 17, so it could
// only fail on them, and later with a less helpful message.
::onnx::ModelProto convertedToImplementedOpset(const ::onnx::ModelProto& model, int64_t opset,
                                               const std::string& source) {
  if (opset > kMaxOpset)
    throwDiagnostic("onnx_opset",
                    "opset " + std::to_string(opset) + " is newer than the implemented opsets " +
                        std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                        ", and ONNX's version converter (libonnx 1.12) cannot convert it down",
                    Span{}, source);
  const int64_t target = kMinOpset;
  if (std::optional<std::string> why = unsafeForConverter(model.graph()))
    throwDiagnostic("onnx_opset",
                    "opset " + std::to_string(opset) +
                        " models go through ONNX's version converter, which cannot take this "
                        "one: " +
                        *why,
                    Span{}, source);
  std::string error;
  std::optional<::onnx::ModelProto> converted = convertIsolated(model, target, &error);
  if (!converted)
    throwDiagnostic("onnx_opset",
                    "opset " + std::to_string(opset) + " is outside the implemented opsets " +
                        std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                        ", and ONNX's version converter cannot bring the model to opset " +
                        std::to_string(target) + ": " + error,
                    Span{}, source);
  return *converted;
}

// Relay variable names are [A-Za-z_][A-Za-z0-9_]*; ONNX names are free-form ("input.1", "x:0").
std::string relayName(const std::string& onnxName, std::set<std::string>& used) {
  std::string s;
  for (char c : onnxName) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v_" + s;
  std::string unique = s;
  for (int k = 1; used.count(unique); ++k) unique = s + "_" + std::to_string(k);
  used.insert(unique);
  return unique;
}

// Every error raised while converting a node (ours, a type relation's, a kernel's while folding)
// is re-issued naming the node; one that already names it (or a node of its subgraphs, whose
// names start with it) is kept.
Diagnostic withNode(Diagnostic d, const NodeContext& nc) {
  if (d.context.find(nc.describe()) != std::string::npos) return d;
  // An op's type relation or a kernel failed: keep its message, name the node first.
  if (!d.context.empty()) d.message = d.context + ": " + d.message;
  d.context = nc.describe();
  return d;
}

class GraphImporter {
 public:
  // `consumable`, when given, is `graph` itself, which the importer may empty as it goes: each
  // initializer's bytes are freed once its constant holds them.
  GraphImporter(const ::onnx::GraphProto& graph, int64_t opset, const ImportOptions& options,
                ::onnx::GraphProto* consumable = nullptr)
      : graph_(graph), consumable_(consumable), ctx_(opset), options_(options) {}
  // A model of `sourceOpset` imported as `opset` without conversion (sameOperators).
  GraphImporter(const ::onnx::GraphProto& graph, int64_t opset, int64_t sourceOpset,
                const ImportOptions& options, ::onnx::GraphProto* consumable)
      : graph_(graph), consumable_(consumable), ctx_(opset, sourceOpset), options_(options) {}

  relay::IRModule run() {
    bindInitializers();
    bindInputs();
    std::map<std::string, int> readsLeft = countReads();
    for (int i = 0; i < graph_.node_size(); ++i) {
      try {
        convertNode(ctx_, graph_.node(i), i);
      } catch (const DiagnosticError& e) {
        Diagnostic d = e.diagnostic();
        d.context = options_.sourceName + ": " + d.context;
        throw DiagnosticError(d);
      }
      // A value no later node reads is forgotten: a weight folded into a new constant (a
      // transposed MatMul weight) is then freed here instead of at the end of the import.
      for (const std::string& input : graph_.node(i).input())
        if (auto it = readsLeft.find(input); it != readsLeft.end() && --it->second == 0)
          ctx_.release(input);
    }
    return buildModule();
  }

  // How many times each name is read by the nodes and the graph outputs. Empty (nothing is
  // released) when a node has a subgraph: its body may read outer names without listing them.
  std::map<std::string, int> countReads() const {
    std::map<std::string, int> reads;
    for (const ::onnx::NodeProto& node : graph_.node()) {
      for (const ::onnx::AttributeProto& a : node.attribute())
        if (a.has_g() || a.graphs_size() > 0) return {};
      for (const std::string& input : node.input())
        if (!input.empty()) ++reads[input];
    }
    for (const ::onnx::ValueInfoProto& output : graph_.output()) ++reads[output.name()];
    return reads;
  }

 private:
  [[noreturn]] void fail(const std::string& code, const std::string& message,
                         const std::string& where) const {
    throwDiagnostic(code, message, Span{}, options_.sourceName + ": " + where);
  }

  // Initializers are bound first: a graph input with the same name is then a constant.
  void bindInitializers() {
    if (graph_.sparse_initializer_size() > 0)
      fail("onnx_tensor", "sparse initializers are not supported", "graph");
    for (int i = 0; i < graph_.initializer_size(); ++i) {
      const ::onnx::TensorProto& t = graph_.initializer(i);
      const std::string what = "initializer '" + t.name() + "'";
      if (t.name().empty()) fail("onnx_tensor", "an initializer has no name", "graph");
      if (ctx_.isBound(t.name())) fail("onnx_duplicate", "the name is defined twice", what);
      // A consumable model's raw bytes become the constant's memory (no copy), so the weights
      // are held once during the import.
      const std::string where = options_.sourceName + ": " + what;
      ctx_.bind(t.name(),
                relay::makeConstant(
                    consumable_ ? takeTensorFromProto(*consumable_->mutable_initializer(i), where)
                                : tensorFromProto(t, where)));
    }
  }

  // The caller's shape wins over the declared one; then the shape of a value given for the input;
  // otherwise every dimension must be a known value (dim_param and missing dims need an override).
  Shape inputShape(const ::onnx::ValueInfoProto& info, const std::string& what) {
    if (auto it = options_.inputShapes.find(info.name()); it != options_.inputShapes.end()) {
      for (int64_t d : it->second)
        if (d < 0) fail("onnx_input", "the given shape has a negative extent", what);
      return makeShape(it->second);
    }
    const ::onnx::TypeProto_Tensor& tensor = info.type().tensor_type();
    if (!tensor.has_shape())
      fail("onnx_input",
           "the input has no declared shape; give one with --input-shape " + info.name() +
               "=D0,D1,...",
           what);
    // A value given for the input (tessera run --input) fixes its dynamic dimensions; its static
    // ones must agree (checked when the value is bound).
    auto given = options_.inputValues.find(info.name());
    if (given != options_.inputValues.end() && given->second.ndim() == tensor.shape().dim_size()) {
      Shape dims;
      for (int k = 0; k < tensor.shape().dim_size(); ++k) {
        const ::onnx::TensorShapeProto_Dimension& d = tensor.shape().dim(k);
        dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value()
                                                               : given->second.shape()[k]);
      }
      return dims;
    }
    Shape dims;
    for (const ::onnx::TensorShapeProto_Dimension& d : tensor.shape().dim()) {
      const bool dynamic = !d.has_dim_value() || d.dim_value() < 0;
      if (dynamic && options_.dynamicDims) {
        dims.push_back(Dim::any());
        continue;
      }
      if (dynamic)
        fail("onnx_dynamic",
             "dimension " + std::to_string(dims.size()) + " is dynamic" +
                 (d.has_dim_param() ? " ('" + d.dim_param() + "')" : std::string()) +
                 "; give a static shape with --input-shape " + info.name() + "=D0,D1,... " +
                 "(ImportOptions::inputShapes), or keep it as `?` (ImportOptions::dynamicDims)",
             what);
      dims.push_back(d.dim_value());
    }
    return dims;
  }

  void bindInputs() {
    // Check the overrides first: a misspelt name is the likelier mistake than a dynamic input.
    std::set<std::string> inputs;
    for (const ::onnx::ValueInfoProto& info : graph_.input())
      if (!ctx_.isBound(info.name())) inputs.insert(info.name());
    for (const auto& [name, shape] : options_.inputShapes)
      if (!inputs.count(name))
        fail("onnx_input",
             "a shape is given for '" + name +
                 "', which is not a graph input (or is an initializer)",
             "input shapes");
    for (const ::onnx::ValueInfoProto& info : graph_.input()) {
      if (ctx_.isBound(info.name())) continue;  // an initializer: a constant, not a parameter
      const std::string what = "graph input '" + info.name() + "'";
      if (info.name().empty()) fail("onnx_input", "a graph input has no name", "graph");
      if (!info.type().has_tensor_type())
        fail("onnx_input", "only tensor inputs are supported", what);
      const int32_t elem = info.type().tensor_type().elem_type();
      std::optional<DataType> dtype = dataTypeOf(elem);
      if (!dtype)
        fail("onnx_input", "element type " + onnxTypeName(elem) + " is not supported", what);
      Type type = tensorType(inputShape(info, what), *dtype);
      const std::string name = relayName(info.name(), paramNames_);
      relay::Var v = relay::makeVar(name, type);
      params_.push_back(v);
      ctx_.bind(info.name(), v);
      auto given = options_.inputValues.find(info.name());
      if (given == options_.inputValues.end()) given = options_.inputValues.find(name);
      if (given != options_.inputValues.end()) {
        NDArray value = given->second;
        const auto& declared = *type->as<TensorTypeNode>();
        // numpy has no bfloat16: float32 data stands in for it (rounded to nearest even).
        if (declared.dtype == DataType::bfloat16() && value.dtype() == DataType::float32())
          value = value.toFloat(declared.dtype);
        if (!(value.dtype() == declared.dtype) || staticShape(declared.shape) != value.shape())
          fail("onnx_input",
               "the value given is " + value.describe() + " but the input is " + typeToString(type),
               what);
        ctx_.setSpecializedValue(v, value);
      }
    }
  }

  // Graph inputs that no node reads stay parameters, so @main's signature matches the model's.
  relay::IRModule buildModule() {
    std::vector<Expr> outputs;
    for (const ::onnx::ValueInfoProto& info : graph_.output()) {
      Expr e = ctx_.lookup(info.name());
      if (!e)
        fail("onnx_undefined", "graph output '" + info.name() + "' is never computed", "graph");
      outputs.push_back(e);
    }
    if (outputs.empty()) fail("onnx_output", "the graph has no outputs", "graph");
    Expr body = outputs.size() == 1 ? outputs[0] : relay::makeTuple(outputs);
    relay::IRModule module;
    module.add("main", relay::makeFunction(params_, body));
    for (const auto& [name, fn] : ctx_.functions()) module.add(name, fn);
    return relay::inferTypes(module);
  }

  const ::onnx::GraphProto& graph_;
  ::onnx::GraphProto* consumable_;
  GraphContext ctx_;
  const ImportOptions& options_;
  std::vector<relay::Var> params_;
  std::set<std::string> paramNames_;
};

}  // namespace

namespace {

// The caller's custom converters of the import running on this thread. A thread-local rather than
// a GraphContext field: convertNode is also reached from subgraph converters (node_context.cc),
// which see the graph's context but not the import options.
thread_local const std::map<std::string, CustomConverter>* tCustomConverters = nullptr;

const CustomConverter* customConverterFor(const ::onnx::NodeProto& node) {
  if (!tCustomConverters || isDefaultDomain(node.domain())) return nullptr;
  auto it = tCustomConverters->find(node.domain() + "::" + node.op_type());
  return it == tCustomConverters->end() ? nullptr : &it->second;
}

// A custom converter's node: the given inputs and their dtypes in, one value per output out.
void convertCustom(NodeContext& nc, const CustomConverter& convert) {
  std::vector<relay::Expr> inputs;
  std::vector<std::string> dtypes;
  for (size_t i = 0; i < nc.numInputs(); ++i) {
    if (!nc.hasInput(i)) continue;
    inputs.push_back(nc.input(i));
    dtypes.push_back(nc.inputDtype(i).name());
  }
  std::vector<relay::Expr> outputs = convert(inputs, dtypes);
  if (outputs.size() != nc.numOutputs())
    nc.fail("onnx_custom_op", "the custom converter returned " + std::to_string(outputs.size()) +
                                  " values for " + std::to_string(nc.numOutputs()) + " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) nc.fail("onnx_custom_op", "the custom converter returned no expression");
    nc.setOutput(i, outputs[i]);
  }
}

}  // namespace

void convertNode(GraphContext& ctx, const ::onnx::NodeProto& node, int index) {
  NodeContext nc(ctx, node, index);
  try {
    const CustomConverter* custom = customConverterFor(node);
    if (!custom && !isDefaultDomain(node.domain()))
      nc.fail("onnx_unsupported_op", "operator domain '" + node.domain() +
                                         "' is not supported; only the default ONNX domain is");
    const ConverterRow* row = custom ? nullptr : findConverter(node.op_type());
    if (!custom && !row)
      nc.fail("onnx_unsupported_op",
              "operator '" + node.op_type() +
                  "' is not supported; supported operators: " + supportedList());
    // Within one scope names are single-assignment; a subgraph may shadow an enclosing name.
    std::set<std::string> outputs;
    for (int k = 0; k < node.output_size(); ++k)
      if (!node.output(k).empty() &&
          (ctx.isBound(node.output(k)) || !outputs.insert(node.output(k)).second))
        nc.fail("onnx_duplicate", "output '" + node.output(k) + "' is already defined");
    if (custom)
      convertCustom(nc, *custom);
    else if (!convertSymbolicShape(nc, row->convert))
      row->convert(nc);
    // Type errors surface here, naming this node. A node whose inputs are all known is
    // evaluated now, so shape computations (Shape -> Gather -> Concat -> Reshape) reach later
    // nodes as constants.
    for (auto& [slot, value] : nc.outputs()) {
      (void)ctx.typeOf(value);
      value = ctx.tryFold(value);
    }
  } catch (const DiagnosticError& e) {
    throw DiagnosticError(withNode(e.diagnostic(), nc));
  }
  for (auto& [slot, value] : nc.outputs()) ctx.bind(node.output(static_cast<int>(slot)), value);
}

namespace {

// Consumes `model`: the initializers' bytes are freed as they become constants.
relay::IRModule importModel(::onnx::ModelProto& model, const ImportOptions& options) {
  // The custom converters for this import's nodes (restored on exit, also by an exception).
  struct CustomScope {
    const std::map<std::string, CustomConverter>* saved = tCustomConverters;
    ~CustomScope() { tCustomConverters = saved; }
  } scope;
  tCustomConverters = &options.customConverters;
  if (!model.has_graph())
    throwDiagnostic("onnx_parse", "not a valid ONNX model: it has no graph", Span{},
                    options.sourceName);
  const int64_t opset = defaultOpset(model, options.sourceName);
  if (opset >= kMinOpset && opset <= kMaxOpset)
    return GraphImporter(model.graph(), opset, options, model.mutable_graph()).run();
  // With subgraphs the converter cannot help; the model can still be read as the oldest
  // implemented opset when none of its operators changed since its own.
  if (opset < kMinOpset && hasSubgraphs(model.graph()) &&
      sameOperators(model.graph(), opset, kMinOpset))
    return GraphImporter(model.graph(), kMinOpset, opset, options, model.mutable_graph()).run();
  ::onnx::ModelProto converted = convertedToImplementedOpset(model, opset, options.sourceName);
  return GraphImporter(converted.graph(), kMinOpset, options, converted.mutable_graph()).run();
}

[[noreturn]] void malformed(const ImportOptions& options) {
  throwDiagnostic("onnx_parse",
                  "not a valid ONNX model: the protobuf data is truncated or malformed", Span{},
                  options.sourceName);
}

}  // namespace

relay::IRModule importOnnxBytes(std::string_view bytes, const ImportOptions& options) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    throwDiagnostic("onnx_parse", "the model is larger than 2 GiB (protobuf's limit)", Span{},
                    options.sourceName);
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) malformed(options);
  return importModel(model, options);
}

relay::IRModule importOnnx(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwDiagnostic("io", "cannot open file", Span{}, path);
  ImportOptions named = options;
  if (named.sourceName == ImportOptions{}.sourceName) named.sourceName = path;
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<uintmax_t>(INT_MAX))
    throwDiagnostic("onnx_parse", "the model is larger than 2 GiB (protobuf's limit)", Span{},
                    named.sourceName);
  // Parsed straight from the file: no copy of the file's bytes is held next to the parsed model
  // (for a 500 MB model, each copy is 500 MB of peak memory).
  ::onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) malformed(named);
  return importModel(model, named);
}

bool looksLikeOnnx(std::string_view bytes) {
  // ModelProto's first serialized field is normally ir_version (field 1, varint: tag 0x08); text
  // never starts with a backspace character.
  return !bytes.empty() && bytes[0] == '\x08';
}

std::vector<SupportedOp> supportedOps() {
  std::vector<SupportedOp> out;
  for (auto family : converterFamilies())
    for (const ConverterRow& row : family) out.push_back({row.opType, row.note});
  std::sort(out.begin(), out.end(), [](const SupportedOp& a, const SupportedOp& b) {
    return std::string_view(a.opType) < b.opType;
  });
  return out;
}

}  // namespace tessera::frontend::onnx
