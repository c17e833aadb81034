// The operator registry: the extension point of the graph IR. An op is registered once, as one row,
// with its attribute struct, type relation, fusion pattern kind and reference kernel; passes find
// everything else in named attribute maps that user code may override (at a higher priority level)
// or reset at run time, as seed 001 does with FQPartitionRewrite.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/type.h"
#include "relay/expr.h"
#include "relay/value.h"
#include "tir/expr.h"

namespace tessera::relay {

/// Fusion category (TVM's TOpPattern values, kept numerically identical).
enum class OpPattern : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};
const char* opPatternName(OpPattern p);

/// What a type relation sees: the (possibly incomplete) argument types, the call's attrs, and ways
/// to assign argument types or report an error that names the op and the argument.
class TypeReporter {
 public:
  using Assign = std::function<void(size_t, const Type&)>;
  TypeReporter(const std::string& opName, std::vector<Type> args, const AttrsNode* attrs, Span span,
               Assign assign)
      : opName_(opName),
        args_(std::move(args)),
        attrs_(attrs),
        span_(std::move(span)),
        assign_(std::move(assign)) {}

  size_t numArgs() const { return args_.size(); }
  const Type& arg(size_t i) const { return args_.at(i); }
  /// Argument i as a tensor type, or nullptr while it is still unknown. A known non-tensor is an
  /// error.
  const TensorTypeNode* tensorArg(size_t i) const;
  /// The call's attrs as T (an internal error if the op registered another attrs type).
  template <typename T>
  const T& attrs() const {
    const T* a = attrsAs<T>(attrs_);
    if (!a) failWrongAttrs(T::kTypeKey);
    return *a;
  }
  /// Unifies argument i's type with `type` (e.g. conv2d assigning the weight's shape).
  void assign(size_t i, const Type& type) const { assign_(i, type); }
  /// Receives the extents a relation needs equal but cannot compare (relay/shape_func.h).
  using Assume = std::function<void(const Dim& a, const Dim& b, const std::string& what)>;
  /// Set while a shape function runs the relation on symbolic dims.
  void setAssume(Assume assume) { assume_ = std::move(assume); }
  /// The op needs `a` and `b` equal (`what` names them, e.g. "dimension 0 of the inputs"). True
  /// when they are assumed so, to be checked when the program runs: a shape function is running
  /// and neither is `?` nor are both constants. Type inference (no receiver) gets false, and a
  /// relation then refuses or accepts as it did without symbolic dims.
  bool assumeEqual(const Dim& a, const Dim& b, const std::string& what) const;
  /// Reports a type error: "<op>: <message>", located at the call. `code` is the spec's constraint
  /// label.
  [[noreturn]] void fail(const std::string& code, const std::string& message) const;
  const std::string& opName() const { return opName_; }

 private:
  [[noreturn]] void failWrongAttrs(const char* expected) const;
  const std::string& opName_;
  std::vector<Type> args_;
  const AttrsNode* attrs_;
  Span span_;
  Assign assign_;
  Assume assume_;
};

/// Returns the output type, or nullopt when an input is not known yet (inference retries later).
using TypeRelation = std::function<std::optional<Type>(const TypeReporter&)>;

/// The reference kernel: plain, obviously correct code used by the interpreter (the oracle).
/// `outType` is the call's inferred type, so kernels need not recompute output shapes.
using RefKernel = std::function<Value(const std::vector<Value>& args, const AttrsNode* attrs,
                                      const Type& outType)>;

/// A tensor's shape as int64 expressions over the shape variables of the program that runs it (the
/// VM function's), so that a shape unknown at compile time (`?`) is computed when the program runs.
using SymShape = std::vector<tir::PrimExpr>;

/// The symbolic shape of a value: a tensor's, or one per field of a tuple.
struct SymValue {
  SymShape shape;
  std::vector<SymValue> fields;
  bool isTuple = false;
};

/// A shape function (TVM's FShapeFunc, evaluated symbolically): the output shape of `call` from
/// the shapes of its arguments (`inputs`, one per argument). Registered beside the type relation
/// for ops whose output extents the type relation cannot pass through (reshape's -1,
/// concatenate's axis, ...); see shape_func.h for the ops that need none. nullopt: the shapes do
/// not determine the output (the caller reports it).
using ShapeFunc = std::function<std::optional<SymValue>(const CallNode& call,
                                                        const std::vector<SymValue>& inputs)>;

/// An attribute struct type bound to an op: its key and a factory for defaults.
struct AttrsType {
  std::string typeKey;
  std::function<std::shared_ptr<AttrsNode>()> make;
};
template <typename T>
AttrsType attrsType() {
  AttrsRegistry::global().add<T>();
  return AttrsType{T::kTypeKey, [] { return std::make_shared<TypedAttrs<T>>(); }};
}

/// One value in a named attribute map, with its priority level.
struct OpAttrEntry {
  std::any value;
  int level = 10;
};

/// Everything known about one operator.
struct OpDef {
  std::string name = {};
  std::vector<std::string> args = {};  ///< argument names; their count is the op's arity
  std::string summary = {};
  AttrsType attrs = {};  ///< empty typeKey: the op takes no attributes
  TypeRelation typeRelation = {};
  /// Output shapes from input shapes at run time, for dims the type relation leaves `?`; empty:
  /// the type relation run on symbolic dims is the shape function (relay/shape_func.h).
  ShapeFunc shapeFunc = {};
  OpPattern pattern = OpPattern::kOpaque;
  RefKernel kernel = {};
  bool stateful = false;          ///< never constant-folded or deduplicated (nn.dropout)
  bool reshapeOnly = false;       ///< reshape-like (TReshapeOp)
  bool nonComputational = false;  ///< annotation-like op ignored by FoldConstant/FuseOps
  /// Output extents depend on the input values (argwhere, unique): the type relation gives Any
  /// ("?") dims, the kernel computes the extents, there is no TE compute, and build() refuses the
  /// op (the interpreter runs it).
  bool dataDependentShape = false;
  /// No TE compute: the VM runs the op as a builtin (runtime/vm/builtins.h) and the graph
  /// executor refuses it. Set for every dataDependentShape op by the registry, and for ops whose
  /// shape is static but whose writes go to run-time positions (scatter_elements).
  bool vmBuiltin = false;
  int supportLevel = 10;

  // Filled by the registry:
  std::map<std::string, OpAttrEntry> attrMap = {};
  Op node = nullptr;
  Attrs defaultAttrs = nullptr;
};

/// The global table of ops. Built-in ops are registered on first use, from the table in
/// op/all_ops.cc.
class OpRegistry {
 public:
  static OpRegistry& global();

  /// Registers a new op; an internal error if the name is taken (ops are registered once).
  OpDef& add(OpDef def);
  /// The op's definition, or nullptr when no op has that name.
  OpDef* find(const std::string& name);
  /// The op node for `name`; throws DiagnosticError (code "unknown_op") for an unknown name.
  Op get(const std::string& name);
  std::vector<std::string> names() const;

  /// Sets a named attribute of an op at a priority level. A higher level replaces a lower one; a
  /// lower one is ignored; the same level twice is an error (reset first), as in TVM's
  /// register_op_attr.
  void setAttr(const std::string& op, const std::string& key, std::any value, int level = 10);
  /// Removes the attribute so it can be registered again at any level.
  void resetAttr(const std::string& op, const std::string& key);
  /// The attribute value, or nullptr when the op has none under `key`.
  const std::any* getAttr(const std::string& op, const std::string& key);

 private:
  OpRegistry() = default;
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
};

/// Shorthand for OpRegistry::global().get(name).
Op opByName(const std::string& name);
/// The default attrs object of an op (null when it takes none).
Attrs defaultAttrsFor(const OpDef& def);
/// The attribute value cast to T, or nullptr when absent or of another type.
template <typename T>
const T* getOpAttr(const std::string& op, const std::string& key) {
  const std::any* a = OpRegistry::global().getAttr(op, key);
  return a ? std::any_cast<T>(a) : nullptr;
}

/// A named attribute map whose values are all of type T: declared once
/// (`inline constexpr OpAttrMap<FTVMCompute> kComputeMap{"FTVMCompute"}`), so that every set and
/// get of the map agrees on the type. Levels and reset are the registry's (TVM's plevel and
/// reset_attr).
template <typename T>
struct OpAttrMap {
  const char* key;

  /// Sets op's value at `level` (same rules as OpRegistry::setAttr).
  void set(const std::string& op, T value, int level = 10) const {
    OpRegistry::global().setAttr(op, key, std::any(std::move(value)), level);
  }
  /// Removes op's value, so that any level may set it again.
  void reset(const std::string& op) const { OpRegistry::global().resetAttr(op, key); }
  /// Op's value, or nullptr when it has none.
  const T* get(const std::string& op) const { return getOpAttr<T>(op, key); }
  /// The level op's value was set at, or nullopt when it has none.
  std::optional<int> level(const std::string& op) const;
};

template <typename T>
std::optional<int> OpAttrMap<T>::level(const std::string& op) const {
  const OpDef* def = OpRegistry::global().find(op);
  if (!def) return std::nullopt;
  auto it = def->attrMap.find(key);
  if (it == def->attrMap.end()) return std::nullopt;
  return it->second.level;
}

/// Registers every built-in op family (called once by OpRegistry::global()).
void registerBuiltinOps(OpRegistry& registry);

}  // namespace tessera::relay
