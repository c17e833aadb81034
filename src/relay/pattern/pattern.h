// The dataflow pattern language (TVM's relay.dataflow_pattern): patterns are built with a small C++
// builder syntax, e.g. `isOp("nn.conv2d")({wildcard(), isConstant()}).hasAttr({{"groups", 1}})`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/attr_value.h"
#include "ir/type.h"
#include "relay/expr.h"

namespace tessera::relay {

/// What a pattern node matches.
enum class PatternKind : uint8_t {
  kWildcard,      ///< any expression
  kExpr,          ///< exactly this expression (by identity, or structurally for constants)
  kOp,            ///< an operator by name
  kCall,          ///< a call: children[0] callee, then the arguments
  kConstant,      ///< any constant
  kVar,           ///< a variable, optionally by name
  kTuple,         ///< a tuple of exactly the children
  kTupleGetItem,  ///< children[0] projected at `index` (-1: any index)
  kAttr,          ///< children[0] with call/function attributes `attrs`
  kType,          ///< children[0] whose checked type equals `type`
  kDType,         ///< children[0] whose tensor dtype is `dtype`
  kShape,         ///< children[0] whose static tensor shape is `shape`
  kAlt,           ///< children[0] or else children[1]
  kDominator,     ///< children = {parent, path, child}: child, reached from parent only via path
};

/// One immutable pattern node; shared, so a pattern is a DAG like the expressions it matches.
struct PatternNode {
  PatternKind kind = PatternKind::kWildcard;
  std::vector<std::shared_ptr<const PatternNode>> children;
  std::string name;  ///< op name (kOp) or variable name (kVar, empty: any)
  Expr expr;         ///< kExpr
  int index = -1;    ///< kTupleGetItem
  std::vector<std::pair<std::string, AttrValue>> attrs;  ///< kAttr
  Type type;                                             ///< kType
  DataType dtype;                                        ///< kDType
  std::vector<int64_t> shape;                            ///< kShape
};

/// A handle on a pattern node with the builder methods.
class Pattern {
 public:
  Pattern() = default;
  explicit Pattern(std::shared_ptr<const PatternNode> node) : node_(std::move(node)) {}
  const PatternNode* operator->() const { return node_.get(); }
  const std::shared_ptr<const PatternNode>& node() const { return node_; }
  bool defined() const { return node_ != nullptr; }

  /// A call of this pattern (usually an isOp) with exactly these argument patterns.
  Pattern operator()(std::vector<Pattern> args) const;
  /// This pattern when the matched call (or function) has these attribute values.
  Pattern hasAttr(std::vector<std::pair<std::string, AttrValue>> attrs) const;
  /// This pattern when the matched expression's checked type equals `type`.
  Pattern hasType(Type type) const;
  /// This pattern when the matched expression is a tensor of `dtype`.
  Pattern hasDtype(DataType dtype) const;
  /// This pattern when the matched expression is a tensor of static shape `shape`.
  Pattern hasShape(std::vector<int64_t> shape) const;
  /// `this | wrap(this)`: matches with or without the extra operations `wrap` adds on top
  /// (TVM's `pattern.optional(lambda x: ...)`); the longer form is tried first.
  Pattern optional(const std::function<Pattern(const Pattern&)>& wrap) const;

 private:
  std::shared_ptr<const PatternNode> node_;
};

/// Alternatives: matches `a`, or `b` when `a` does not match.
Pattern operator|(const Pattern& a, const Pattern& b);

/// Matches any expression.
Pattern wildcard();
/// Matches the registered operator `name` (the callee of a call pattern).
Pattern isOp(const std::string& name);
/// Matches any constant.
Pattern isConstant();
/// Matches a variable; with a name, only a variable of that name hint.
Pattern isVar(const std::string& name = "");
/// Matches exactly `e`.
Pattern isExpr(Expr e);
/// Matches a tuple whose fields match `fields`.
Pattern isTuple(std::vector<Pattern> fields);
/// Matches a projection of a tuple matching `tuple`; index -1 matches any index.
Pattern isTupleGetItem(Pattern tuple, int index = -1);
/// Matches `child` when every path from it back to a `parent` match goes through nodes matching
/// `path`, and those nodes are used only inside the match (TVM's `dominates`).
Pattern dominates(Pattern parent, Pattern path, Pattern child);

}  // namespace tessera::relay
