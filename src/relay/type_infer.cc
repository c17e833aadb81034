// InferType: constraint generation over the whole module, a fixed-point solver for op type
// relations, then write-back of checked types and missing annotations.
#include "relay/type_infer.h"

#include <unordered_map>

#include "relay/op_registry.h"
#include "relay/visit.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay {

namespace {

// A pending op type relation: the call, its argument types and its output type hole.
struct PendingRelation {
  const CallNode* call;
  const OpDef* op;
  Span span;
  std::vector<Type> argTypes;
  Type outType;
};

// An `if` whose type is the join of its branches' types (ModuleTypeInferencer::solveJoin).
struct PendingJoin {
  Expr at;
  Type thenType, elseType, out;
};

class TypeSolver {
 public:
  /// Follows bindings of incomplete types to their current representative.
  Type resolve(Type t) const {
    while (t && t->kind == TypeKind::kIncomplete) {
      auto it = bindings_.find(t.get());
      if (it == bindings_.end()) return t;
      t = it->second;
    }
    return t;
  }

  /// Substitutes every bound hole inside `t`.
  Type fullyResolve(const Type& type) const {
    Type t = resolve(type);
    if (!t) return t;
    switch (t->kind) {
      case TypeKind::kTensor:
      case TypeKind::kIncomplete:
        return t;
      case TypeKind::kTuple: {
        std::vector<Type> fields;
        for (const Type& f : t->as<TupleTypeNode>()->fields) fields.push_back(fullyResolve(f));
        return tupleType(std::move(fields));
      }
      case TypeKind::kFunc: {
        const auto* f = t->as<FuncTypeNode>();
        std::vector<Type> args;
        for (const Type& a : f->argTypes) args.push_back(fullyResolve(a));
        return funcType(std::move(args), fullyResolve(f->retType));
      }
    }
    return t;
  }

  /// Makes `a` and `b` the same type; returns nullptr (and sets `why`) when they conflict.
  Type unify(const Type& lhs, const Type& rhs, std::string& why) {
    Type a = resolve(lhs);
    Type b = resolve(rhs);
    if (a == b) return a;
    if (a->kind == TypeKind::kIncomplete) {
      bindings_[a.get()] = b;
      return b;
    }
    if (b->kind == TypeKind::kIncomplete) {
      bindings_[b.get()] = a;
      return a;
    }
    if (a->kind != b->kind) {
      why = typeToString(fullyResolve(a)) + " vs " + typeToString(fullyResolve(b));
      return nullptr;
    }
    switch (a->kind) {
      case TypeKind::kTensor:
        return unifyTensors(a, b, why);
      case TypeKind::kTuple: {
        const auto& xs = a->as<TupleTypeNode>()->fields;
        const auto& ys = b->as<TupleTypeNode>()->fields;
        if (xs.size() != ys.size()) {
          why = "tuples of " + std::to_string(xs.size()) + " and " + std::to_string(ys.size()) +
                " fields";
          return nullptr;
        }
        std::vector<Type> fields;
        for (size_t i = 0; i < xs.size(); ++i) {
          Type f = unify(xs[i], ys[i], why);
          if (!f) return nullptr;
          fields.push_back(f);
        }
        return tupleType(std::move(fields));
      }
      case TypeKind::kFunc: {
        const auto* x = a->as<FuncTypeNode>();
        const auto* y = b->as<FuncTypeNode>();
        if (x->argTypes.size() != y->argTypes.size()) {
          why = "functions of " + std::to_string(x->argTypes.size()) + " and " +
                std::to_string(y->argTypes.size()) + " parameters";
          return nullptr;
        }
        std::vector<Type> args;
        for (size_t i = 0; i < x->argTypes.size(); ++i) {
          Type t = unify(x->argTypes[i], y->argTypes[i], why);
          if (!t) return nullptr;
          args.push_back(t);
        }
        Type ret = unify(x->retType, y->retType, why);
        if (!ret) return nullptr;
        return funcType(std::move(args), ret);
      }
      case TypeKind::kIncomplete:
        break;
    }
    return a;
  }

 private:
  Type unifyTensors(const Type& a, const Type& b, std::string& why) {
    const auto* x = a->as<TensorTypeNode>();
    const auto* y = b->as<TensorTypeNode>();
    auto mismatch = [&] {
      why = typeToString(a) + " vs " + typeToString(b);
      return nullptr;
    };
    if (x->dtype != y->dtype || x->shape.size() != y->shape.size()) return mismatch();
    Shape shape;
    for (size_t i = 0; i < x->shape.size(); ++i) {
      const Dim& dx = x->shape[i];
      const Dim& dy = y->shape[i];
      if (dx == dy || dy.isAny())
        shape.push_back(dx);
      else if (dx.isAny())
        shape.push_back(dy);
      else
        return mismatch();
    }
    return tensorType(std::move(shape), x->dtype);
  }

  std::unordered_map<const TypeNode*, Type> bindings_;
};

class ModuleTypeInferencer {
 public:
  explicit ModuleTypeInferencer(const IRModule& module) : module_(module) {}

  IRModule run() {
    for (const auto& [name, fn] : module_.functions()) globalTypes_[name] = incompleteType();
    for (const auto& [name, fn] : module_.functions()) {
      currentFunction_ = name;
      Type t = generate(fn);
      unifyOrFail(globalTypes_[name], t, fn, "the type of @" + name);
    }
    solve();
    IRModule out;
    for (const auto& [name, fn] : module_.functions()) {
      auto rewritten = exprAs<FunctionNode>(writeBack(fn));
      TS_CHECK(rewritten);
      out.add(name, rewritten);
    }
    return out;
  }

  Expr runExpr(const Expr& e) {
    generate(e);
    solve();
    return writeBack(e);
  }

 private:
  [[noreturn]] void failAt(const Expr& e, const std::string& code, const std::string& message) {
    std::string context = exprSummary(e);
    if (!currentFunction_.empty()) context = "in @" + currentFunction_ + ", " + context;
    throw DiagnosticError(Diagnostic{
        .span = e->span, .code = code, .message = message, .context = context, .notes = {}});
  }

  Type unifyOrFail(const Type& a, const Type& b, const Expr& at, const std::string& what) {
    std::string why;
    Type t = solver_.unify(a, b, why);
    if (!t) failAt(at, "type_mismatch", what + " does not match: " + why);
    return t;
  }

  Type varType(const VarNode* v) {
    auto it = types_.find(v);
    if (it != types_.end()) return it->second;
    Type t = v->typeAnnotation ? v->typeAnnotation : incompleteType();
    types_[v] = t;
    return t;
  }

  // Constraint generation: one post-order walk assigns every node a (possibly incomplete) type.
  Type generate(const Expr& root) {
    postOrderVisit(root, [&](const Expr& e) { types_[e.get()] = typeOfNode(e); });
    return types_.at(root.get());
  }

  Type typeOfNode(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar:
        return varType(e->as<VarNode>());
      case ExprKind::kGlobalVar: {
        const std::string& name = e->as<GlobalVarNode>()->name;
        auto it = globalTypes_.find(name);
        if (it == globalTypes_.end())
          failAt(e, "unknown_global", "the module has no function named @" + name);
        return it->second;
      }
      case ExprKind::kConstant:
        return e->as<ConstantNode>()->declaredType;
      case ExprKind::kOp:
        return incompleteType();  // only meaningful as a callee
      case ExprKind::kCall:
        return callType(e);
      case ExprKind::kTuple: {
        std::vector<Type> fields;
        for (const Expr& f : e->as<TupleNode>()->fields) fields.push_back(types_.at(f.get()));
        return tupleType(std::move(fields));
      }
      case ExprKind::kTupleGetItem: {
        Type out = incompleteType();
        projections_.push_back({e, out});
        return out;
      }
      case ExprKind::kLet: {
        const auto* let = e->as<LetNode>();
        unifyOrFail(varType(let->var.get()), types_.at(let->value.get()), e,
                    "the value of let %" + let->var->nameHint);
        return types_.at(let->body.get());
      }
      case ExprKind::kIf: {
        const auto* node = e->as<IfNode>();
        unifyOrFail(types_.at(node->cond.get()), scalarType(DataType::boolType()), node->cond,
                    "the condition of if (it must be a bool scalar)");
        // The branches are joined once both are known (a `?` extent where they differ), so an
        // empty constant on one side and a data-dependent count on the other give `?`.
        Type out = incompleteType();
        joins_.push_back(
            {e, types_.at(node->thenBranch.get()), types_.at(node->elseBranch.get()), out});
        return out;
      }
      case ExprKind::kFunction: {
        const auto* fn = e->as<FunctionNode>();
        std::vector<Type> params;
        for (const Var& p : fn->params) params.push_back(varType(p.get()));
        Type body = types_.at(fn->body.get());
        if (fn->retType) body = unifyOrFail(fn->retType, body, e, "the function body's type");
        return funcType(std::move(params), body);
      }
    }
    return incompleteType();
  }

  Type callType(const Expr& e) {
    const auto* call = e->as<CallNode>();
    std::vector<Type> argTypes;
    for (const Expr& a : call->args) argTypes.push_back(types_.at(a.get()));
    if (const auto* op = call->op->as<OpNode>()) {
      const OpDef* def = op->def;
      if (argTypes.size() != def->args.size())
        failAt(e, "arity",
               def->name + " takes " + std::to_string(def->args.size()) + " arguments but " +
                   std::to_string(argTypes.size()) + " were given");
      TS_CHECK(def->typeRelation) << def->name << " has no type relation";
      Type out = incompleteType();
      pending_.push_back(PendingRelation{call, def, e->span, std::move(argTypes), out});
      return out;
    }
    if (Type declared = declaredCallType(*call, argTypes, e)) return declared;
    Type out = incompleteType();
    unifyOrFail(types_.at(call->op.get()), funcType(argTypes, out), e,
                "the callee's type and the arguments' types");
    return out;
  }

  // A call of a global function whose parameters and result are all annotated: each argument is
  // checked against its parameter, and the call has the declared result type. The function's
  // type itself is not unified with the call's, so a `?` dimension of a parameter stays `?`: a
  // recursive function carrying a growing tensor (an ONNX loop's scan output) is called with
  // (0, n), then (1, n), ... (TVM's unifier likewise keeps Any.)
  Type declaredCallType(const CallNode& call, const std::vector<Type>& argTypes, const Expr& e) {
    const auto* global = call.op->as<GlobalVarNode>();
    if (!global || !module_.has(global->name)) return nullptr;
    const Function& fn = module_.lookup(global->name);
    if (!fn->retType || !isCompleteType(fn->retType)) return nullptr;
    for (const Var& p : fn->params)
      if (!p->typeAnnotation || !isCompleteType(p->typeAnnotation)) return nullptr;
    if (argTypes.size() != fn->params.size())
      failAt(e, "arity",
             "@" + global->name + " takes " + std::to_string(fn->params.size()) +
                 " arguments but " + std::to_string(argTypes.size()) + " were given");
    for (size_t i = 0; i < argTypes.size(); ++i)
      unifyOrFail(fn->params[i]->typeAnnotation, argTypes[i], call.args[i],
                  "argument " + std::to_string(i) + " of @" + global->name);
    return fn->retType;
  }

  // Runs every pending relation whose inputs are known enough, until nothing changes.
  void solve() {
    // Each sweep keeps what could not be decided yet; compaction keeps a sweep linear in the number
    // of pending constraints (erasing one by one would be quadratic on long chains).
    bool progress = true;
    while (progress) {
      progress = false;
      std::vector<PendingJoin> joinsLeft;
      for (const PendingJoin& join : joins_) {
        if (solveJoin(join))
          progress = true;
        else
          joinsLeft.push_back(join);
      }
      joins_.swap(joinsLeft);
      std::vector<std::pair<Expr, Type>> projectionsLeft;
      for (const auto& projection : projections_) {
        if (solveProjection(projection))
          progress = true;
        else
          projectionsLeft.push_back(projection);
      }
      projections_.swap(projectionsLeft);
      std::vector<PendingRelation> pendingLeft;
      for (PendingRelation& relation : pending_) {
        if (solveRelation(relation))
          progress = true;
        else
          pendingLeft.push_back(std::move(relation));
      }
      pending_.swap(pendingLeft);
      // Branches that know their types only through each other (a recursive function's `if`)
      // are unified, as before joins existed, and solving goes on.
      if (!progress && !joins_.empty()) {
        for (const PendingJoin& join : joins_)
          unifyOrFail(join.out,
                      unifyOrFail(join.thenType, join.elseType, join.at, "the two branches of if"),
                      join.at, "the two branches of if");
        joins_.clear();
        progress = true;
      }
    }
    if (!pending_.empty()) {
      const PendingRelation& p = pending_.front();
      std::string unknown;
      for (size_t i = 0; i < p.argTypes.size(); ++i)
        if (!isCompleteType(solver_.fullyResolve(p.argTypes[i])))
          unknown += (unknown.empty() ? "" : ", ") + p.op->args[i];
      throw DiagnosticError(
          Diagnostic{.span = p.span,
                     .code = "infer",
                     .message = "unable to infer the type: the type of argument(s) " +
                                (unknown.empty() ? std::string("?") : unknown) + " is unknown",
                     .context = p.op->name,
                     .notes = {}});
    }
    if (!projections_.empty())
      failAt(projections_.front().first, "infer", "unable to infer the tuple's type");
  }

  // An if's type once both branches are known: their types where they agree, `?` where one
  // branch has a `?` extent and the other a constant. Branches of other types fail as unify does.
  bool solveJoin(const PendingJoin& join) {
    const Type a = solver_.fullyResolve(join.thenType);
    const Type b = solver_.fullyResolve(join.elseType);
    if (!isCompleteType(a) || !isCompleteType(b)) return false;
    Type joined = joinBranchTypes(a, b);
    if (!joined) joined = unifyOrFail(a, b, join.at, "the two branches of if");
    unifyOrFail(join.out, joined, join.at, "the two branches of if");
    return true;
  }

  bool solveProjection(const std::pair<Expr, Type>& projection) {
    const auto* item = projection.first->as<TupleGetItemNode>();
    Type tuple = solver_.resolve(types_.at(item->tuple.get()));
    if (tuple->kind == TypeKind::kIncomplete) return false;
    const auto* tt = tuple->as<TupleTypeNode>();
    if (!tt)
      failAt(projection.first, "type", "projection of a non-tuple of type " + typeToString(tuple));
    if (item->index < 0 || item->index >= static_cast<int>(tt->fields.size()))
      failAt(projection.first, "index",
             "index " + std::to_string(item->index) + " is out of range for a tuple of " +
                 std::to_string(tt->fields.size()) + " fields");
    unifyOrFail(projection.second, tt->fields[item->index], projection.first, "the projection");
    return true;
  }

  bool solveRelation(PendingRelation& p) {
    std::vector<Type> args;
    for (const Type& t : p.argTypes) args.push_back(solver_.fullyResolve(t));
    const OpDef* def = p.op;
    TypeReporter reporter(
        def->name, args, p.call->attrs.get(), p.span, [&](size_t i, const Type& t) {
          std::string why;
          if (!solver_.unify(p.argTypes.at(i), t, why))
            throw DiagnosticError(
                Diagnostic{.span = p.span,
                           .code = "type_mismatch",
                           .message = "argument '" + def->args.at(i) + "' has type " +
                                      typeToString(solver_.fullyResolve(p.argTypes[i])) + " but " +
                                      typeToString(t) + " is expected",
                           .context = def->name,
                           .notes = {}});
        });
    std::optional<Type> out = def->typeRelation(reporter);
    if (!out) return false;
    std::string why;
    if (!solver_.unify(p.outType, *out, why))
      throw DiagnosticError(Diagnostic{.span = p.span,
                                       .code = "type_mismatch",
                                       .message = "result type conflicts: " + why,
                                       .context = def->name,
                                       .notes = {}});
    return true;
  }

  // Rebuilds the expression with annotated variables and return types; sets checked types.
  Expr writeBack(const Expr& root) {
    std::unordered_map<const ExprNode*, Expr> replacedVars;
    Expr result = rewriteBottomUp(root, [&](const Expr& node, const std::vector<Expr>& kids) {
      Type t = solver_.fullyResolve(types_.at(node.get()));
      Expr out;
      if (const auto* v = node->as<VarNode>()) {
        if (!isCompleteType(t))
          failAt(node, "infer", "unable to infer the type of %" + v->nameHint);
        out = v->typeAnnotation ? node : makeVar(v->nameHint, t, v->span);
      } else if (const auto* fn = node->as<FunctionNode>(); fn && !fn->retType) {
        std::vector<Var> params;
        for (size_t i = 0; i + 1 < kids.size(); ++i) params.push_back(exprAs<VarNode>(kids[i]));
        out = makeFunction(std::move(params), kids.back(), t->as<FuncTypeNode>()->retType,
                           fn->attrs, fn->span);
      } else {
        out = withChildren(node, kids);
      }
      if (node->kind != ExprKind::kOp) {
        if (!isCompleteType(t)) failAt(node, "infer", "unable to infer the type");
        out->checkedType = t;
      }
      return out;
    });
    return result;
  }

  const IRModule& module_;
  TypeSolver solver_;
  std::unordered_map<const ExprNode*, Type> types_;
  std::unordered_map<std::string, Type> globalTypes_;
  std::vector<PendingRelation> pending_;
  std::vector<std::pair<Expr, Type>> projections_;
  std::vector<PendingJoin> joins_;
  std::string currentFunction_;
};

}  // namespace

Type joinBranchTypes(const Type& a, const Type& b) {
  if (a->kind != b->kind) return nullptr;
  if (const auto* x = a->as<TensorTypeNode>()) {
    const auto* y = b->as<TensorTypeNode>();
    if (x->dtype != y->dtype || x->shape.size() != y->shape.size()) return nullptr;
    Shape shape;
    for (size_t i = 0; i < x->shape.size(); ++i) {
      const Dim &dx = x->shape[i], &dy = y->shape[i];
      if (!(dx == dy) && !dx.isAny() && !dy.isAny()) return nullptr;
      shape.push_back(dx == dy ? dx : Dim::any());
    }
    return tensorType(std::move(shape), x->dtype);
  }
  if (const auto* x = a->as<TupleTypeNode>()) {
    const auto* y = b->as<TupleTypeNode>();
    if (x->fields.size() != y->fields.size()) return nullptr;
    std::vector<Type> fields;
    for (size_t i = 0; i < x->fields.size(); ++i) {
      Type f = joinBranchTypes(x->fields[i], y->fields[i]);
      if (!f) return nullptr;
      fields.push_back(std::move(f));
    }
    return tupleType(std::move(fields));
  }
  return nullptr;
}

IRModule inferTypes(const IRModule& module) {
  return ModuleTypeInferencer(module).run();
}

Expr inferExprTypes(const Expr& e) {
  return ModuleTypeInferencer(IRModule()).runExpr(e);
}

}  // namespace tessera::relay
