#include "relay/interp/interpreter.h"

#include <algorithm>
#include <unordered_map>

#include "relay/module.h"
#include "relay/op/op_common.h"
#include "relay/op_registry.h"
#include "relay/type_infer.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay {

namespace {

using Env = std::unordered_map<const VarNode*, Value>;

// Calls between functions recurse in C++; bodies are evaluated iteratively. This bounds the
// recursion a (recursive) program can cause.
constexpr int kMaxCallDepth = 512;

std::string describeValue(const Value& v) {
  if (v.isTensor()) return v.tensor().describe();
  if (v.isTuple()) return "a tuple of " + std::to_string(v.fields().size()) + " values";
  return "a function";
}

// Checks that a value matches a (complete) type: dtype, rank and static dims.
bool valueMatchesType(const Value& v, const Type& t) {
  if (!t) return true;
  if (const auto* tt = t->as<TensorTypeNode>()) {
    if (!v.isTensor()) return false;
    const NDArray& a = v.tensor();
    if (a.dtype() != tt->dtype || a.ndim() != tt->ndim()) return false;
    for (int i = 0; i < a.ndim(); ++i)
      if (tt->shape[i].isConst() && tt->shape[i].value() != a.shape()[i]) return false;
    return true;
  }
  if (const auto* tt = t->as<TupleTypeNode>()) {
    if (!v.isTuple() || v.fields().size() != tt->fields.size()) return false;
    for (size_t i = 0; i < tt->fields.size(); ++i)
      if (!valueMatchesType(v.fields()[i], tt->fields[i])) return false;
    return true;
  }
  return v.isClosure();
}

// True when every dim of the (tensor or tuple) type is a known extent.
bool isStaticType(const Type& t) {
  if (const auto* tt = t ? t->as<TensorTypeNode>() : nullptr)
    return staticShape(tt->shape).has_value();
  if (const auto* tt = t ? t->as<TupleTypeNode>() : nullptr)
    return std::all_of(tt->fields.begin(), tt->fields.end(), isStaticType);
  return false;
}

class Evaluator {
 public:
  explicit Evaluator(const IRModule* module) : module_(module) {}

  // A call in tail position (the body itself, a branch of an `if` there, a `let`'s body there)
  // of a function value is not made by evalBody but handed back, and made here in place of the
  // finished call: a loop written as tail recursion runs in constant depth.
  struct TailCall {
    std::shared_ptr<const ClosureData> closure;
    std::vector<Value> args;
    std::string name;
  };

  Value callFunction(const FunctionNode& entry, std::vector<Value> args, Env env,
                     std::string name) {
    if (++depth_ > kMaxCallDepth) {
      --depth_;
      throwDiagnostic("call_depth",
                      "function calls nest deeper than " + std::to_string(kMaxCallDepth));
    }
    const FunctionNode* fn = &entry;
    std::shared_ptr<const ClosureData> keepAlive;
    Value result;
    while (true) {
      bindParams(*fn, args, env, name);
      std::optional<TailCall> tail;
      result = evalBody(fn->body, env, &tail);
      if (!tail) break;
      keepAlive = std::move(tail->closure);
      fn = keepAlive->function.get();
      env.clear();
      for (const auto& [var, value] : keepAlive->captured) env[var] = value;
      args = std::move(tail->args);
      name = std::move(tail->name);
    }
    --depth_;
    return result;
  }

  void bindParams(const FunctionNode& fn, const std::vector<Value>& args, Env& env,
                  const std::string& name) {
    if (args.size() != fn.params.size())
      throwDiagnostic("arity", name + " takes " + std::to_string(fn.params.size()) +
                                   " arguments but " + std::to_string(args.size()) + " were given");
    for (size_t i = 0; i < args.size(); ++i) {
      const Var& p = fn.params[i];
      const Type& expected = p->typeAnnotation ? p->typeAnnotation : p->checkedType;
      if (!valueMatchesType(args[i], expected))
        throwDiagnostic("input", "argument %" + p->nameHint + " of " + name + " expects " +
                                     typeToString(expected) + " but got " + describeValue(args[i]));
      env[p.get()] = args[i];
    }
  }

  // Evaluates an expression under `env` with an explicit stack. Each frame has a phase: 0 =
  // children not yet scheduled, 1 = scheduled, 2 = (let/if) the chosen continuation was scheduled.
  // With `tail`, a function call in tail position is handed back there instead of made.
  Value evalBody(const Expr& root, Env& env, std::optional<TailCall>* tail = nullptr) {
    std::unordered_map<const ExprNode*, Value> memo;
    struct Frame {
      Expr expr;
      int phase = 0;
      bool tail = false;
    };
    std::vector<Frame> stack{{root, 0, tail != nullptr}};
    auto need = [&](const Expr& e, bool inTail = false) {
      if (!memo.count(e.get())) stack.push_back({e, 0, inTail});
    };
    while (!stack.empty()) {
      Frame& frame = stack.back();
      const Expr e = frame.expr;
      if (memo.count(e.get())) {
        stack.pop_back();
        continue;
      }
      if (frame.phase == 0) {
        frame.phase = 1;
        scheduleChildren(e, need);
        continue;
      }
      if (const auto* let = e->as<LetNode>()) {
        if (frame.phase == 1) {
          frame.phase = 2;
          env[let->var.get()] = memo.at(let->value.get());
          need(let->body, frame.tail);
          continue;
        }
        memo[e.get()] = memo.at(let->body.get());
        stack.pop_back();
        continue;
      }
      if (const auto* node = e->as<IfNode>()) {
        const Expr& branch =
            condition(memo.at(node->cond.get())) ? node->thenBranch : node->elseBranch;
        if (frame.phase == 1) {
          frame.phase = 2;
          need(branch, frame.tail);
          continue;
        }
        memo[e.get()] = memo.at(branch.get());
        stack.pop_back();
        continue;
      }
      const bool inTail = frame.tail;
      memo[e.get()] = compute(e, memo, env, inTail ? tail : nullptr);
      stack.pop_back();
    }
    return memo.at(root.get());
  }

 private:
  template <typename Need>
  static void scheduleChildren(const Expr& e, Need& need) {
    switch (e->kind) {
      case ExprKind::kCall: {
        const auto* call = e->as<CallNode>();
        // Push in reverse so arguments evaluate left to right.
        for (size_t i = call->args.size(); i-- > 0;) need(call->args[i]);
        if (call->op->kind != ExprKind::kOp) need(call->op);
        return;
      }
      case ExprKind::kTuple: {
        const auto& fields = e->as<TupleNode>()->fields;
        for (size_t i = fields.size(); i-- > 0;) need(fields[i]);
        return;
      }
      case ExprKind::kTupleGetItem:
        need(e->as<TupleGetItemNode>()->tuple);
        return;
      case ExprKind::kLet:
        need(e->as<LetNode>()->value);
        return;
      case ExprKind::kIf:
        need(e->as<IfNode>()->cond);
        return;
      case ExprKind::kVar:
      case ExprKind::kGlobalVar:
      case ExprKind::kConstant:
      case ExprKind::kOp:
      case ExprKind::kFunction:
        return;
    }
  }

  static bool condition(const Value& v) {
    TS_CHECK(v.isTensor() && v.tensor().numel() == 1) << "if condition is not a scalar";
    return v.tensor().getInt(0) != 0;
  }

  Value compute(const Expr& e, const std::unordered_map<const ExprNode*, Value>& memo, Env& env,
                std::optional<TailCall>* tail) {
    switch (e->kind) {
      case ExprKind::kVar: {
        auto it = env.find(e->as<VarNode>());
        if (it == env.end())
          throwDiagnostic("unbound", "variable %" + e->as<VarNode>()->nameHint + " has no value",
                          e->span);
        return it->second;
      }
      case ExprKind::kConstant: {
        const auto* c = e->as<ConstantNode>();
        if (!c->hasData())
          throwDiagnostic("missing_constant",
                          "the constant of type " + typeToString(c->declaredType) +
                              " has no value (the text had no metadata section); supply the "
                              "module with its #[metadata] section to run it",
                          e->span);
        return c->data;
      }
      case ExprKind::kGlobalVar:
      case ExprKind::kFunction:
        return makeClosure(e, env);
      case ExprKind::kOp:
        throwDiagnostic("unsupported", "an operator used as a value must be called", e->span);
      case ExprKind::kCall:
        return evalCall(e, memo, env, tail);
      case ExprKind::kTuple: {
        std::vector<Value> fields;
        for (const Expr& f : e->as<TupleNode>()->fields) fields.push_back(memo.at(f.get()));
        return Value::tuple(std::move(fields));
      }
      case ExprKind::kTupleGetItem: {
        const auto* item = e->as<TupleGetItemNode>();
        const Value& t = memo.at(item->tuple.get());
        TS_CHECK(t.isTuple() && item->index >= 0 &&
                 item->index < static_cast<int>(t.fields().size()));
        return t.fields()[item->index];
      }
      case ExprKind::kLet:
      case ExprKind::kIf:
        break;
    }
    TS_CHECK(false) << "unreachable expression kind";
    return {};
  }

  Value makeClosure(const Expr& e, const Env& env) {
    auto closure = std::make_shared<ClosureData>();
    if (const auto* g = e->as<GlobalVarNode>()) {
      TS_CHECK(module_) << "global @" << g->name << " outside a module";
      closure->function = module_->lookup(g->name);
      return Value::closure(closure);
    }
    closure->function = exprAs<FunctionNode>(e);
    auto& fv = freeVarCache_[e.get()];
    if (!fv) fv = std::make_shared<std::vector<Var>>(freeVars(e));
    for (const Var& v : *fv) {
      auto it = env.find(v.get());
      if (it != env.end()) closure->captured.emplace_back(v.get(), it->second);
    }
    return Value::closure(closure);
  }

  Value evalCall(const Expr& e, const std::unordered_map<const ExprNode*, Value>& memo, Env& env,
                 std::optional<TailCall>* tail) {
    const auto* call = e->as<CallNode>();
    std::vector<Value> args;
    args.reserve(call->args.size());
    for (const Expr& a : call->args) args.push_back(memo.at(a.get()));
    if (const auto* op = call->op->as<OpNode>()) {
      if (!op->def->kernel)
        throwDiagnostic("no_kernel", "has no reference kernel", e->span, op->name);
      try {
        // Downstream of a data-dependent shape (argwhere, unique) the static type has `?` dims;
        // the relation, given the actual argument shapes, gives the extents the kernel needs.
        if (!isStaticType(e->type())) {
          std::vector<Type> argTypes;
          for (const Value& a : args) argTypes.push_back(valueType(a));
          return op->def->kernel(args, call->attrs.get(),
                                 inferCallType(op->name, argTypes, call->attrs));
        }
        return op->def->kernel(args, call->attrs.get(), e->type());
      } catch (DiagnosticError& err) {
        Diagnostic d = err.diagnostic();
        if (!d.span.defined()) d.span = e->span;
        if (d.context.empty()) d.context = op->name;
        throw DiagnosticError(d);
      }
    }
    const Value& callee = memo.at(call->op.get());
    TS_CHECK(callee.isClosure()) << "call of a non-function value";
    std::string name = "function";
    if (const auto* g = call->op->as<GlobalVarNode>()) name = "@" + g->name;
    if (tail) {
      *tail = TailCall{callee.closure(), std::move(args), std::move(name)};
      return {};
    }
    const ClosureData& c = *callee.closure();
    Env inner;
    for (const auto& [var, value] : c.captured) inner[var] = value;
    return callFunction(*c.function, std::move(args), std::move(inner), std::move(name));
  }

  const IRModule* module_;
  int depth_ = 0;
  std::unordered_map<const ExprNode*, std::shared_ptr<std::vector<Var>>> freeVarCache_;
};

}  // namespace

Interpreter::Interpreter(IRModule module) : module_(inferTypes(module)) {}

Value Interpreter::call(const std::string& name, const std::vector<Value>& args) {
  Evaluator evaluator(&module_);
  const Function& fn = module_.lookup(name);
  return evaluator.callFunction(*fn, args, Env{}, "@" + name);
}

Value evaluateClosed(const Expr& e) {
  Expr typed = inferExprTypes(e);
  Evaluator evaluator(nullptr);
  Env env;
  return evaluator.evalBody(typed, env);
}

}  // namespace tessera::relay
