// GraphContext's type cache: every expression a converter builds is typed once, iteratively,
// by its op's own type relation (argument types are complete by then).
#include "frontend/onnx/context.h"

#include "relay/op_registry.h"
#include "relay/type_infer.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

using relay::Expr;
using relay::ExprKind;

Type GraphContext::typeOf(const Expr& root) {
  if (auto it = types_.find(root.get()); it != types_.end()) return it->second.second;
  // Post-order over the nodes not typed yet; typed nodes end the walk, so each node is typed once
  // and the work per ONNX node is proportional to the expressions its converter built.
  std::vector<std::pair<Expr, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (types_.count(e.get())) continue;
    if (expanded) {
      Type t = computeType(e);
      types_.emplace(e.get(), std::make_pair(e, std::move(t)));
      continue;
    }
    stack.emplace_back(e, true);
    std::vector<Expr> kids;
    if (const auto* call = e->as<relay::CallNode>()) kids = call->args;
    if (const auto* tuple = e->as<relay::TupleNode>()) kids = tuple->fields;
    if (const auto* item = e->as<relay::TupleGetItemNode>()) kids = {item->tuple};
    if (const auto* node = e->as<relay::IfNode>())
      kids = {node->cond, node->thenBranch, node->elseBranch};
    for (const Expr& k : kids)
      if (!types_.count(k.get())) stack.emplace_back(k, false);
  }
  return types_.at(root.get()).second;
}

Type GraphContext::computeType(const Expr& e) {
  auto typeAt = [&](const Expr& k) { return types_.at(k.get()).second; };
  switch (e->kind) {
    case ExprKind::kVar:
      return e->as<relay::VarNode>()->typeAnnotation;
    case ExprKind::kConstant:
      return e->as<relay::ConstantNode>()->declaredType;
    case ExprKind::kTuple: {
      std::vector<Type> fields;
      for (const Expr& f : e->as<relay::TupleNode>()->fields) fields.push_back(typeAt(f));
      return tupleType(std::move(fields));
    }
    case ExprKind::kTupleGetItem: {
      const auto* item = e->as<relay::TupleGetItemNode>();
      const auto* tuple = typeAt(item->tuple)->as<TupleTypeNode>();
      TS_CHECK(tuple && item->index >= 0 && item->index < static_cast<int>(tuple->fields.size()))
          << "bad projection built by the ONNX importer";
      return tuple->fields[item->index];
    }
    case ExprKind::kIf: {
      // The If converter builds one only over branches whose types join.
      const auto* node = e->as<relay::IfNode>();
      Type joined = relay::joinBranchTypes(typeAt(node->thenBranch), typeAt(node->elseBranch));
      TS_CHECK(joined) << "if branches of different types built by the ONNX importer";
      return joined;
    }
    case ExprKind::kCall:
      break;
    default:
      TS_CHECK(false) << "unexpected expression built by the ONNX importer: " << exprSummary(e);
  }
  const auto* call = e->as<relay::CallNode>();
  if (const auto* global = call->op->as<relay::GlobalVarNode>()) {
    auto it = returnTypes_.find(global->name);
    TS_CHECK(it != returnTypes_.end() && it->second) << "call of an unknown @" << global->name;
    return it->second;
  }
  const auto* op = call->op->as<relay::OpNode>();
  TS_CHECK(op && op->def->typeRelation) << "the ONNX importer calls only registered ops";
  const relay::OpDef* def = op->def;
  TS_CHECK(call->args.size() == def->args.size()) << def->name << " built with a wrong arity";
  std::vector<Type> args;
  for (const Expr& a : call->args) args.push_back(typeAt(a));
  relay::TypeReporter reporter(
      def->name, args, call->attrs.get(), call->span, [&](size_t i, const Type& t) {
        if (!typeEqual(args.at(i), t))
          throwDiagnostic("type_mismatch",
                          "argument '" + def->args.at(i) + "' has type " +
                              typeToString(args.at(i)) + " but " + typeToString(t) + " is expected",
                          Span{}, def->name);
      });
  std::optional<Type> out = def->typeRelation(reporter);
  if (!out || !isCompleteType(*out))
    throwDiagnostic("infer", "unable to infer the result type", Span{}, def->name);
  return *out;
}

}  // namespace tessera::frontend::onnx
