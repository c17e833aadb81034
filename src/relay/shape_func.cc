// Shape functions composed over calls and fused functions. The default shape function of an op
// is its type relation run on symbolic dims: every input dim not known as a constant becomes a
// fresh SymVar standing for its expression, and an output dim that comes back as one of them is
// that expression (a batch axis passing through conv2d, dense, relu, transpose, ...). Dims the
// relation computes (reshape's -1) come back `?` and need the op's own shape function.
#include "relay/shape_func.h"

#include <algorithm>
#include <unordered_map>

#include "relay/visit.h"
#include "support/diagnostic.h"
#include "tir/arith/analyzer.h"

namespace tessera::relay {
namespace {

using tir::PrimExpr;

PrimExpr constDim(int64_t v) {
  return tir::intImm(v, DataType::int64());
}

// Symbolic variables standing for input dims while a type relation runs.
struct Symbols {
  std::unordered_map<const SymVarNode*, PrimExpr> exprOf;
  std::vector<std::pair<PrimExpr, SymVar>> made;

  // Equal expressions share a variable, so relations that compare extents see them equal.
  Dim dimFor(const PrimExpr& e) {
    if (const int64_t* c = tir::asConstInt(e)) return Dim(*c);
    for (const auto& [expr, var] : made)
      if (tir::deepEqual(expr, e)) return Dim::var(var);
    auto v = std::make_shared<const SymVarNode>(SymVarNode{"s" + std::to_string(exprOf.size())});
    exprOf[v.get()] = e;
    made.emplace_back(e, v);
    return Dim::var(v);
  }
};

// `type` with each dim replaced by its expression in `value` (constants stay constants).
Type symbolize(const Type& type, const SymValue& value, Symbols& symbols) {
  if (const auto* tuple = type->as<TupleTypeNode>()) {
    std::vector<Type> fields;
    for (size_t i = 0; i < tuple->fields.size(); ++i)
      fields.push_back(i < value.fields.size()
                           ? symbolize(tuple->fields[i], value.fields[i], symbols)
                           : tuple->fields[i]);
    return tupleType(std::move(fields));
  }
  const auto* tensor = type->as<TensorTypeNode>();
  if (!tensor || value.shape.size() != tensor->shape.size()) return type;
  Shape shape;
  for (size_t k = 0; k < tensor->shape.size(); ++k)
    shape.push_back(value.shape[k] ? symbols.dimFor(value.shape[k]) : tensor->shape[k]);
  return tensorType(std::move(shape), tensor->dtype);
}

// The relation's result read back: constants and symbols known, anything else null.
SymValue desymbolize(const Type& type, const Symbols& symbols) {
  SymValue out;
  if (const auto* tuple = type->as<TupleTypeNode>()) {
    out.isTuple = true;
    for (const Type& f : tuple->fields) out.fields.push_back(desymbolize(f, symbols));
    return out;
  }
  const auto* tensor = type->as<TensorTypeNode>();
  if (!tensor) return out;
  for (const Dim& d : tensor->shape) {
    if (d.isConst()) {
      out.shape.push_back(constDim(d.value()));
      continue;
    }
    auto it = d.isVar() ? symbols.exprOf.find(d.symVar().get()) : symbols.exprOf.end();
    out.shape.push_back(it == symbols.exprOf.end() ? PrimExpr() : it->second);
  }
  return out;
}

// The expression a dim of a symbolized type stands for; null for one the symbols do not know.
PrimExpr exprOfDim(const Dim& d, const Symbols& symbols) {
  if (d.isConst()) return constDim(d.value());
  auto it = d.isVar() ? symbols.exprOf.find(d.symVar().get()) : symbols.exprOf.end();
  return it == symbols.exprOf.end() ? PrimExpr() : it->second;
}

// The relation run on symbolic dims. The extents it needs equal but cannot compare (two symbols,
// or a symbol and a constant) are assumed equal and appended to `assumed` when it succeeds.
std::optional<SymValue> fromTypeRelation(const CallNode& call, const OpDef& def,
                                         const std::vector<SymValue>& inputs,
                                         std::vector<DimAssumption>* assumed) {
  if (!def.typeRelation) return std::nullopt;
  Symbols symbols;
  std::vector<Type> args;
  for (size_t i = 0; i < call.args.size(); ++i)
    args.push_back(i < inputs.size() ? symbolize(call.args[i]->type(), inputs[i], symbols)
                                     : call.args[i]->type());
  TypeReporter reporter(def.name, args, call.attrs.get(), call.span, [](size_t, const Type&) {});
  std::vector<DimAssumption> made;
  bool unknown = false;  // an assumption about a dim no input gave: not checkable
  reporter.setAssume([&](const Dim& a, const Dim& b, const std::string& what) {
    PrimExpr ea = exprOfDim(a, symbols), eb = exprOfDim(b, symbols);
    if (!ea || !eb) unknown = true;
    made.push_back({std::move(ea), std::move(eb), def.name + ": " + what});
  });
  try {
    std::optional<Type> out = def.typeRelation(reporter);
    if (!out || unknown) return std::nullopt;
    if (assumed) assumed->insert(assumed->end(), made.begin(), made.end());
    return desymbolize(*out, symbols);
  } catch (const DiagnosticError&) {
    // A relation that rejects symbolic dims (it compares extents) computes no shape.
    return std::nullopt;
  }
}

// `computed` completed with the dims static in the call's type (those always win).
SymValue withStaticDims(SymValue computed, const SymValue& fromType) {
  if (fromType.isTuple) {
    computed.isTuple = true;
    computed.fields.resize(fromType.fields.size());
    for (size_t i = 0; i < fromType.fields.size(); ++i)
      computed.fields[i] = withStaticDims(std::move(computed.fields[i]), fromType.fields[i]);
    return computed;
  }
  if (computed.shape.size() != fromType.shape.size()) return fromType;
  for (size_t k = 0; k < fromType.shape.size(); ++k)
    computed.shape[k] = fromType.shape[k] ? fromType.shape[k] : simplifyDim(computed.shape[k]);
  return computed;
}

}  // namespace

SymValue symValueOfType(const Type& type) {
  SymValue out;
  if (const auto* tuple = type->as<TupleTypeNode>()) {
    out.isTuple = true;
    for (const Type& f : tuple->fields) out.fields.push_back(symValueOfType(f));
    return out;
  }
  if (const auto* tensor = type->as<TensorTypeNode>())
    for (const Dim& d : tensor->shape)
      out.shape.push_back(d.isConst() ? constDim(d.value()) : nullptr);
  return out;
}

bool isKnown(const SymValue& v) {
  for (const SymValue& f : v.fields)
    if (!isKnown(f)) return false;
  for (const PrimExpr& d : v.shape)
    if (!d) return false;
  return true;
}

PrimExpr simplifyDim(const PrimExpr& e) {
  return e ? tir::arith::simplify(e) : e;
}

std::optional<SymValue> callOutputShape(const CallNode& call, const std::vector<SymValue>& inputs,
                                        std::string* why, std::vector<DimAssumption>* assumed) {
  const SymValue fromType = symValueOfType(call.type());
  const auto* op = call.op->as<OpNode>();
  const bool dynamicInputs = !std::all_of(call.args.begin(), call.args.end(), [](const Expr& a) {
    return isKnown(symValueOfType(a->type()));
  });
  if (isKnown(fromType)) {
    // A static result from `?` inputs may still rest on their extents (`?` + a (3, 4) constant).
    if (assumed && op && dynamicInputs && !op->def->dataDependentShape)
      fromTypeRelation(call, *op->def, inputs, assumed);
    return fromType;
  }
  if (!op) {
    if (why) *why = "a call of " + exprSummary(call.op) + " has no shape function";
    return std::nullopt;
  }
  const OpDef& def = *op->def;
  if (def.dataDependentShape) {
    if (why) *why = def.name + " has a data-dependent output shape";
    return std::nullopt;
  }
  // An op with a shape function of its own still has its relation say which extents it needs
  // equal (concatenate's other axes).
  if (def.shapeFunc && assumed) fromTypeRelation(call, def, inputs, assumed);
  std::optional<SymValue> computed =
      def.shapeFunc ? def.shapeFunc(call, inputs) : fromTypeRelation(call, def, inputs, assumed);
  if (computed) computed = withStaticDims(std::move(*computed), fromType);
  if (computed && isKnown(*computed)) return computed;
  if (why)
    *why = def.name +
           (def.shapeFunc ? "'s shape function" : " (no shape function; its type relation)") +
           " cannot compute the `?` dims of " + typeToString(call.type()) + " from its inputs";
  return std::nullopt;
}

SymValue primitiveOutputShape(const Function& fn, const std::vector<SymValue>& params,
                              std::vector<DimAssumption>* assumed) {
  std::unordered_map<const ExprNode*, SymValue> shapes;
  for (size_t i = 0; i < fn->params.size() && i < params.size(); ++i)
    shapes[fn->params[i].get()] = params[i];
  auto shapeOf = [&](const Expr& e) -> SymValue {
    auto it = shapes.find(e.get());
    return it != shapes.end() ? it->second : symValueOfType(e->type());
  };
  postOrderVisit(fn->body, [&](const Expr& e) {
    if (shapes.count(e.get())) return;
    if (const auto* call = e->as<CallNode>()) {
      std::vector<SymValue> inputs;
      for (const Expr& a : call->args) inputs.push_back(shapeOf(a));
      std::string why;
      std::optional<SymValue> out = callOutputShape(*call, inputs, &why, assumed);
      if (!out) throwDiagnostic("dynamic_shape", why, e->span);
      shapes[e.get()] = std::move(*out);
    } else if (const auto* tuple = e->as<TupleNode>()) {
      SymValue v{.isTuple = true};
      for (const Expr& f : tuple->fields) v.fields.push_back(shapeOf(f));
      shapes[e.get()] = std::move(v);
    } else if (const auto* get = e->as<TupleGetItemNode>()) {
      const SymValue t = shapeOf(get->tuple);
      if (get->index >= 0 && static_cast<size_t>(get->index) < t.fields.size())
        shapes[e.get()] = t.fields[static_cast<size_t>(get->index)];
    }
  });
  return shapeOf(fn->body);
}

}  // namespace tessera::relay
