// Matching dataflow patterns against expressions, and the rewriter that runs pattern callbacks to a
// fixed point (TVM's DFPatternMatcher and rewrite()).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "relay/pattern/pattern.h"

namespace tessera::relay {

/// One successful match: the expression each pattern node matched.
struct PatternMatch {
  std::unordered_map<const PatternNode*, Expr> captures;
  /// Nodes a dominator pattern's path matched (between the parent and the child).
  std::vector<Expr> pathNodes;
  /// The expression `p` matched, or null when it took no part in the match (an alternative not
  /// taken).
  Expr operator[](const Pattern& p) const;
};

/// Matches patterns against expressions of one graph. The graph (`root`) supplies the users of each
/// node, which dominator patterns need; pattern recursion is bounded by the pattern's depth, never
/// by the graph's.
class PatternMatcher {
 public:
  explicit PatternMatcher(Expr root);
  ~PatternMatcher();
  /// The captures when `pattern` matches `e`.
  std::optional<PatternMatch> match(const Pattern& pattern, const Expr& e);
  /// True when `e` is a node of the matcher's graph.
  bool contains(const Expr& e) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// True when `pattern` matches `e` (the graph is `e` itself).
bool matches(const Pattern& pattern, const Expr& e);
/// The captures when `pattern` matches `e` (the graph is `e` itself).
std::optional<PatternMatch> matchCaptures(const Pattern& pattern, const Expr& e);

/// A rewrite rule: where `pattern` matches, `callback(pre, post, match)` returns the replacement
/// (or `post` to leave it). `pre` is the node of the original graph, `post` the same node with its
/// already-rewritten children.
struct RewriteCallback {
  Pattern pattern;
  std::function<Expr(const Expr& pre, const Expr& post, const PatternMatch& match)> callback;
};

/// Applies the callbacks bottom-up, repeating until nothing changes (at most `maxIterations`
/// sweeps). A node is matched only in a sweep where none of its inputs changed, so the captures
/// and dominator checks always refer to one consistent graph.
Expr rewrite(const std::vector<RewriteCallback>& callbacks, const Expr& e, int maxIterations = 100);

}  // namespace tessera::relay
