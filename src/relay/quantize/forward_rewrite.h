// The ForwardRewrite engine of the quantizer (TVM's forward_rewrite.cc, spec relay.md §5.4): a
// post-order rewrite in which each op's rule sees the original call and its already-rewritten
// arguments, which may be temporary expressions carrying what the stage knows about a value
// (partitioned, annotated with a kind, realized with a scale and dtype). A temporary expression
// becomes IR through its realize() when it reaches an op without a rule, and at the end.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "relay/expr.h"

namespace tessera::relay::quantize {

/// A non-IR value of one rewrite (TVM's TempExpr).
class TempExpr {
 public:
  virtual ~TempExpr() = default;
  /// The value as plain IR.
  virtual Expr realize() const = 0;
};

/// A rewritten value: an expression, a temporary expression, or a tuple whose fields are
/// rewritten values (tuples keep their fields' temporary expressions, as in TVM).
class RewriteValue {
 public:
  RewriteValue() = default;
  RewriteValue(Expr expr) : expr_(std::move(expr)) {}  // NOLINT: implicit on purpose
  RewriteValue(std::shared_ptr<const TempExpr> temp)   // NOLINT: implicit on purpose
      : temp_(std::move(temp)) {}
  static RewriteValue tuple(std::vector<RewriteValue> fields, Span span);

  /// The temporary expression as T, or null (TVM's partition_expr_check and friends).
  template <typename T>
  const T* as() const {
    return dynamic_cast<const T*>(temp_.get());
  }
  bool isTemp() const { return temp_ != nullptr; }
  bool isTuple() const { return isTuple_; }
  const std::vector<RewriteValue>& fields() const { return fields_; }
  /// The plain expression (null for a temporary expression or a tuple).
  const Expr& expr() const { return expr_; }
  /// The value as IR: the expression itself, or the temporary's realize().
  Expr realize() const;

 private:
  Expr expr_;
  std::shared_ptr<const TempExpr> temp_;
  std::vector<RewriteValue> fields_;
  bool isTuple_ = false;
  Span span_;
};

/// An op's rule: the original call (typed, with its original arguments) and the rewritten
/// arguments; the replacement, or nullopt for "no change" (the call is then rebuilt on its
/// realized arguments).
using ForwardRewriteFn = std::function<std::optional<RewriteValue>(
    const CallNode& refCall, const std::vector<RewriteValue>& args)>;

struct ForwardRewriteOptions {
  /// The rule of an op, or null.
  std::function<const ForwardRewriteFn*(const std::string& op)> ruleOf;
  /// Applied to an argument's rewritten value each time it is used, when the original
  /// expression has several consumers (annotate shares one quantize among them).
  std::function<RewriteValue(const RewriteValue&)> multiRef;
};

/// Rewrites `fn`'s body; temporary expressions left at the end are realized.
Function forwardRewrite(const Function& fn, const ForwardRewriteOptions& options);

/// TVM's _forward_op: a call of `refCall`'s op with its attrs and span on `args`.
Expr forwardOp(const CallNode& refCall, std::vector<Expr> args);

}  // namespace tessera::relay::quantize
