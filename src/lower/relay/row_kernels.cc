// splitByRows: checks, op by op, that a primitive function keeps its leading `?` axis as the rows
// of every value, then retypes it for one row and checks again, value by value, that each row's
// type is the batched type with a leading 1.
#include "lower/relay/row_kernels.h"

#include <algorithm>
#include <unordered_map>

#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::lower {
namespace {

using relay::Expr;

enum class Rows : uint8_t { kNone, kLeading, kOther };

// kLeading: every tensor of the type has `?` as its first dim and nowhere else; kNone: no `?`.
Rows rowsOf(const Type& type) {
  if (!type) return Rows::kOther;
  if (const auto* tuple = type->as<TupleTypeNode>()) {
    std::optional<Rows> all;
    for (const Type& f : tuple->fields) {
      const Rows r = rowsOf(f);
      if (all && *all != r) return Rows::kOther;
      all = r;
    }
    return all.value_or(Rows::kNone);
  }
  const auto* tensor = type->as<TensorTypeNode>();
  if (!tensor) return Rows::kOther;
  for (size_t k = 1; k < tensor->shape.size(); ++k)
    if (!tensor->shape[k].isConst()) return Rows::kOther;
  if (tensor->shape.empty() || tensor->shape[0].isConst()) return Rows::kNone;
  return tensor->shape[0].isAny() ? Rows::kLeading : Rows::kOther;
}

Type withRows(const Type& type, int64_t rows) {
  const auto* tensor = type->as<TensorTypeNode>();
  Shape shape = tensor->shape;
  shape[0] = Dim(rows);
  return tensorType(std::move(shape), tensor->dtype);
}

// The largest constant extent of `type`.
int64_t largestExtent(const Type& type) {
  int64_t out = 0;
  if (const auto* tuple = type ? type->as<TupleTypeNode>() : nullptr) {
    for (const Type& f : tuple->fields) out = std::max(out, largestExtent(f));
  } else if (const auto* tensor = type ? type->as<TensorTypeNode>() : nullptr) {
    for (const Dim& d : tensor->shape)
      if (d.isConst()) out = std::max(out, d.value());
  }
  return out;
}

bool hasField(const AttrsNode& attrs, const std::string& name) {
  for (const std::string& f : attrs.fieldNames())
    if (f == name) return true;
  return false;
}

// An op that works along the leading axis: an `axis`/`axes` attribute naming axis 0 or every
// axis (None), or a transpose moving it.
bool worksAlongRows(const relay::CallNode& call, int64_t rank) {
  if (!call.attrs) return false;
  const AttrsNode& attrs = *call.attrs;
  const auto* op = call.op->as<relay::OpNode>();
  if (hasField(attrs, "exclude") && attrs.get("exclude").asBool()) return true;
  for (const char* name : {"axis", "axes"}) {
    if (!hasField(attrs, name)) continue;
    const AttrValue v = attrs.get(name);
    std::vector<AttrValue> items =
        v.kind() == AttrValue::Kind::kArray ? v.asArray() : std::vector<AttrValue>{v};
    if (op && op->name == "transpose") {
      if (v.isNone() || items.empty()) return true;
      items.resize(1);  // only where the first output axis comes from matters
      const int64_t a = items[0].asInt() < 0 ? items[0].asInt() + rank : items[0].asInt();
      if (a != 0) return true;
      continue;
    }
    if (v.isNone()) return true;
    for (const AttrValue& item : items)
      if (item.kind() == AttrValue::Kind::kInt && (item.asInt() == 0 || item.asInt() == -rank))
        return true;
  }
  return false;
}

// The rows' type is the batched type with `rows` for the leading `?`.
bool isRowOf(const Type& batched, const Type& row, int64_t rows) {
  if (!batched || !row) return batched == row;
  const auto* bt = batched->as<TupleTypeNode>();
  const auto* rt = row->as<TupleTypeNode>();
  if (bt || rt) {
    if (!bt || !rt || bt->fields.size() != rt->fields.size()) return false;
    for (size_t i = 0; i < bt->fields.size(); ++i)
      if (!isRowOf(bt->fields[i], rt->fields[i], rows)) return false;
    return true;
  }
  const auto* b = batched->as<TensorTypeNode>();
  const auto* r = row->as<TensorTypeNode>();
  if (!b || !r || b->dtype != r->dtype || b->shape.size() != r->shape.size()) return false;
  for (size_t k = 0; k < b->shape.size(); ++k) {
    const Dim want = k == 0 && b->shape[0].isAny() ? Dim(rows) : b->shape[k];
    if (!(r->shape[k] == want)) return false;
  }
  return true;
}

Type typeOf(const Expr& e) {
  if (e->checkedType) return e->checkedType;
  const auto* v = e->as<relay::VarNode>();
  return v ? v->typeAnnotation : nullptr;
}

std::vector<Expr> nodesInPostOrder(const Expr& root) {
  std::vector<Expr> out;
  relay::postOrderVisit(root, [&](const Expr& e) { out.push_back(e); });
  return out;
}

}  // namespace

std::optional<RowSplit> splitByRows(const relay::Function& fn, std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<RowSplit> {
    if (why) *why = reason;
    return std::nullopt;
  };
  RowSplit split;
  int64_t largest = 0;
  relay::postOrderVisit(
      fn->body, [&](const Expr& e) { largest = std::max(largest, largestExtent(typeOf(e))); });
  for (const relay::Var& p : fn->params) {
    const Rows r = rowsOf(p->type());
    if (r == Rows::kOther || (r == Rows::kLeading && !p->type()->as<TensorTypeNode>()))
      return fail("parameter %" + p->nameHint + " has a `?` that is not a leading axis");
    split.slicedParams.push_back(r == Rows::kLeading);
    largest = std::max(largest, largestExtent(p->type()));
  }
  if (std::none_of(split.slicedParams.begin(), split.slicedParams.end(), [](bool b) { return b; }))
    return fail("no parameter has a leading `?`");
  if (rowsOf(fn->body->type()) != Rows::kLeading) return fail("a result is not batched by rows");
  std::string reason;
  relay::postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<relay::CallNode>();
    if (!call || !reason.empty()) return;
    bool batchedIn = false;
    for (const Expr& a : call->args) batchedIn = batchedIn || rowsOf(a->type()) == Rows::kLeading;
    const Rows out = rowsOf(call->type());
    const auto* t = call->type()->as<TensorTypeNode>();
    const int64_t rank = t ? static_cast<int64_t>(t->shape.size()) : 0;
    const bool keepsRows =
        batchedIn ? out == Rows::kLeading && !worksAlongRows(*call, rank) : out == Rows::kNone;
    if (!keepsRows) reason = relay::exprSummary(call->op) + " does not keep the rows apart";
  });
  if (!reason.empty()) return fail(reason);
  // Retyped for one row (the kernel compiled), and for more rows than any constant extent of the
  // function: a `?` that broadcasts against another axis (a 1-D `?` added to the columns of a
  // `(?, 3)`) types with one row but not with that many, as it is not a row axis.
  for (const int64_t rows : {int64_t{1}, largest + 2}) {
    std::vector<relay::Var> params;
    std::unordered_map<const relay::ExprNode*, Expr> retyped;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      const relay::Var& p = fn->params[i];
      params.push_back(split.slicedParams[i]
                           ? relay::makeVar(p->nameHint, withRows(p->type(), rows), p->span)
                           : p);
      if (split.slicedParams[i]) retyped[p.get()] = params.back();
    }
    const Expr body = relay::rewriteBottomUp(
        fn->body, [&](const Expr& node, const std::vector<Expr>& children) -> Expr {
          if (auto it = retyped.find(node.get()); it != retyped.end()) return it->second;
          return relay::withChildren(node, children);
        });
    relay::Function typed;
    try {
      typed = relay::exprAs<relay::FunctionNode>(
          relay::inferExprTypes(relay::makeFunction(params, body, nullptr, fn->attrs)));
    } catch (const DiagnosticError& e) {
      return fail(std::to_string(rows) + " rows do not type: " + e.diagnostic().message);
    }
    // Value by value, the rows are the batch's leading slice.
    const std::vector<Expr> batched = nodesInPostOrder(fn->body),
                            sliced = nodesInPostOrder(typed->body);
    if (batched.size() != sliced.size()) return fail("the retyped function differs in structure");
    for (size_t k = 0; k < batched.size(); ++k) {
      if (batched[k]->as<relay::OpNode>()) continue;
      if (!isRowOf(typeOf(batched[k]), typeOf(sliced[k]), rows))
        return fail(relay::exprSummary(batched[k]) + " is not computed row by row");
    }
    if (rows == 1) split.perRow = typed;
  }
  return split;
}

}  // namespace tessera::lower
