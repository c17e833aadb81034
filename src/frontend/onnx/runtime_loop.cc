// convertRuntimeLoop: the body is converted once with fresh variables as its inputs; what it
// computes without them is hoisted out as the function's extra parameters.
#include "frontend/onnx/runtime_loop.h"

#include <unordered_map>
#include <unordered_set>

#include "relay/op/tensor.h"
#include "relay/visit.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

// A one-element tensor (ONNX allows shape [1]) as the scalar Relay's `if` and the parameters take.
Expr asScalar(const NodeContext& n, const Expr& e, DataType dtype, const std::string& what) {
  if (n.dtypeOf(e) != dtype)
    n.fail("onnx_input",
           what + " must be " + dtype.name() + " but has type " + typeToString(n.typeOf(e)));
  const std::vector<int64_t> shape = n.shapeOf(e);
  if (extentProduct(shape, 0, shape.size()) != 1)
    n.fail("onnx_input", what + " must hold one value but has type " + typeToString(n.typeOf(e)));
  return shape.empty() ? e : relay::reshape(e, {});
}

// The values the body computes without any of the loop's parameters, taken out: the outermost
// such tensors become parameters (constants stay in place). `roots` are rewritten in place.
struct Hoisted {
  std::vector<relay::Var> params;
  std::vector<Expr> values;  ///< what the caller passes for them, in order
};

Hoisted hoistInvariants(const NodeContext& n, std::vector<Expr>& roots,
                        const std::vector<relay::Var>& loopParams) {
  std::unordered_set<const relay::ExprNode*> variant;
  for (const relay::Var& p : loopParams) variant.insert(p.get());
  const Expr all = relay::makeTuple(roots);
  relay::postOrderVisit(all, [&](const Expr& e) {
    for (const Expr& child : relay::exprChildren(e))
      if (child && variant.count(child.get())) variant.insert(e.get());
  });
  Hoisted hoisted;
  std::unordered_map<const relay::ExprNode*, Expr> replace;
  std::unordered_set<const relay::ExprNode*> seen;
  std::vector<Expr> stack{all};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (!e || !seen.insert(e.get()).second) continue;
    const bool capturable = e->kind == relay::ExprKind::kVar || e->kind == relay::ExprKind::kCall ||
                            e->kind == relay::ExprKind::kTupleGetItem;
    if (!variant.count(e.get()) && capturable && n.typeOf(e)->as<TensorTypeNode>()) {
      relay::Var v =
          relay::makeVar("invariant" + std::to_string(hoisted.params.size()), n.typeOf(e));
      replace[e.get()] = v;
      hoisted.params.push_back(v);
      hoisted.values.push_back(e);
      continue;
    }
    for (const Expr& child : relay::exprChildren(e)) stack.push_back(child);
  }
  const Expr rewritten = relay::replaceNodes(all, replace);
  roots = rewritten->as<relay::TupleNode>()->fields;
  return hoisted;
}

// A scan output's elements are stacked along a new first axis whose length is the run-time trip
// count: the loop carries each as an accumulator of type (?, element shape...), starting empty and
// growing by one row per iteration. Values of such types run on the reference interpreter.
Type scanAccumulatorType(const NodeContext& n, const Expr& element, size_t j) {
  const auto* t = n.typeOf(element)->as<TensorTypeNode>();
  if (!t)
    n.fail("onnx_loop", "scan output " + std::to_string(j) + " of the body is not a tensor (" +
                            typeToString(n.typeOf(element)) + ")");
  Shape shape{Dim::any()};
  shape.insert(shape.end(), t->shape.begin(), t->shape.end());
  return tensorType(std::move(shape), t->dtype);
}

NDArray emptyRows(const NodeContext& n, const Expr& element) {
  std::vector<int64_t> shape{0};
  for (int64_t d : n.shapeOf(element)) shape.push_back(d);
  return NDArray::empty(shape, n.dtypeOf(element));
}

}  // namespace

void convertRuntimeLoop(NodeContext& n, const ::onnx::GraphProto& body, size_t carried,
                        size_t scans) {
  const bool hasM = n.hasInput(0), hasCond = n.hasInput(1);
  const relay::Var iter = relay::makeVar("iter", scalarType(DataType::int64()));
  std::vector<relay::Var> params{iter};
  relay::Var maxTrips, cond;
  if (hasM)
    params.push_back(maxTrips = relay::makeVar("max_trip_count", scalarType(DataType::int64())));
  if (hasCond) params.push_back(cond = relay::makeVar("cond", scalarType(DataType::boolType())));
  std::vector<relay::Var> state;
  std::vector<Type> stateTypes;
  for (size_t k = 0; k < carried; ++k) {
    stateTypes.push_back(n.typeOf(n.input(k + 2)));
    state.push_back(relay::makeVar("v" + std::to_string(k), stateTypes.back()));
    params.push_back(state.back());
  }
  GraphContext& graph = n.graph();
  const std::string name = graph.declareFunction("onnx_loop", tupleType(stateTypes));

  std::vector<Expr> bodyInputs{iter,
                               hasCond ? Expr(cond) : scalarConstant(1, DataType::boolType())};
  bodyInputs.insert(bodyInputs.end(), state.begin(), state.end());
  std::vector<Expr> out = n.convertSubgraph(body, bodyInputs, "body");
  out.resize(1 + carried + scans);  // the body's output count was checked by the caller
  for (size_t k = 0; k < carried; ++k)
    if (!typeEqual(n.typeOf(out[1 + k]), stateTypes[k]))
      n.fail("onnx_loop", "loop-carried value " + std::to_string(k) + " changes type from " +
                              typeToString(stateTypes[k]) + " to " +
                              typeToString(n.typeOf(out[1 + k])) +
                              " in the body; a loop over run-time data keeps each value's type");
  std::vector<relay::Var> accumulators;
  std::vector<Expr> initialRows;
  for (size_t j = 0; j < scans; ++j) {
    const Expr& element = out[1 + carried + j];
    stateTypes.push_back(scanAccumulatorType(n, element, j));
    accumulators.push_back(relay::makeVar("scan" + std::to_string(j), stateTypes.back()));
    initialRows.push_back(relay::makeConstant(emptyRows(n, element)));
  }
  const Type retType = tupleType(stateTypes);
  graph.setReturnType(name, retType);
  params.insert(params.end(), accumulators.begin(), accumulators.end());
  if (hasCond)
    out[0] = asScalar(n, out[0], DataType::boolType(), "the body's condition output");
  else
    out.erase(out.begin());  // ignored without the cond input (ONNX's "for loop" form)
  const Hoisted hoisted = hoistInvariants(n, out, params);
  // Each scan output becomes its accumulator with the new row appended.
  const size_t firstScan = out.size() - scans;
  for (size_t j = 0; j < scans; ++j)
    out[firstScan + j] =
        relay::concatenate({accumulators[j], relay::expandDims(out[firstScan + j], 0)}, 0);

  // if (go on) { @loop(iter + 1, ..., body outputs, grown accumulators, invariants) }
  // else { (v..., accumulators...) }
  std::vector<Expr> next{relay::add(iter, scalarConstant(1, DataType::int64()))};
  if (hasM) next.push_back(maxTrips);
  next.insert(next.end(), out.begin(), out.end());
  next.insert(next.end(), hoisted.params.begin(), hoisted.params.end());
  Expr goOn;
  if (hasM) goOn = relay::less(iter, maxTrips);
  if (hasCond) goOn = goOn ? relay::logicalAnd(goOn, cond) : Expr(cond);
  const Expr recurse = relay::makeCall(relay::makeGlobalVar(name), next);
  std::vector<Expr> finalValues(state.begin(), state.end());
  finalValues.insert(finalValues.end(), accumulators.begin(), accumulators.end());
  const Expr done = relay::makeTuple(finalValues);
  params.insert(params.end(), hoisted.params.begin(), hoisted.params.end());
  graph.defineFunction(name,
                       relay::makeFunction(params, relay::makeIf(goOn, recurse, done), retType));

  std::vector<Expr> args{scalarConstant(0, DataType::int64())};
  if (hasM) args.push_back(asScalar(n, n.input(0), DataType::int64(), "the trip count M"));
  if (hasCond) args.push_back(asScalar(n, n.input(1), DataType::boolType(), "the condition cond"));
  for (size_t k = 0; k < carried; ++k) args.push_back(n.input(k + 2));
  args.insert(args.end(), initialRows.begin(), initialRows.end());
  args.insert(args.end(), hoisted.values.begin(), hoisted.values.end());
  const Expr call = relay::makeCall(relay::makeGlobalVar(name), args);
  for (size_t k = 0; k < n.numOutputs() && k < carried + scans; ++k)
    n.setOutput(k, relay::makeTupleGetItem(call, static_cast<int>(k)));
}

}  // namespace tessera::frontend::onnx
