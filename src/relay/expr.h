// Graph IR expressions (Relay): Var, GlobalVar, Constant, Op, Call, Tuple, TupleGetItem, Let, If,
// Function. Nodes are immutable and shared by reference, so a program is a DAG; identity (the
// object) distinguishes variables, not their names. Destruction is iterative, so a 100,000-node
// chain does not overflow the stack.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/attr_value.h"
#include "ir/attrs.h"
#include "ir/type.h"
#include "runtime/ndarray.h"
#include "support/span.h"

namespace tessera::relay {

enum class ExprKind : uint8_t {
  kVar,
  kGlobalVar,
  kConstant,
  kOp,
  kCall,
  kTuple,
  kTupleGetItem,
  kLet,
  kIf,
  kFunction,
};

class ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

/// Base of every expression. `checkedType` is the one mutable field: a cache that InferType fills
/// in (a node's type is a function of the node, so the cache never goes stale).
///
/// A node with children declares them once, in a static `children(self, fn)` that calls `fn` on
/// each child slot in order (callee before arguments, parameters before the body): exprChildren,
/// withChildren and the iterative destructors are derived from it. Leaves (Var, GlobalVar,
/// Constant, Op) have none and cannot be copied: a variable's identity is its node.
class ExprNode {
 public:
  ExprNode(ExprKind kind, Span span) : kind(kind), span(std::move(span)) {}
  virtual ~ExprNode() = default;
  ExprNode& operator=(const ExprNode&) = delete;

  const ExprKind kind;
  const Span span;
  mutable Type checkedType;

  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
  /// The checked type; an internal error if InferType has not run.
  const Type& type() const;

 protected:
  /// For withChildren's copies, which get new children and so no checked type.
  ExprNode(const ExprNode& other) : kind(other.kind), span(other.span) {}
};

/// A function parameter or let-bound variable.
class VarNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kVar;
  VarNode(std::string nameHint, Type typeAnnotation, Span span)
      : ExprNode(kKind, std::move(span)),
        nameHint(std::move(nameHint)),
        typeAnnotation(std::move(typeAnnotation)) {}
  const std::string nameHint;
  const Type typeAnnotation;  ///< may be null
  VarNode(const VarNode&) = delete;
};

/// Names a function of the IRModule (`@main`).
class GlobalVarNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kGlobalVar;
  GlobalVarNode(std::string name, Span span)
      : ExprNode(kKind, std::move(span)), name(std::move(name)) {}
  const std::string name;
  GlobalVarNode(const GlobalVarNode&) = delete;
};

/// A tensor literal. `data` may be undefined when the text had no metadata section: the constant
/// then has only its declared type and running it is an error.
class ConstantNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kConstant;
  ConstantNode(NDArray data, Type declaredType, Span span)
      : ExprNode(kKind, std::move(span)),
        data(std::move(data)),
        declaredType(std::move(declaredType)) {}
  NDArray data;             ///< not const only so that releaseData can drop it
  const Type declaredType;  ///< TensorType of data, or the annotated type when data is missing
  ConstantNode(const ConstantNode&) = delete;
  bool hasData() const { return data.defined(); }
  /// Drops the tensor. Only for a rewrite that holds every reference to this node and no longer
  /// needs it (rewriteBottomUpOwned): nothing else can observe the change. Nodes are never
  /// created const, so this is a write to a mutable object.
  void releaseData() const { const_cast<ConstantNode*>(this)->data = NDArray(); }
};

struct OpDef;

/// A registered primitive operator; one node per op name, owned by the registry.
class OpNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kOp;
  OpNode(std::string name, OpDef* def) : ExprNode(kKind, Span{}), name(std::move(name)), def(def) {}
  const std::string name;
  OpDef* const def;
  OpNode(const OpNode&) = delete;
};

class CallNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kCall;
  CallNode(Expr op, std::vector<Expr> args, Attrs attrs, Span span)
      : ExprNode(kKind, std::move(span)),
        op(std::move(op)),
        args(std::move(args)),
        attrs(std::move(attrs)) {}
  ~CallNode() override;
  Expr op;  ///< Op, Function, GlobalVar or Var
  std::vector<Expr> args;
  Attrs attrs;  ///< op attributes (null when the op has none)
  template <typename Self, typename Fn>
  static void children(Self& n, Fn&& fn) {
    fn(n.op);
    for (auto& a : n.args) fn(a);
  }
};

class TupleNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kTuple;
  TupleNode(std::vector<Expr> fields, Span span)
      : ExprNode(kKind, std::move(span)), fields(std::move(fields)) {}
  ~TupleNode() override;
  std::vector<Expr> fields;
  template <typename Self, typename Fn>
  static void children(Self& n, Fn&& fn) {
    for (auto& f : n.fields) fn(f);
  }
};

class TupleGetItemNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kTupleGetItem;
  TupleGetItemNode(Expr tuple, int index, Span span)
      : ExprNode(kKind, std::move(span)), tuple(std::move(tuple)), index(index) {}
  ~TupleGetItemNode() override;
  Expr tuple;
  const int index;
  template <typename Self, typename Fn>
  static void children(Self& n, Fn&& fn) {
    fn(n.tuple);
  }
};

using Var = std::shared_ptr<const VarNode>;

class LetNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kLet;
  LetNode(Var var, Expr value, Expr body, Span span)
      : ExprNode(kKind, std::move(span)),
        var(std::move(var)),
        value(std::move(value)),
        body(std::move(body)) {}
  ~LetNode() override;
  Var var;
  Expr value;
  Expr body;
  template <typename Self, typename Fn>
  static void children(Self& n, Fn&& fn) {
    fn(n.var);
    fn(n.value);
    fn(n.body);
  }
};

class IfNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kIf;
  IfNode(Expr cond, Expr thenBranch, Expr elseBranch, Span span)
      : ExprNode(kKind, std::move(span)),
        cond(std::move(cond)),
        thenBranch(std::move(thenBranch)),
        elseBranch(std::move(elseBranch)) {}
  ~IfNode() override;
  Expr cond;
  Expr thenBranch;
  Expr elseBranch;
  template <typename Self, typename Fn>
  static void children(Self& n, Fn&& fn) {
    fn(n.cond);
    fn(n.thenBranch);
    fn(n.elseBranch);
  }
};

class FunctionNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kFunction;
  FunctionNode(std::vector<Var> params, Expr body, Type retType, DictAttrs attrs, Span span)
      : ExprNode(kKind, std::move(span)),
        params(std::move(params)),
        body(std::move(body)),
        retType(std::move(retType)),
        attrs(std::move(attrs)) {}
  ~FunctionNode() override;
  std::vector<Var> params;
  Expr body;
  const Type retType;  ///< may be null before InferType
  const DictAttrs attrs;
  template <typename Self, typename Fn>
  static void children(Self& n, Fn&& fn) {
    for (auto& p : n.params) fn(p);
    fn(n.body);
  }
};

using GlobalVar = std::shared_ptr<const GlobalVarNode>;
using Constant = std::shared_ptr<const ConstantNode>;
using Op = std::shared_ptr<const OpNode>;
using Call = std::shared_ptr<const CallNode>;
using Function = std::shared_ptr<const FunctionNode>;

// --- constructors -------------------------------------------------------------------------------

Var makeVar(std::string name, Type type = nullptr, Span span = {});
GlobalVar makeGlobalVar(std::string name, Span span = {});
Constant makeConstant(NDArray data, Span span = {});
/// A constant whose value is unknown (metadata section omitted); only its type is known.
Constant makeConstantWithoutData(Type type, Span span = {});
Expr makeCall(Expr op, std::vector<Expr> args, Attrs attrs = nullptr, Span span = {});
Expr makeTuple(std::vector<Expr> fields, Span span = {});
Expr makeTupleGetItem(Expr tuple, int index, Span span = {});
Expr makeLet(Var var, Expr value, Expr body, Span span = {});
Expr makeIf(Expr cond, Expr thenBranch, Expr elseBranch, Span span = {});
Function makeFunction(std::vector<Var> params, Expr body, Type retType = nullptr,
                      DictAttrs attrs = {}, Span span = {});

/// Downcast helper: the node as T's shared pointer, or null when the kind differs.
template <typename T>
std::shared_ptr<const T> exprAs(const Expr& e) {
  if (!e || e->kind != T::kKind) return nullptr;
  return std::static_pointer_cast<const T>(e);
}

/// Calls `fn(node)` with `e` cast to its node class.
template <typename F>
decltype(auto) withExprNode(const ExprNode& e, F&& fn) {
  switch (e.kind) {
    case ExprKind::kVar:
      return fn(static_cast<const VarNode&>(e));
    case ExprKind::kGlobalVar:
      return fn(static_cast<const GlobalVarNode&>(e));
    case ExprKind::kConstant:
      return fn(static_cast<const ConstantNode&>(e));
    case ExprKind::kOp:
      return fn(static_cast<const OpNode&>(e));
    case ExprKind::kCall:
      return fn(static_cast<const CallNode&>(e));
    case ExprKind::kTuple:
      return fn(static_cast<const TupleNode&>(e));
    case ExprKind::kTupleGetItem:
      return fn(static_cast<const TupleGetItemNode&>(e));
    case ExprKind::kLet:
      return fn(static_cast<const LetNode&>(e));
    case ExprKind::kIf:
      return fn(static_cast<const IfNode&>(e));
    case ExprKind::kFunction:
      return fn(static_cast<const FunctionNode&>(e));
  }
  __builtin_unreachable();
}

/// Whether nodes of class `Node` have children (a `children` list).
template <typename Node>
concept HasChildren = requires(const Node& n) {
  Node::children(n, [](const auto&) {});
};

/// Children of a node in the order of its `children` list, which the printer and evaluators
/// follow: callee, then arguments; parameters, then the body. Leaves have none.
std::vector<Expr> exprChildren(const Expr& e);

/// "Call(nn.conv2d)", "Var(%x)": a short description for diagnostics.
std::string exprSummary(const Expr& e);

}  // namespace tessera::relay
