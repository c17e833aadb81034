// Builders of the dataflow pattern language.
#include "relay/pattern/pattern.h"

namespace tessera::relay {
namespace {

Pattern make(PatternNode node) {
  return Pattern(std::make_shared<const PatternNode>(std::move(node)));
}

}  // namespace

Pattern Pattern::operator()(std::vector<Pattern> args) const {
  PatternNode n{.kind = PatternKind::kCall};
  n.children.push_back(node_);
  for (const Pattern& a : args) n.children.push_back(a.node());
  return make(std::move(n));
}

Pattern Pattern::hasAttr(std::vector<std::pair<std::string, AttrValue>> attrs) const {
  return make({.kind = PatternKind::kAttr, .children = {node_}, .attrs = std::move(attrs)});
}

Pattern Pattern::hasType(Type type) const {
  return make({.kind = PatternKind::kType, .children = {node_}, .type = std::move(type)});
}

Pattern Pattern::hasDtype(DataType dtype) const {
  return make({.kind = PatternKind::kDType, .children = {node_}, .dtype = dtype});
}

Pattern Pattern::hasShape(std::vector<int64_t> shape) const {
  return make({.kind = PatternKind::kShape, .children = {node_}, .shape = std::move(shape)});
}

Pattern Pattern::optional(const std::function<Pattern(const Pattern&)>& wrap) const {
  // The wrapped form first, so the longest match wins (as TVM orders it).
  return wrap(*this) | *this;
}

Pattern operator|(const Pattern& a, const Pattern& b) {
  return make({.kind = PatternKind::kAlt, .children = {a.node(), b.node()}});
}

Pattern wildcard() {
  return make({.kind = PatternKind::kWildcard});
}

Pattern isOp(const std::string& name) {
  return make({.kind = PatternKind::kOp, .name = name});
}

Pattern isConstant() {
  return make({.kind = PatternKind::kConstant});
}

Pattern isVar(const std::string& name) {
  return make({.kind = PatternKind::kVar, .name = name});
}

Pattern isExpr(Expr e) {
  return make({.kind = PatternKind::kExpr, .expr = std::move(e)});
}

Pattern isTuple(std::vector<Pattern> fields) {
  PatternNode n{.kind = PatternKind::kTuple};
  for (const Pattern& f : fields) n.children.push_back(f.node());
  return make(std::move(n));
}

Pattern isTupleGetItem(Pattern tuple, int index) {
  return make({.kind = PatternKind::kTupleGetItem, .children = {tuple.node()}, .index = index});
}

Pattern dominates(Pattern parent, Pattern path, Pattern child) {
  return make(
      {.kind = PatternKind::kDominator, .children = {parent.node(), path.node(), child.node()}});
}

}  // namespace tessera::relay
