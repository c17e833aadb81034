// The compiled-path evaluator behind the op differential tests.
#include "te_ops_util.h"

#include <unordered_map>

#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "lower/relay/lower_primitive.h"
#include "relay/interp/interpreter.h"
#include "relay/op/op_common.h"
#include "relay/op_registry.h"
#include "relay/strategy/strategy.h"
#include "relay/text/parser.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "runtime/graph_executor/graph_executor.h"
#include "test_util.h"
#include "tir/eval/eval.h"

namespace tessera::test {
namespace {

using relay::Expr;
using relay::Value;

void flatten(const Value& v, std::vector<NDArray>& out) {
  if (v.isTensor()) {
    out.push_back(v.tensor());
    return;
  }
  for (const Value& f : v.fields()) flatten(f, out);
}

// Fresh outputs for a (possibly tuple) type; `arrays` receives them in order.
Value allocate(const Type& t, std::vector<NDArray>& arrays) {
  if (const auto* tuple = t->as<TupleTypeNode>()) {
    std::vector<Value> fields;
    for (const Type& f : tuple->fields) fields.push_back(allocate(f, arrays));
    return Value::tuple(fields);
  }
  const auto* tt = t->as<TensorTypeNode>();
  NDArray a = NDArray::empty(relay::staticDims(t), tt->dtype);
  arrays.push_back(a);
  return Value(a);
}

Value callLowered(const relay::Function& fn, const std::vector<Value>& args) {
  lower::LoweredFunction lowered = lower::lowerPrimitive(fn);
  std::vector<NDArray> arrays;
  for (const Value& a : args) flatten(a, arrays);
  arrays.insert(arrays.end(), lowered.constants.begin(), lowered.constants.end());
  Value result = allocate(fn->body->checkedType, arrays);
  tir::evaluate(lowered.func, arrays);
  return result;
}

// A bare op call as a one-call primitive function over fresh typed parameters.
relay::Function wrapOpCall(const relay::CallNode& call, const std::vector<Value>& args) {
  std::vector<relay::Var> params;
  std::vector<Expr> callArgs;
  for (size_t i = 0; i < args.size(); ++i) {
    params.push_back(relay::makeVar("p" + std::to_string(i), relay::valueType(args[i])));
    callArgs.push_back(params.back());
  }
  Expr body = relay::makeCall(call.op, callArgs, call.attrs);
  auto fn =
      relay::exprAs<relay::FunctionNode>(relay::inferExprTypes(relay::makeFunction(params, body)));
  return fn;
}

Value eval(const Expr& e, std::unordered_map<const relay::ExprNode*, Value>& env) {
  if (auto it = env.find(e.get()); it != env.end()) return it->second;
  Value v;
  if (const auto* c = e->as<relay::ConstantNode>()) {
    v = Value(c->data);
  } else if (const auto* t = e->as<relay::TupleNode>()) {
    std::vector<Value> fields;
    for (const Expr& f : t->fields) fields.push_back(eval(f, env));
    v = Value::tuple(fields);
  } else if (const auto* g = e->as<relay::TupleGetItemNode>()) {
    v = eval(g->tuple, env).fields().at(static_cast<size_t>(g->index));
  } else if (const auto* call = e->as<relay::CallNode>()) {
    std::vector<Value> args;
    for (const Expr& a : call->args) args.push_back(eval(a, env));
    if (auto fn = relay::exprAs<relay::FunctionNode>(call->op))
      v = callLowered(fn, args);
    else
      v = callLowered(wrapOpCall(*call, args), args);
  } else {
    ADD_FAILURE() << "unexpected node in fused main: " << relay::exprSummary(e);
  }
  env[e.get()] = v;
  return v;
}

}  // namespace

Value runLowered(const relay::IRModule& fused, const std::vector<Value>& inputs) {
  const relay::Function& main = fused.main();
  std::unordered_map<const relay::ExprNode*, Value> env;
  for (size_t i = 0; i < main->params.size(); ++i) env[main->params[i].get()] = inputs.at(i);
  return eval(main->body, env);
}

std::vector<Value> rangedInputs(const relay::IRModule& m, uint64_t seed, double lo, double hi) {
  std::vector<Value> out;
  uint64_t k = 0;
  for (const relay::Var& p : m.main()->params) {
    const auto* t = p->checkedType->as<TensorTypeNode>();
    const double l = t->dtype.isBool() ? 0 : lo, h = t->dtype.isBool() ? 2 : hi;
    out.emplace_back(
        randomTensor(relay::staticDims(p->checkedType), t->dtype, seed * 31 + k++, l, h));
  }
  return out;
}

::testing::AssertionResult matchesInterpreter(const OpCase& c) {
  const relay::IRModule m = relay::inferTypes(relay::parseModule(c.text));
  relay::PassContext ctx;
  ctx.optLevel = 2;
  const relay::IRModule fused = relay::inferTypes((*relay::fuseOpsPass())(m, ctx));
  relay::Interpreter interp(m);
  for (uint64_t seed : {1u, 2u}) {
    std::vector<Value> inputs = rangedInputs(m, seed, c.lo, c.hi);
    Value expect = interp.run(inputs);
    Value got = runLowered(fused, inputs);
    ::testing::AssertionResult r = valuesClose(got, expect, c.rtol, c.atol);
    if (!r) return r << " (seed " << seed << ")";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult compiledMatchesInterpreter(const OpCase& c, bool plainLoops) {
  const relay::IRModule m = relay::inferTypes(relay::parseModule(c.text));
  driver::BuildOptions options;
  if (plainLoops) options = {.optLevel = 0, .defaultSchedules = false};
  const driver::Built built = driver::build(m, codegen::hostTarget(), {}, options);
  runtime::GraphExecutor executor(built.model());
  relay::Interpreter interp(m);
  for (uint64_t seed : {1u, 2u}) {
    std::vector<Value> inputs = rangedInputs(m, seed, c.lo, c.hi);
    Value expect = interp.run(inputs);
    for (size_t i = 0; i < inputs.size(); ++i)
      executor.setInput(static_cast<int>(i), inputs[i].tensor());
    executor.run();
    std::vector<NDArray> expected;
    flatten(expect, expected);
    if (static_cast<size_t>(executor.numOutputs()) != expected.size())
      return ::testing::AssertionFailure()
             << executor.numOutputs() << " compiled outputs, " << expected.size() << " expected";
    for (size_t i = 0; i < expected.size(); ++i) {
      ::testing::AssertionResult r = valuesClose(Value(executor.getOutput(static_cast<int>(i))),
                                                 Value(expected[i]), c.rtol, c.atol);
      if (!r) return r << " (output " << i << ", seed " << seed << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<std::string> opsCalled(const std::string& text) {
  std::vector<std::string> ops;
  const relay::IRModule m = relay::parseModule(text);
  relay::postOrderVisit(m.main()->body, [&](const Expr& e) {
    const auto* call = e->as<relay::CallNode>();
    const auto* op = call ? call->op->as<relay::OpNode>() : nullptr;
    if (op) ops.push_back(op->name);
  });
  return ops;
}

}  // namespace tessera::test
