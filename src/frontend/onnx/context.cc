// GraphContext's scopes and value bindings: nested scopes for subgraphs over one name map, the
// values bound to ONNX names, and releasing a value after its last use; plus the small constant
// helpers the converters share. Type inference is context_types.cc, folding at import
// context_fold.cc, loop functions context_functions.cc, NodeContext node_context.cc.
#include "frontend/onnx/context.h"

#include <algorithm>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

using relay::Expr;
using relay::ExprKind;

// --- GraphContext --------------------------------------------------------------------------------

// Scopes are a stack of undo records over one name map: lookups stay one map search however deep
// the nesting, and leaving a scope puts back exactly the bindings it shadowed.
GraphContext::Scope::Scope(GraphContext& graph, std::string where) : graph_(graph) {
  graph_.scopes_.push_back({std::move(where) + ": ", {}});
}

GraphContext::Scope::~Scope() {
  for (auto& [name, previous] : graph_.scopes_.back().shadowed) {
    if (previous)
      graph_.values_[name] = std::move(previous);
    else
      graph_.values_.erase(name);
  }
  graph_.scopes_.pop_back();
}

void GraphContext::bind(const std::string& name, Expr expr) {
  if (scopes_.empty()) {
    TS_CHECK(!values_.count(name)) << "ONNX value '" << name << "' bound twice";
  } else {
    const bool fresh = scopes_.back().shadowed.emplace(name, lookup(name)).second;
    TS_CHECK(fresh) << "ONNX value '" << name << "' bound twice in one scope";
  }
  boundNodes_.insert(expr.get());
  values_[name] = std::move(expr);
}

Expr GraphContext::lookup(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : it->second;
}

void GraphContext::markSymbolicShape(const relay::Expr& value, SymShape shape) {
  symbolicShapes_[value.get()] = std::move(shape);
  symbolicValues_.push_back(value);
}

const SymShape* GraphContext::symbolicShape(const relay::Expr& e) const {
  auto it = symbolicShapes_.find(e.get());
  return it == symbolicShapes_.end() ? nullptr : &it->second;
}

bool GraphContext::isBound(const std::string& name) const {
  if (!scopes_.empty()) return scopes_.back().shadowed.count(name) != 0;
  return values_.count(name) != 0 || released_.count(name) != 0;
}

const std::string& GraphContext::scopePrefix() const {
  static const std::string kTopLevel;
  return scopes_.empty() ? kTopLevel : scopes_.back().prefix;
}

void GraphContext::release(const std::string& name) {
  TS_CHECK(scopes_.empty()) << "names are released at the top level only";
  auto it = values_.find(name);
  if (it == values_.end()) return;
  // Only a constant is dropped from the caches: other values may still be reached (and typed)
  // through later expressions, and are cheap to keep.
  if (it->second->kind == ExprKind::kConstant) {
    types_.erase(it->second.get());
    boundNodes_.erase(it->second.get());
  }
  values_.erase(it);
  released_.insert(name);  // still defined: a second definition is an error
}

// --- free helpers --------------------------------------------------------------------------------

Expr scalarConstant(double value, DataType dtype) {
  return relay::makeConstant(NDArray::scalar(value, dtype));
}

Expr int64Constant(const std::vector<int64_t>& values) {
  NDArray a = NDArray::empty({static_cast<int64_t>(values.size())}, DataType::int64());
  for (size_t i = 0; i < values.size(); ++i) a.as<int64_t>()[i] = values[i];
  return relay::makeConstant(a);
}

Expr iotaConstant(const std::vector<int64_t>& shape, int64_t step) {
  NDArray a = NDArray::empty(shape, DataType::int64());
  for (int64_t i = 0; i < a.numel(); ++i) a.as<int64_t>()[i] = i * step;
  return relay::makeConstant(a);
}

std::optional<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = x == 1 ? y : x;
  }
  return out;
}

int64_t extentProduct(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t k = begin; k < end && k < shape.size(); ++k) p *= shape[k];
  return p;
}

}  // namespace tessera::frontend::onnx
