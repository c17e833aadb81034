#include "relay/quantize/forward_rewrite.h"

#include <unordered_map>

#include "relay/visit.h"
#include "support/check.h"

namespace tessera::relay::quantize {

RewriteValue RewriteValue::tuple(std::vector<RewriteValue> fields, Span span) {
  RewriteValue v;
  v.fields_ = std::move(fields);
  v.isTuple_ = true;
  v.span_ = std::move(span);
  return v;
}

Expr RewriteValue::realize() const {
  if (temp_) return temp_->realize();
  if (!isTuple_) return expr_;
  std::vector<Expr> fields;
  for (const RewriteValue& f : fields_) fields.push_back(f.realize());
  return makeTuple(std::move(fields), span_);
}

Expr forwardOp(const CallNode& refCall, std::vector<Expr> args) {
  return makeCall(refCall.op, std::move(args), refCall.attrs, refCall.span);
}

namespace {

class ForwardRewriter {
 public:
  explicit ForwardRewriter(const ForwardRewriteOptions& options) : options_(options) {}

  Function run(const Function& fn) {
    const std::vector<Expr> order = postOrder(fn->body);
    for (const Expr& node : order)
      for (const Expr& child : exprChildren(node)) ++uses_[child.get()];
    for (const Expr& node : order) memo_[node.get()] = visit(node);
    Expr body = memo_.at(fn->body.get()).realize();
    if (body == fn->body) return fn;
    return makeFunction(fn->params, body, fn->retType, fn->attrs, fn->span);
  }

 private:
  RewriteValue argument(const Expr& original) {
    const RewriteValue& value = memo_.at(original.get());
    if (options_.multiRef && uses_[original.get()] > 1) return options_.multiRef(value);
    return value;
  }

  RewriteValue visit(const Expr& node) {
    if (const auto* call = node->as<CallNode>()) {
      if (const auto* op = call->op->as<OpNode>()) return visitOpCall(node, *call, op->name);
    }
    if (const auto* tuple = node->as<TupleNode>()) {
      std::vector<RewriteValue> fields;
      for (const Expr& f : tuple->fields) fields.push_back(argument(f));
      return RewriteValue::tuple(std::move(fields), node->span);
    }
    if (const auto* get = node->as<TupleGetItemNode>()) {
      const RewriteValue tuple = argument(get->tuple);
      if (tuple.isTuple()) return tuple.fields().at(get->index);  // folded
      return withChildren(node, {tuple.realize()});
    }
    // Anything else (vars, constants, functions, let, if, calls of functions): plain IR.
    std::vector<Expr> children;
    for (const Expr& child : exprChildren(node))
      children.push_back(memo_.count(child.get()) ? argument(child).realize() : child);
    return withChildren(node, children);
  }

  RewriteValue visitOpCall(const Expr& node, const CallNode& call, const std::string& op) {
    std::vector<RewriteValue> args;
    for (const Expr& arg : call.args) args.push_back(argument(arg));
    if (const ForwardRewriteFn* rule = options_.ruleOf ? options_.ruleOf(op) : nullptr) {
      if (std::optional<RewriteValue> replaced = (*rule)(call, args)) return *replaced;
    }
    std::vector<Expr> children = {call.op};
    for (const RewriteValue& a : args) children.push_back(a.realize());
    return withChildren(node, children);
  }

  const ForwardRewriteOptions& options_;
  std::unordered_map<const ExprNode*, int> uses_;
  std::unordered_map<const ExprNode*, RewriteValue> memo_;
};

}  // namespace

Function forwardRewrite(const Function& fn, const ForwardRewriteOptions& options) {
  return ForwardRewriter(options).run(fn);
}

}  // namespace tessera::relay::quantize
