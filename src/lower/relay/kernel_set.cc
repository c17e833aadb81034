// KernelSet and the helpers both lowerings of a fused module share.
#include "lower/relay/kernel_set.h"

#include "relay/structural_equal.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::lower {

using relay::Expr;
using relay::Function;

relay::strategy::WeightPacking KernelInfo::packingOf(size_t param) const {
  for (const auto& p : packed)
    if (p.index == param) return p.packing;
  return {};
}

ArgumentFacts argumentFacts(const relay::CallNode& call, relay::RangeAnalyzer& ranges) {
  ArgumentFacts facts;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (call.args[i]->as<relay::ConstantNode>()) facts.constants.push_back(i);
    if (ranges.smallNonNegativeBytes(call.args[i])) facts.smallNonNegative.push_back(i);
  }
  return facts;
}

// Identical primitive functions (FuseOps outlines each group separately) called with constants in
// the same places share one kernel; so do calls with different data facts where the facts change
// none of the kernel's choices (on a VNNI or AMX target, or a kernel with no int8 product).
const KernelInfo& KernelSet::kernelFor(const Function& fn, const ArgumentFacts& facts,
                                       bool* isNew) {
  const uint64_t hash = relay::structuralHash(fn);
  if (isNew) *isNew = false;
  for (Entry& e : entries_)
    if (e.hash == hash && e.facts.constants == facts.constants &&
        (!e.dataFactsMatter || e.facts.smallNonNegative == facts.smallNonNegative) &&
        relay::structuralEqual(e.fn, fn)) {
      ++kernels[e.info.index].calls;
      return e.info;
    }
  LoweredFunction lowered = lowerPrimitive(fn, {.target = target_,
                                                .constantParams = facts.constants,
                                                .smallNonNegativeParams = facts.smallNonNegative});
  std::string name = kernelBaseName(fn);
  const int n = nameUses_[name]++;
  if (n > 0) name += "_" + std::to_string(n);
  KernelInfo info{kernels.size(),
                  name,
                  0,
                  lowered.func->params.size(),
                  std::move(lowered.constants),
                  std::move(lowered.packedParams)};
  for (const relay::Var& p : fn->params)
    info.numInputs += flattenTensorTypes(p->type(), name).size();
  kernels.push_back({withKernelName(lowered.func, name), std::move(lowered.strategies), 1});
  entries_.push_back({fn, hash, facts, lowered.dataFactsMatter, std::move(info)});
  if (isNew) *isNew = true;
  return entries_.back().info;
}

// "nn.conv2d" -> "nn_conv2d"; the kernel name joins the ops in evaluation order, as TVM does
// (and as `tessera tir` names them).
std::string kernelBaseName(const Function& fn) {
  std::string name = "fused";
  relay::postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<relay::CallNode>();
    if (!call) return;
    if (const auto* op = call->op->as<relay::OpNode>()) {
      std::string part = op->name;
      for (char& c : part)
        if (c == '.') c = '_';
      name += "_" + part;
    }
  });
  return name;
}

// Explicit stack: nesting is input.
std::vector<const TensorTypeNode*> flattenTensorTypes(const Type& type, const std::string& where) {
  std::vector<const TensorTypeNode*> out;
  std::vector<const TypeNode*> stack{type.get()};
  while (!stack.empty()) {
    const TypeNode* t = stack.back();
    stack.pop_back();
    if (const auto* tensor = t ? t->as<TensorTypeNode>() : nullptr) {
      out.push_back(tensor);
    } else if (const auto* tuple = t ? t->as<TupleTypeNode>() : nullptr) {
      for (auto it = tuple->fields.rbegin(); it != tuple->fields.rend(); ++it)
        stack.push_back(it->get());
    } else {
      throwDiagnostic("build",
                      "has type " + typeToString(type) +
                          "; only tensors and tuples of "
                          "tensors can flow between kernels",
                      {}, where);
    }
  }
  return out;
}

const relay::OpNode* builtinOp(const relay::CallNode& call) {
  if (const auto* op = call.op->as<relay::OpNode>()) return op->def->vmBuiltin ? op : nullptr;
  const auto* fn = call.op->as<relay::FunctionNode>();
  if (!fn) return nullptr;
  const relay::OpNode* found = nullptr;
  relay::postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* inner = e->as<relay::CallNode>();
    const auto* op = inner ? inner->op->as<relay::OpNode>() : nullptr;
    if (!found && op && op->def->vmBuiltin) found = op;
  });
  return found;
}

Function wrapOpCall(const relay::CallNode& call) {
  std::vector<relay::Var> params;
  std::vector<Expr> args;
  for (size_t i = 0; i < call.args.size(); ++i) {
    params.push_back(relay::makeVar("p" + std::to_string(i), call.args[i]->type()));
    args.push_back(params.back());
  }
  DictAttrs attrs;
  attrs.set("Primitive", AttrValue::integer(1));
  Function fn =
      relay::makeFunction(params, relay::makeCall(call.op, args, call.attrs), nullptr, attrs);
  return relay::exprAs<relay::FunctionNode>(relay::inferExprTypes(fn));
}

tir::PrimFunc withKernelName(const tir::PrimFunc& func, const std::string& name) {
  auto copy = std::make_shared<tir::PrimFuncNode>(*func);
  copy->name = name;
  copy->attrs.set("global_symbol", AttrValue::string(name));
  return copy;
}

}  // namespace tessera::lower
