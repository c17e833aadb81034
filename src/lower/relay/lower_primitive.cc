// lowerToPrimFunc: a fused primitive function becomes one PrimFunc. Parameters become
// placeholders, each call applies the compute of its implementation (chosen by the target's op
// strategies; the op's generic compute without a target) to the tensors of its arguments, and
// createPrimFunc turns the resulting TE graph into TensorIR. The walk is iterative, so a long
// fused chain does not grow the C++ stack.
#include <unordered_map>
#include <unordered_set>

#include "lower/relay/lower_primitive.h"
#include "relay/op_registry.h"
#include "relay/strategy/packed_weights.h"
#include "relay/strategy/strategy.h"
#include "relay/strategy/strategy_util.h"
#include "relay/value_range.h"
#include "relay/visit.h"
#include "support/check.h"
#include "support/diagnostic.h"
#include "te/create_prim_func.h"
#include "topi/elemwise.h"
#include "topi/nn_int8.h"

namespace tessera::lower {
namespace {

using namespace relay;            // the graph IR this file walks
using namespace relay::strategy;  // the computes and implementations it applies

using te::Tensor;
using Tensors = std::vector<Tensor>;

// The arguments whose values a node needs, in order (the callee of a call is not a value).
std::vector<Expr> operandsOf(const Expr& e) {
  if (const auto* call = e->as<CallNode>()) return call->args;
  if (const auto* tuple = e->as<TupleNode>()) return tuple->fields;
  if (const auto* get = e->as<TupleGetItemNode>()) return {get->tuple};
  return {};
}

Type typeOfExpr(const Expr& e) {
  if (e->checkedType) return e->checkedType;
  if (const auto* v = e->as<VarNode>(); v && v->typeAnnotation) return v->typeAnnotation;
  throwDiagnostic("lower_te", "the primitive function is not type-checked (run InferType first)",
                  e->span);
}

// Placeholders for one parameter: a tensor gives one, a tuple one per field.
Tensors placeholdersFor(const Type& type, const std::string& name) {
  if (const auto* tuple = type->as<TupleTypeNode>()) {
    Tensors out;
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      Tensors field = placeholdersFor(tuple->fields[i], name + "_" + std::to_string(i));
      out.insert(out.end(), field.begin(), field.end());
    }
    return out;
  }
  const TensorTypeNode& t = tensorTypeOf(type);
  return {te::placeholder(staticShapeOf(type, "parameter " + name), t.dtype, name)};
}

class Lowerer {
 public:
  explicit Lowerer(const PrimitiveLoweringOptions& options) : options_(options) {}

  LoweredFunction run(const Function& f) {
    std::unordered_map<const relay::VarNode*, relay::ValueRange> known;
    for (size_t i : options_.smallNonNegativeParams)
      if (i < f->params.size()) known[f->params[i].get()] = {0, 127};
    ranges_.emplace(std::move(known));
    for (size_t i : options_.constantParams)
      if (i < f->params.size()) constantParams_.insert(f->params[i].get());
    if (options_.target) {
      choosePackedWeights(f);
      findChannelAddends(f);
    }
    Tensors inputs;
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Var& p = f->params[i];
      Tensors ts;
      if (auto packed = packing_.find(p.get()); packed != packing_.end()) {
        const std::vector<int64_t> shape =
            packedShape(*staticShape(tensorTypeOf(typeOfExpr(p)).shape), packed->second);
        ts = {te::placeholder(shape, packedDtype(tensorTypeOf(typeOfExpr(p)).dtype, packed->second),
                              p->nameHint)};
        packedParams_.push_back({i, packed->second});
      } else {
        ts = placeholdersFor(typeOfExpr(p), p->nameHint);
      }
      values_[p.get()] = ts;
      inputs.insert(inputs.end(), ts.begin(), ts.end());
    }
    evaluate(f->body);
    Tensors outputs = values_.at(f->body.get());
    // An output must be computed by the function: a passed-through input (or a tensor returned
    // twice) gets a copy stage of its own.
    for (size_t i = 0; i < outputs.size(); ++i) {
      bool repeated = false;
      for (size_t j = 0; j < i; ++j) repeated = repeated || outputs[j] == outputs[i];
      if (outputs[i].op()->kind == te::OpKind::kPlaceholder || repeated)
        outputs[i] = topi::unaryOp("copy", outputs[i]);
    }
    Tensors args = inputs;
    args.insert(args.end(), constantTensors_.begin(), constantTensors_.end());
    args.insert(args.end(), outputs.begin(), outputs.end());
    tir::PrimFunc func = te::createPrimFunc(args);
    if (anchor_) {
      auto named = std::make_shared<tir::PrimFuncNode>(*func);
      named->attrs.set(kImplementationAttr, AttrValue::string(anchor_->name));
      func = named;
    }
    return LoweredFunction{func, constants_, packedParams_, choices_, dataFactsMatter_};
  }

 private:
  void evaluate(const Expr& root) {
    std::vector<std::pair<Expr, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      if (values_.count(e.get())) continue;
      if (!expanded) {
        stack.emplace_back(e, true);
        for (const Expr& child : operandsOf(e)) stack.emplace_back(child, false);
        continue;
      }
      values_[e.get()] = lowerNode(e);
    }
  }

  Tensors operandTensors(const Expr& e) {
    Tensors out;
    for (const Expr& child : operandsOf(e)) {
      const Tensors& ts = values_.at(child.get());
      out.insert(out.end(), ts.begin(), ts.end());
    }
    return out;
  }

  Tensors lowerNode(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kCall:
        return lowerCall(e);
      case ExprKind::kTuple:
        return operandTensors(e);
      case ExprKind::kTupleGetItem: {
        const auto* get = e->as<TupleGetItemNode>();
        const Tensors& tuple = values_.at(get->tuple.get());
        return {tuple.at(static_cast<size_t>(get->index))};
      }
      case ExprKind::kConstant:
        return lowerConstant(e);
      case ExprKind::kVar:
        throwDiagnostic("lower_te",
                        "variable " + e->as<VarNode>()->nameHint +
                            " is not a parameter of the primitive function",
                        e->span);
      default:
        throwDiagnostic("lower_te",
                        "a primitive function may contain only calls of ops, tuples and "
                        "constants, found " +
                            exprSummary(e),
                        e->span);
    }
  }

  // The constants (inner ones, and parameters bound to constants) that are only ever the weight
  // of calls whose implementation packs it, with their packing. A constant used any other way
  // keeps its layout (and its calls choose again, knowing it is not packed).
  void choosePackedWeights(const Function& f) {
    std::unordered_map<const ExprNode*, WeightPacking> block;
    std::unordered_map<const ExprNode*, int> otherUses;
    postOrderVisit(f->body, [&](const Expr& e) {
      const std::vector<Expr> operands = operandsOf(e);
      for (size_t i = 0; i < operands.size(); ++i) {
        if (!isConstantValue(operands[i])) continue;
        const auto* call = e->as<CallNode>();
        const WeightPacking b = call && i == 1 ? wantedPacking(*call, e) : WeightPacking{};
        auto [it, fresh] = block.emplace(operands[i].get(), b);
        if (!b || (!fresh && it->second != b)) ++otherUses[operands[i].get()];
      }
    });
    // The function's result is a use too: a returned weight keeps its layout.
    if (block.count(f->body.get())) ++otherUses[f->body.get()];
    for (const auto& [node, b] : block)
      if (b && !otherUses.count(node)) packing_[node] = b;
  }

  // The calls whose only use is `add(call, addend)` with an int32 constant addend per output
  // channel ((C, 1, 1) or (1, C, 1, 1)): an implementation with foldsChannelAddend takes the
  // addend into its compute and the add is skipped (addends_).
  void findChannelAddends(const Function& f) {
    std::unordered_map<const ExprNode*, int> uses;
    ++uses[f->body.get()];  // the function's result is a use
    postOrderVisit(f->body, [&](const Expr& e) {
      for (const Expr& operand : operandsOf(e)) ++uses[operand.get()];
    });
    postOrderVisit(f->body, [&](const Expr& e) {
      const auto* add = e->as<CallNode>();
      const auto* addOp = add ? add->op->as<OpNode>() : nullptr;
      if (!addOp || addOp->name != "add" || add->args.size() != 2) return;
      const Expr &producer = add->args[0], &addend = add->args[1];
      const auto* call = producer->as<CallNode>();
      if (!call || uses[producer.get()] != 1) return;
      if (!isConstantValue(addend)) return;
      const auto* out = typeOfExpr(producer)->as<TensorTypeNode>();
      const auto* a = typeOfExpr(addend)->as<TensorTypeNode>();
      if (!out || !a || out->dtype != DataType::int32() || a->dtype != DataType::int32()) return;
      const std::optional<std::vector<int64_t>> outShape = staticShape(out->shape);
      const std::optional<std::vector<int64_t>> shape = staticShape(a->shape);
      if (!outShape || outShape->size() != 4 || !shape ||
          !topi::isChannelAddend(*shape, (*outShape)[1]))
        return;
      addends_[call] = {addend, add};
    });
  }

  // An inner constant with data or a parameter bound to one.
  bool isConstantValue(const Expr& e) const {
    const auto* c = e->as<ConstantNode>();
    return (c && c->hasData()) || constantParams_.count(e.get());
  }

  // Whether every value of the call's data (argument 0) is proven to lie in [0, 127].
  bool smallNonNegativeData(const CallNode& call) {
    return !call.args.empty() && ranges_->smallNonNegativeBytes(call.args[0]);
  }

  // selectImplementation, noting whether the call's data fact could change the choice (only
  // selection reads it).
  StrategyChoice selectNotingDataFact(StrategyCall sc) {
    StrategyChoice choice = selectImplementation(sc);
    if (!dataFactsMatter_) {
      sc.smallNonNegativeData = !sc.smallNonNegativeData;
      dataFactsMatter_ = selectImplementation(sc).chosen != choice.chosen;
    }
    return choice;
  }

  // The packing the implementation of a call with a constant weight asks for.
  WeightPacking wantedPacking(const CallNode& call, const Expr& e) {
    if (!call.op->as<OpNode>()) return {};
    const Type outType = typeOfExpr(e);
    const StrategyCall sc{
        call, outType, *options_.target, {}, /*weightConstant=*/true, smallNonNegativeData(call)};
    const StrategyChoice choice = selectNotingDataFact(sc);
    return choice.chosen && choice.chosen->packWeight ? choice.chosen->packWeight(sc)
                                                      : WeightPacking{};
  }

  Tensors lowerCall(const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call->op->as<OpNode>();
    if (!op)
      throwDiagnostic(
          "lower_te",
          "only calls of ops can be lowered to TE, found a call of " + exprSummary(call->op),
          e->span);
    // An add folded into the call producing its first operand is that call's value.
    if (foldedAdds_.count(call)) return values_.at(call->args[0].get());
    const Type outType = typeOfExpr(e);
    if (options_.target) {
      WeightPacking weight;
      if (call->args.size() == 2)
        if (auto packed = packing_.find(call->args[1].get()); packed != packing_.end())
          weight = packed->second;
      const StrategyCall sc{*call,  outType, *options_.target,
                            weight, false,   smallNonNegativeData(*call)};
      StrategyChoice choice = selectNotingDataFact(sc);
      const OpImplementation* impl = choice.chosen;
      if (!choice.considered.empty()) choices_.push_back(std::move(choice));
      TS_CHECK(!weight || (impl && impl->compute))
          << "the weight of " << op->name << " was packed for an implementation that declines it";
      if (impl && impl->schedule && !anchor_) anchor_ = impl;
      if (impl && impl->compute) {
        Tensors inputs = operandTensors(e);
        if (auto it = addends_.find(call); it != addends_.end() && impl->foldsChannelAddend) {
          evaluate(it->second.addend);
          const Tensors& a = values_.at(it->second.addend.get());
          inputs.insert(inputs.end(), a.begin(), a.end());
          foldedAdds_.insert(it->second.add);
        }
        return impl->compute(sc, inputs);
      }
    }
    const FTVMCompute* compute = kComputeMap.get(op->name);
    if (!compute) throwDiagnostic("lower_te", "op " + op->name + " has no TE compute", e->span);
    return (*compute)(call->attrs, operandTensors(e), outType);
  }

  // A scalar constant is folded into the expression; others become extra parameters.
  Tensors lowerConstant(const Expr& e) {
    const auto* c = e->as<ConstantNode>();
    if (!c->hasData())
      throwDiagnostic("lower_te", "a constant without data cannot be lowered", e->span);
    NDArray data = c->data;
    if (auto packed = packing_.find(c); packed != packing_.end()) {
      data = packWeight(data, packed->second);
    }
    if (data.ndim() == 0) {
      const double v =
          data.dtype().isFloat() ? data.getFloat(0) : static_cast<double>(data.getInt(0));
      return {topi::fullConst({}, data.dtype(), v, "T_constant")};
    }
    const std::string name = "constant_" + std::to_string(constants_.size());
    Tensor t = te::placeholder(data.shape(), data.dtype(), name);
    constants_.push_back(data);
    constantTensors_.push_back(t);
    return {t};
  }

  PrimitiveLoweringOptions options_;
  std::vector<StrategyChoice> choices_;
  const OpImplementation* anchor_ = nullptr;  // the first chosen implementation with a schedule
  std::unordered_map<const ExprNode*, WeightPacking> packing_;  // constant -> its packing
  std::unordered_set<const ExprNode*> constantParams_;          // parameters bound to constants
  struct ChannelAddend {
    Expr addend;
    const CallNode* add;
  };
  std::unordered_map<const CallNode*, ChannelAddend> addends_;  // call -> its only use's addend
  std::unordered_set<const CallNode*> foldedAdds_;              // adds taken into their producer
  std::optional<relay::RangeAnalyzer> ranges_;  // over the function, its known parameters given
  bool dataFactsMatter_ = false;                // LoweredFunction::dataFactsMatter
  std::vector<LoweredFunction::PackedParam> packedParams_;
  std::unordered_map<const ExprNode*, Tensors> values_;
  std::vector<NDArray> constants_;
  Tensors constantTensors_;
};

}  // namespace

LoweredFunction lowerPrimitive(const Function& primitiveFunction,
                               const PrimitiveLoweringOptions& options) {
  relay::strategy::registerComputes();
  return Lowerer(options).run(primitiveFunction);
}

tir::PrimFunc lowerToPrimFunc(const Function& primitiveFunction) {
  return lowerPrimitive(primitiveFunction).func;
}

}  // namespace tessera::lower
