// The layout machinery that ConvertLayout and AlterOpLayout share: anchor calls (conv2d) are
// rewritten to another layout by the pass's own rule, and their results are carried through the
// layout-agnostic consumers that follow (elementwise ops, broadcasts against channel constants,
// pools), so that a chain of rewritten anchors pays one layout_transform where the chain starts
// and one where an unaware consumer (or the function's result) needs the original layout back.
// Layouts may be permutations (NCHW -> NHWC) or blocked (NCHW -> NCHW16c).
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "relay/expr.h"

namespace tessera::relay {

/// A rewritten value held in `layout` where the original graph had it in `original`.
struct HeldLayout {
  std::string layout;
  std::string original;
};

/// Whether the rewriter carries a held layout through a call of `op` with `arity` arguments
/// (unary elementwise ops, binary broadcast arithmetic, pools) instead of restoring its inputs.
bool carriesLayout(const std::string& op, size_t arity);

class LayoutRewriter {
 public:
  /// Rewrites an anchor call given its rewritten children (children[0] is the op); returns null
  /// when the call stays as it is (it is then an unaware consumer).
  using AnchorRule =
      std::function<Expr(const CallNode&, const std::vector<Expr>& children, LayoutRewriter&)>;

  explicit LayoutRewriter(AnchorRule anchor) : anchor_(std::move(anchor)) {}

  /// Rewrites a typed function (InferType has run: broadcast operands need their rank).
  Expr run(const Function& fn);

  /// For anchor rules: `e` (a rewritten child whose original-graph layout is `original`) in
  /// layout `want` — as it is when already held so, else through one layout_transform.
  Expr inLayout(const Expr& e, const std::string& original, const std::string& want);
  /// Records that `e` holds its value in `info.layout`, not `info.original`; returns `e`.
  Expr hold(Expr e, HeldLayout info);
  /// The layout `e` is held in, or null when it has its original layout.
  const HeldLayout* heldLayout(const Expr& e) const;
  /// `e` back in its original layout; one transform per node however many consumers need it.
  Expr restore(const Expr& e);

 private:
  struct Held {
    Expr keepAlive;  // pins the node so its address is not reused while it is a map key
    HeldLayout info;
  };

  Expr visit(const Expr& node, const std::vector<Expr>& children);
  bool tracked(const std::vector<Expr>& children) const;
  Expr convertBroadcast(const CallNode& call, const std::vector<Expr>& children);
  Expr convertPool(const CallNode& call, const std::string& name,
                   const std::vector<Expr>& children);
  template <typename T>
  Expr retargetPool(const CallNode& call, const std::vector<Expr>& children);

  AnchorRule anchor_;
  std::unordered_map<const ExprNode*, Held> held_;
  std::unordered_map<const ExprNode*, Expr> restored_;
};

}  // namespace tessera::relay
