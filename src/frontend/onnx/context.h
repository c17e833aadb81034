// The state of one ONNX import and the view a converter gets of the node it translates: typed
// inputs, known-constant values, attributes read with type checks, and errors that name the node.
// Internal to src/frontend/onnx/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "frontend/onnx/onnx_proto.h"
#include "ir/type.h"
#include "relay/expr.h"
#include "runtime/ndarray.h"

namespace tessera::frontend::onnx {

/// Tensors a fold or a creation op may materialise at import time (elements); larger results stay
/// expressions so a hostile model cannot make the importer allocate gigabytes.
inline constexpr int64_t kMaxFoldElements = int64_t{1} << 22;
/// Largest window attribute (pads, strides, dilations, kernel extents) and tensor rank accepted;
/// larger values are diagnostics rather than overflows in the ops' shape arithmetic.
inline constexpr int64_t kMaxWindowValue = int64_t{1} << 30;
inline constexpr int64_t kMaxRank = 64;

/// One entry of an integer shape value that the importer follows where it is not a constant: the
/// Shape of a tensor with a `?` extent, and what Gather, Slice, Concat, Unsqueeze, Squeeze, Cast
/// and integer arithmetic make of it (convert_symbolic_shape.cc). An entry is a known number,
/// extent `axis` of the tensor `of` (one of its `?`), or unknown (arithmetic over a `?`).
struct SymExtent {
  enum class Kind { kKnown, kDimOf, kUnknown };
  Kind kind = Kind::kKnown;
  int64_t value = 0;  ///< kKnown
  relay::Expr of;     ///< kDimOf
  int64_t axis = 0;   ///< kDimOf
};

/// A 0-D (`scalar`) or 1-D integer shape value followed at import.
struct SymShape {
  std::vector<SymExtent> entries;
  bool scalar = false;
  DataType dtype = DataType::int64();
};

/// The graph being imported: ONNX value names bound to Relay expressions, and a type cache over
/// the expressions built so far (each node's type is computed once, from its op's type relation).
/// Subgraphs (If branches, Loop bodies) are converted in nested scopes: a name bound in a scope
/// may shadow an enclosing scope's, and leaving the scope restores the enclosing bindings.
class GraphContext {
 public:
  /// `sourceOpset`: the model's own opset, when it is imported at `opset` without conversion
  /// because its operators are the same there (see importer.cc); otherwise `opset`.
  explicit GraphContext(int64_t opset, int64_t sourceOpset = 0)
      : opset_(opset), sourceOpset_(sourceOpset ? sourceOpset : opset) {}

  /// A nested scope for the lifetime of the object; `where` ("node #3 (Loop), body (iteration
  /// 2)") prefixes how diagnostics name the nodes converted inside it.
  class Scope {
   public:
    Scope(GraphContext& graph, std::string where);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    GraphContext& graph_;
  };

  int64_t opset() const { return opset_; }
  int64_t sourceOpset() const { return sourceOpset_; }
  /// Binds an ONNX value name in the innermost scope; an internal error if it is already bound
  /// there (it may shadow an enclosing scope's binding).
  void bind(const std::string& name, relay::Expr expr);
  /// The expression bound to `name` in the innermost scope that binds it, or null.
  relay::Expr lookup(const std::string& name) const;
  /// True when `name` is bound in the innermost scope (where a new definition would clash).
  bool isBound(const std::string& name) const;
  /// "node #3 (Loop), body (iteration 2): " inside a subgraph, empty at the top level.
  const std::string& scopePrefix() const;
  /// The value of `e` when it is known at import: a Constant with data, or a specialised value.
  std::optional<NDArray> knownValue(const relay::Expr& e);
  /// The type of an expression built from bound values (Var, Constant, op Call, Tuple,
  /// TupleGetItem); type errors are reported as the op's diagnostics.
  Type typeOf(const relay::Expr& e);
  /// `e` evaluated to a Constant when it depends on no graph input and every tensor it computes
  /// has at most kMaxFoldElements elements; otherwise `e` unchanged.
  relay::Expr tryFold(const relay::Expr& e);
  /// Forgets a top-level name no later node reads: a constant bound to it (a weight the
  /// importer transposed or folded) is freed unless the module uses it.
  void release(const std::string& name);
  /// Gives graph input `param` a value the importer may use where it needs a constant (a shape,
  /// size or axis input): the module is specialised to it, and keeps the parameter.
  void setSpecializedValue(const relay::Var& param, NDArray value);
  /// The value of a graph input given a specialised value, or of an expression computed from such
  /// inputs and constants only; nullopt otherwise.
  std::optional<NDArray> specializedValue(const relay::Expr& e);

  /// Marks `value`, the run-time tensor of a shape value (shape_of and what selects and joins
  /// it), as also followed entry by entry: `shape`. Converters read it as any tensor; the
  /// symbolic converters and Reshape read `shape` (convert_symbolic_shape.cc).
  void markSymbolicShape(const relay::Expr& value, SymShape shape);
  /// The symbolic value `e` stands for, or null when `e` is an ordinary expression.
  const SymShape* symbolicShape(const relay::Expr& e) const;

  /// Declares a global function of the module being imported (a loop over run-time data becomes a
  /// recursive one) returning `retType`, named `base` or `base_1`, `base_2`, ...: calls of it
  /// (makeGlobalVar(name)) can be typed, its own recursive calls included, before it is defined.
  std::string declareFunction(const std::string& base, Type retType);
  /// Replaces a declared function's return type before any call of it is typed (a loop's scan
  /// accumulators are known only once its body is converted).
  void setReturnType(const std::string& name, Type retType);
  /// Defines a declared function (parameters annotated).
  void defineFunction(const std::string& name, relay::Function fn);
  /// The functions added, by name.
  const std::map<std::string, relay::Function>& functions() const { return functions_; }

 private:
  Type computeType(const relay::Expr& e);
  std::optional<std::vector<relay::Var>> knownComputation(const relay::Expr& e, bool throughInputs);
  bool isSmall(const Type& t);
  void forgetIntermediates(const relay::Expr& root);

  // One nested scope: the names it binds, with the binding each one shadows (null when none).
  struct ScopeFrame {
    std::string prefix;
    std::map<std::string, relay::Expr> shadowed;
  };

  int64_t opset_;
  int64_t sourceOpset_;
  std::map<std::string, relay::Expr> values_;
  std::unordered_set<std::string> released_;  ///< top-level names no later node reads
  std::vector<ScopeFrame> scopes_;
  std::unordered_set<const relay::ExprNode*> boundNodes_;
  std::unordered_map<const relay::ExprNode*, std::pair<relay::Expr, Type>> types_;
  std::unordered_map<const relay::ExprNode*, NDArray> specialized_;
  std::map<std::string, relay::Function> functions_;  ///< global functions besides @main
  std::unordered_map<const relay::ExprNode*, SymShape> symbolicShapes_;
  std::vector<relay::Expr>
      symbolicValues_;  ///< keeps the marked values, so no other takes their address
  std::map<std::string, Type> returnTypes_;  ///< of functions reserved or added
};

/// One ONNX node being converted.
class NodeContext {
 public:
  NodeContext(GraphContext& graph, const ::onnx::NodeProto& node, int index);

  int64_t opset() const { return graph_.opset(); }
  /// The opset the model declares (below opset() only for operators whose form is the same).
  int64_t sourceOpset() const { return graph_.sourceOpset(); }
  const std::string& opType() const { return node_.op_type(); }
  /// "node #3 'conv1' (Conv)": how diagnostics name this node.
  std::string describe() const;

  // --- inputs --------------------------------------------------------------------------------
  /// Declared inputs, counting omitted optional ones (empty names).
  size_t numInputs() const { return static_cast<size_t>(node_.input_size()); }
  /// True when input `i` is given (declared with a non-empty name).
  bool hasInput(size_t i) const;
  /// Input `i`; a diagnostic when it is missing.
  relay::Expr input(size_t i) const;
  /// Input `i`'s symbolic shape value (GraphContext::markSymbolicShape), or null.
  const SymShape* symbolicInput(size_t i) const;
  /// Input `i`'s tensor type.
  const TensorTypeNode& inputType(size_t i) const;
  std::vector<int64_t> inputShape(size_t i) const { return shapeOf(input(i)); }
  /// Input `i`'s shape where the leading extent may be `?` (a dynamic batch, given as -1); a `?`
  /// elsewhere is the diagnostic `onnx_dynamic`.
  std::vector<int64_t> inputShapeDynamicBatch(size_t i) const;
  /// Input `i`'s shape with -1 for each `?` extent, for converters that need only some extents.
  std::vector<int64_t> inputDims(size_t i) const;
  /// Input `i`'s rank (known even where an extent is `?`).
  int64_t inputRank(size_t i) const { return static_cast<int64_t>(inputType(i).ndim()); }
  DataType inputDtype(size_t i) const { return inputType(i).dtype; }
  /// Input `i`'s value when it is known at import time (an initializer or a folded result).
  std::optional<NDArray> constantInput(size_t i) const;
  /// Input `i` as integers; it must be known at import time (`what` names it, e.g. "shape").
  std::vector<int64_t> constantInts(size_t i, const std::string& what) const;
  /// Input `i` as one number; it must be a known single-element tensor.
  double constantScalar(size_t i, const std::string& what) const;

  // --- attributes ----------------------------------------------------------------------------
  bool hasAttr(const std::string& name) const { return findAttr(name) != nullptr; }
  int64_t attrInt(const std::string& name, int64_t fallback) const;
  std::optional<int64_t> attrIntOpt(const std::string& name) const;
  double attrFloat(const std::string& name, double fallback) const;
  std::optional<double> attrFloatOpt(const std::string& name) const;
  std::optional<std::vector<int64_t>> attrInts(const std::string& name) const;
  std::optional<std::vector<float>> attrFloats(const std::string& name) const;
  std::optional<std::vector<std::string>> attrStrings(const std::string& name) const;
  std::string attrString(const std::string& name, const std::string& fallback) const;
  std::optional<NDArray> attrTensor(const std::string& name) const;
  /// A required GRAPH attribute (an If branch, a Loop body).
  const ::onnx::GraphProto& attrGraph(const std::string& name) const;
  /// Reports an attribute whose value the importer does not support, listing what it does.
  [[noreturn]] void badAttr(const std::string& name, const std::string& found,
                            const std::string& supported) const;

  // --- outputs -------------------------------------------------------------------------------
  size_t numOutputs() const { return static_cast<size_t>(node_.output_size()); }
  /// True when output `i` is declared with a non-empty name (someone may consume it).
  bool outputUsed(size_t i) const;
  /// Binds output `i` (ignored when the output is not declared).
  void setOutput(size_t i, relay::Expr value);
  /// Reports a declared extra output (Dropout's mask, ...) that the importer cannot produce.
  void requireOutputsAtMost(size_t n, const std::string& why) const;

  // --- subgraphs -----------------------------------------------------------------------------
  /// Converts `graph` in a nested scope: its inputs bound to `inputs` (in order), outer values
  /// visible by name; returns its outputs. `label` ("then_branch") names it in diagnostics.
  std::vector<relay::Expr> convertSubgraph(const ::onnx::GraphProto& graph,
                                           const std::vector<relay::Expr>& inputs,
                                           const std::string& label) const;
  /// The value of `e` when it is known at import (constant or specialised).
  std::optional<NDArray> knownValue(const relay::Expr& e) const { return graph_.knownValue(e); }

  // --- helpers -------------------------------------------------------------------------------
  GraphContext& graph() const { return graph_; }
  Type typeOf(const relay::Expr& e) const { return graph_.typeOf(e); }
  /// `e` as a Constant when it only combines known values (e.g. a transposed weight).
  relay::Expr fold(const relay::Expr& e) const { return graph_.tryFold(e); }
  std::vector<int64_t> shapeOf(const relay::Expr& e) const;
  DataType dtypeOf(const relay::Expr& e) const;
  /// `axis` in [-rank, rank) normalised to [0, rank); `what` names it in the diagnostic.
  int64_t normalizeAxis(int64_t axis, int64_t rank, const std::string& what = "axis") const;
  /// A diagnostic naming this node, with `code` and `message`.
  [[noreturn]] void fail(const std::string& code, const std::string& message) const;

  const ::onnx::NodeProto& proto() const { return node_; }
  std::vector<std::pair<size_t, relay::Expr>>& outputs() { return outputs_; }

 private:
  const ::onnx::AttributeProto* findAttr(const std::string& name) const;
  const ::onnx::AttributeProto* typedAttr(const std::string& name,
                                          ::onnx::AttributeProto::AttributeType type) const;

  GraphContext& graph_;
  const ::onnx::NodeProto& node_;
  int index_;
  std::vector<std::pair<size_t, relay::Expr>> outputs_;
};

/// Translates one node: reads inputs and attributes, calls setOutput.
using Converter = void (*)(NodeContext& node);

/// One row of the converter table.
struct ConverterRow {
  const char* opType;
  Converter convert;
  const char* note;  ///< opset forms and limits, shown in docs and in the supported list
};

/// The converter families, one per file.
std::span<const ConverterRow> nnConverters();
std::span<const ConverterRow> linalgConverters();
std::span<const ConverterRow> mathConverters();
std::span<const ConverterRow> shapeConverters();
std::span<const ConverterRow> tensorConverters();
std::span<const ConverterRow> reduceConverters();
std::span<const ConverterRow> lossConverters();
std::span<const ConverterRow> quantizeConverters();
std::span<const ConverterRow> qconvConverters();
std::span<const ConverterRow> resizeConverters();
std::span<const ConverterRow> windowConverters();
std::span<const ConverterRow> rnnConverters();
std::span<const ConverterRow> scatterConverters();
std::span<const ConverterRow> reorderConverters();
std::span<const ConverterRow> einsumConverters();
std::span<const ConverterRow> sampleConverters();
std::span<const ConverterRow> poolExtraConverters();
std::span<const ConverterRow> signalConverters();
std::span<const ConverterRow> controlConverters();
std::span<const ConverterRow> textConverters();
std::span<const ConverterRow> dynamicConverters();
std::span<const ConverterRow> sequenceConverters();

/// Converts `node` when it computes with a shape value known only symbolically — Shape of a
/// tensor with a `?` extent, the ops that select and join such values, and Reshape to them (or of
/// a tensor with a `?` extent) — and returns true; false leaves the node to its converter.
/// `ordinary` is the node's own converter, which computes the run-time value.
bool convertSymbolicShape(NodeContext& node, Converter ordinary);

/// Converts one node into `graph` (importer.cc): finds its converter, type-checks and folds its
/// outputs, and binds them. Diagnostics name the node (with its scope prefix) but not the model.
void convertNode(GraphContext& graph, const ::onnx::NodeProto& node, int index);

/// MaxPool's Indices output (convert_pool_extra.cc): for `pooled`, the nn.max_pool2d of NCHW
/// `data` over the window (kernel, strides, dilations: (H, W); pads: top, left, bottom, right),
/// the int64 flat index into `data` of each window's first maximum, the position within a plane
/// row-major or (`columnMajor`, storage_order 1) column-major.
relay::Expr maxPoolIndices(NodeContext& n, const relay::Expr& data, const relay::Expr& pooled,
                           const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                           const std::vector<int64_t>& dilations, const std::vector<int64_t>& pads,
                           bool columnMajor);

/// numpy's matmul of two values (dense for a 2-D right operand, batch_matmul otherwise).
relay::Expr matmulOf(NodeContext& n, relay::Expr a, relay::Expr b);
/// Round half to even (ONNX's and NumPy's rounding; Relay's round goes half away from zero).
relay::Expr roundHalfToEven(const relay::Expr& x, DataType dtype);
/// A scalar constant of `dtype`.
relay::Expr scalarConstant(double value, DataType dtype);
/// A 1-D int64 constant.
relay::Expr int64Constant(const std::vector<int64_t>& values);
/// An int64 constant of `shape` counting 0, step, 2 step, ... in row-major order (an arange laid
/// along the one non-unit axis, or row offsets).
relay::Expr iotaConstant(const std::vector<int64_t>& shape, int64_t step = 1);
/// The numpy broadcast of two static shapes; nullopt when they are incompatible.
std::optional<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b);
/// Product of the extents in [begin, end).
int64_t extentProduct(const std::vector<int64_t>& shape, size_t begin, size_t end);

}  // namespace tessera::frontend::onnx
