#include "relay/expr.h"

#include "relay/op_registry.h"
#include "support/check.h"

namespace tessera::relay {

namespace {
// Iterative destruction. A node's destructor hands its children to a thread-local worklist instead
// of letting them be destroyed recursively; the outermost destructor drains the list. Stack depth
// stays constant however long a chain of nodes is.
thread_local std::vector<Expr>* pendingRelease = nullptr;

void releaseLater(std::vector<Expr>& children) {
  if (pendingRelease) {
    for (Expr& child : children)
      if (child) pendingRelease->push_back(std::move(child));
    return;
  }
  std::vector<Expr> worklist;
  for (Expr& child : children)
    if (child) worklist.push_back(std::move(child));
  pendingRelease = &worklist;
  while (!worklist.empty()) {
    Expr next = std::move(worklist.back());
    worklist.pop_back();
    next.reset();  // may run destructors that append to `worklist`
  }
  pendingRelease = nullptr;
}
}  // namespace

// The destructors hand their children to the worklist, taken from the node's children list.
template <typename Node>
void releaseChildren(Node& node) {
  std::vector<Expr> children;
  Node::children(node, [&](auto& child) {
    if (child) children.push_back(std::move(child));
  });
  releaseLater(children);
}

CallNode::~CallNode() {
  releaseChildren(*this);
}
TupleNode::~TupleNode() {
  releaseChildren(*this);
}
TupleGetItemNode::~TupleGetItemNode() {
  releaseChildren(*this);
}
LetNode::~LetNode() {
  releaseChildren(*this);
}
IfNode::~IfNode() {
  releaseChildren(*this);
}
FunctionNode::~FunctionNode() {
  releaseChildren(*this);
}

const Type& ExprNode::type() const {
  TS_CHECK(checkedType != nullptr)
      << "type of " << static_cast<int>(kind) << " expression requested before InferType";
  return checkedType;
}

Var makeVar(std::string name, Type type, Span span) {
  return std::make_shared<VarNode>(std::move(name), std::move(type), std::move(span));
}

GlobalVar makeGlobalVar(std::string name, Span span) {
  return std::make_shared<GlobalVarNode>(std::move(name), std::move(span));
}

Constant makeConstant(NDArray data, Span span) {
  TS_CHECK(data.defined());
  Type t = tensorType(data.shape(), data.dtype());
  return std::make_shared<ConstantNode>(std::move(data), std::move(t), std::move(span));
}

Constant makeConstantWithoutData(Type type, Span span) {
  return std::make_shared<ConstantNode>(NDArray(), std::move(type), std::move(span));
}

Expr makeCall(Expr op, std::vector<Expr> args, Attrs attrs, Span span) {
  TS_CHECK(op != nullptr);
  // An op call without attrs gets the op's default attrs object, so `nn.relu(%x)` written with or
  // without explicit defaults builds identical IR.
  if (!attrs) {
    if (const auto* opNode = op->as<OpNode>()) attrs = defaultAttrsFor(*opNode->def);
  }
  return std::make_shared<CallNode>(std::move(op), std::move(args), std::move(attrs),
                                    std::move(span));
}

Expr makeTuple(std::vector<Expr> fields, Span span) {
  return std::make_shared<TupleNode>(std::move(fields), std::move(span));
}

Expr makeTupleGetItem(Expr tuple, int index, Span span) {
  return std::make_shared<TupleGetItemNode>(std::move(tuple), index, std::move(span));
}

Expr makeLet(Var var, Expr value, Expr body, Span span) {
  return std::make_shared<LetNode>(std::move(var), std::move(value), std::move(body),
                                   std::move(span));
}

Expr makeIf(Expr cond, Expr thenBranch, Expr elseBranch, Span span) {
  return std::make_shared<IfNode>(std::move(cond), std::move(thenBranch), std::move(elseBranch),
                                  std::move(span));
}

Function makeFunction(std::vector<Var> params, Expr body, Type retType, DictAttrs attrs,
                      Span span) {
  return std::make_shared<FunctionNode>(std::move(params), std::move(body), std::move(retType),
                                        std::move(attrs), std::move(span));
}

std::vector<Expr> exprChildren(const Expr& e) {
  return withExprNode(*e, [](const auto& node) {
    using Node = std::decay_t<decltype(node)>;
    std::vector<Expr> out;
    if constexpr (HasChildren<Node>) Node::children(node, [&](const auto& c) { out.push_back(c); });
    return out;
  });
}

std::string exprSummary(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kVar:
      return "variable %" + e->as<VarNode>()->nameHint;
    case ExprKind::kGlobalVar:
      return "global @" + e->as<GlobalVarNode>()->name;
    case ExprKind::kConstant:
      return "constant";
    case ExprKind::kOp:
      return "op " + e->as<OpNode>()->name;
    case ExprKind::kCall: {
      const Expr& callee = e->as<CallNode>()->op;
      if (const auto* op = callee->as<OpNode>()) return "call to " + op->name;
      if (const auto* g = callee->as<GlobalVarNode>()) return "call to @" + g->name;
      return "call";
    }
    case ExprKind::kTuple:
      return "tuple";
    case ExprKind::kTupleGetItem:
      return "tuple projection";
    case ExprKind::kLet:
      return "let";
    case ExprKind::kIf:
      return "if";
    case ExprKind::kFunction:
      return "function";
  }
  return "expression";
}

}  // namespace tessera::relay
