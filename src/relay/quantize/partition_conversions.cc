// partition_conversions (relay/quantize/partition_conversions.h), cutting where TVM 0.16's
// _partition_conversions.py does (PrefixCutter, SuffixCutter).
#include "relay/quantize/partition_conversions.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

constexpr const char* kCode = "quantize_partition";

bool isConversionOp(const Expr& callee) {
  static const std::unordered_set<std::string> kOps = {"add",  "multiply", "right_shift",
                                                       "clip", "round",    "cast"};
  const auto* op = callee ? callee->as<OpNode>() : nullptr;
  return op && kOps.count(op->name) > 0;
}

const std::string& opNameOf(const CallNode& call) {
  static const std::string none;
  const auto* op = call.op->as<OpNode>();
  return op ? op->name : none;
}

// Whether every tensor in `type` has one of `dtypes`.
bool hasQuantizedDtype(const Type& type, const std::vector<DataType>& dtypes) {
  if (!type) return false;
  if (const auto* t = type->as<TensorTypeNode>())
    return std::find(dtypes.begin(), dtypes.end(), t->dtype) != dtypes.end();
  if (const auto* t = type->as<TupleTypeNode>()) {
    for (const Type& f : t->fields)
      if (!hasQuantizedDtype(f, dtypes)) return false;
    return !t->fields.empty();
  }
  return false;
}

// The prefix, as TVM cuts it: every value computed from exactly one input by conversion ops alone
// that something else reads (an op that is not a conversion, a tuple, the result) ends the prefix
// there; an input read directly is such a value too.
struct Prefix {
  std::vector<Expr> cuts;      ///< in post order
  std::vector<Var> cutInputs;  ///< the input each cut converts
};

Prefix findPrefix(const Function& main) {
  std::unordered_map<const ExprNode*, Var> params;
  for (const Var& p : main->params) params[p.get()] = p;
  // For each conversion-only node, the one input it depends on (null: constants only).
  std::unordered_map<const ExprNode*, const ExprNode*> inputOf;
  const std::vector<Expr> nodes = postOrder(main->body);
  for (const Expr& e : nodes) {
    if (e->as<ConstantNode>()) {
      inputOf[e.get()] = nullptr;
    } else if (params.count(e.get())) {
      inputOf[e.get()] = e.get();
    } else if (const auto* call = e->as<CallNode>(); call && isConversionOp(call->op)) {
      const ExprNode* input = nullptr;
      bool ok = true;
      for (const Expr& a : call->args) {
        auto it = inputOf.find(a.get());
        if (it == inputOf.end() || (it->second && input && it->second != input)) {
          ok = false;  // not a conversion, or two inputs meet
          break;
        }
        if (it->second) input = it->second;
      }
      if (ok) inputOf[e.get()] = input;
    }
  }
  Prefix prefix;
  std::unordered_set<const ExprNode*> cut;
  auto consider = [&](const Expr& c) {
    auto it = inputOf.find(c.get());
    if (it == inputOf.end() || !it->second || !cut.insert(c.get()).second) return;
    prefix.cuts.push_back(c);
    prefix.cutInputs.push_back(params.at(it->second));
  };
  for (const Expr& e : nodes) {
    if (inputOf.count(e.get()) || e->as<OpNode>()) continue;
    for (const Expr& c : exprChildren(e)) consider(c);
  }
  consider(main->body);
  return prefix;
}

// The suffix, as TVM cuts it: from the result down to the values of a quantized dtype, whatever
// computes on the way (an input reached on the way passes through @quantized_main too).
void findSuffixCuts(const Expr& e, const std::vector<DataType>& dtypes,
                    std::unordered_set<const ExprNode*>& seen, std::vector<Expr>& cuts) {
  if (!seen.insert(e.get()).second || e->as<ConstantNode>() || e->as<OpNode>()) return;
  if (hasQuantizedDtype(e->checkedType, dtypes) || e->as<VarNode>()) {
    cuts.push_back(e);
    return;
  }
  for (const Expr& c : exprChildren(e)) findSuffixCuts(c, dtypes, seen, cuts);
}

// A value of @quantized_main outside `dtypes`, as a diagnostic: the first op that is not a
// conversion (the float op the conversions around it serve), else the first conversion.
void requireFullyIntegral(const Function& quantizedMain, const std::vector<DataType>& dtypes) {
  Expr found;
  for (const Expr& e : postOrder(quantizedMain->body)) {
    if (e->as<OpNode>() || e->as<FunctionNode>() || e->as<TupleNode>() || e->as<ConstantNode>() ||
        hasQuantizedDtype(e->checkedType, dtypes))
      continue;
    const auto* call = e->as<CallNode>();
    if (!found) found = e;
    if (call && !isConversionOp(call->op)) {
      found = e;
      break;
    }
  }
  if (!found) return;
  const auto* call = found->as<CallNode>();
  const auto* input = found->as<VarNode>();
  const std::string what = call    ? "'" + opNameOf(*call) + "'"
                           : input ? "its input %" + input->nameHint
                                   : exprSummary(found);
  throwDiagnostic(kCode,
                  "partition_conversions=\"fully_integral\": @quantized_main is not fully "
                  "integral: " +
                      what + (input ? " is " : " computes ") +
                      (found->checkedType ? typeToString(found->checkedType) : "?") +
                      " (an op left in float by the quantization rules, or a skipped layer)",
                  found->span, "@quantized_main");
}

}  // namespace

IRModule partitionConversions(const IRModule& module, const std::vector<DataType>& dtypes,
                              bool fullyIntegral) {
  if (module.functions().size() != 1)
    throwDiagnostic(kCode, "partition_conversions needs a module whose only function is @main");
  const IRModule typed = inferTypes(module);
  const Function& main = typed.main();
  const Prefix prefix = findPrefix(main);

  // @quantize_inputs: the original inputs -> a tuple of the cuts.
  std::vector<Expr> prefixOutputs(prefix.cuts.begin(), prefix.cuts.end());
  std::vector<Var> midParams;
  std::unordered_map<const ExprNode*, Expr> byMid;
  for (size_t i = 0; i < prefix.cuts.size(); ++i) {
    Var v = makeVar(prefix.cutInputs[i]->nameHint, prefix.cuts[i]->checkedType);
    midParams.push_back(v);
    byMid[prefix.cuts[i].get()] = v;
  }
  // Typed again: the suffix is found by the dtypes of the rewritten nodes.
  IRModule midModule;
  midModule.add("main", makeFunction(midParams, replaceNodes(main->body, byMid)));
  const Expr middle = inferTypes(midModule).main()->body;

  // @dequantize_outputs: the quantized results -> the original result.
  std::vector<Expr> cuts;
  std::unordered_set<const ExprNode*> seen;
  findSuffixCuts(middle, dtypes, seen, cuts);
  std::vector<Var> outParams;
  std::unordered_map<const ExprNode*, Expr> byOut;
  for (size_t i = 0; i < cuts.size(); ++i) {
    Var v = makeVar(cuts.size() == 1 ? "out" : "out" + std::to_string(i), cuts[i]->checkedType);
    outParams.push_back(v);
    byOut[cuts[i].get()] = v;
  }
  Expr suffix = replaceNodes(middle, byOut);
  Expr quantizedBody = cuts.size() == 1 ? cuts[0] : makeTuple(cuts);

  IRModule out;
  out.add("quantize_inputs", makeFunction(main->params, makeTuple(prefixOutputs)));
  out.add("quantized_main", makeFunction(midParams, quantizedBody));
  out.add("dequantize_outputs", makeFunction(outParams, suffix));
  // @main: the three in turn, on fresh copies of the inputs.
  std::vector<Var> inputs;
  for (const Var& p : main->params) inputs.push_back(makeVar(p->nameHint, p->typeAnnotation));
  std::vector<Expr> inputArgs(inputs.begin(), inputs.end());
  Expr quantized = makeCall(out.globalVar("quantize_inputs"), inputArgs);
  std::vector<Expr> midArgs;
  for (size_t i = 0; i < midParams.size(); ++i)
    midArgs.push_back(makeTupleGetItem(quantized, static_cast<int>(i)));
  Expr results = makeCall(out.globalVar("quantized_main"), midArgs);
  std::vector<Expr> outArgs = {results};
  if (cuts.size() != 1) {
    outArgs.clear();
    for (size_t i = 0; i < cuts.size(); ++i)
      outArgs.push_back(makeTupleGetItem(results, static_cast<int>(i)));
  }
  out.add("main", makeFunction(inputs, makeCall(out.globalVar("dequantize_outputs"), outArgs)));
  IRModule typedOut = inferTypes(out);
  if (fullyIntegral) requireFullyIntegral(typedOut.lookup("quantized_main"), dtypes);
  return typedOut;
}

}  // namespace tessera::relay::quantize
