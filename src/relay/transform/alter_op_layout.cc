#include "relay/transform/alter_op_layout.h"

#include <unordered_map>

#include "relay/transform/layout_rewriter.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/check.h"

namespace tessera::relay {
namespace {

/// The rule for `op` on `target`: the first of its keys (most specific first) that has one.
const AlterOpLayoutFn* ruleFor(const std::string& op, const target::Target& target) {
  const AlterOpLayoutRules* rules = kAlterOpLayoutMap.get(op);
  if (!rules) return nullptr;
  for (const std::string& key : target.keys) {
    auto it = rules->find(key);
    if (it != rules->end() && it->second) return &it->second;
  }
  return nullptr;
}

/// The argument through which a layout-carrying call passes its data on: the only one, or of a
/// binary broadcast the operand of the result's shape (the other is a bias or a scale).
const Expr& carriedArgument(const CallNode& call) {
  const auto resultShaped = [&call](const Expr& arg) {
    return call.checkedType && arg->checkedType && typeEqual(arg->checkedType, call.checkedType);
  };
  if (call.args.size() == 2 && !resultShaped(call.args[0]) && resultShaped(call.args[1]))
    return call.args[1];
  return call.args[0];
}

/// Per call with a rule: the layout its consumers ask of its result (AlterOpLayoutFn's
/// `consumerLayout`). Every call with a rule is asked, with its inputs in their original layouts,
/// which layouts it takes them in; each argument it wants in another layout is followed up through
/// the layout-carrying calls to the call with a rule that produced it. The first demand wins.
std::unordered_map<const CallNode*, std::string> consumerLayouts(const Function& fn,
                                                                 const target::Target& target) {
  std::unordered_map<const CallNode*, std::string> wanted;
  postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    const AlterOpLayoutFn* rule = op ? ruleFor(op->name, target) : nullptr;
    if (!rule) return;
    const std::optional<LayoutAlteration> alone =
        (*rule)(*call, std::vector<std::string>(call->args.size()), "", target);
    if (!alone) return;
    for (size_t i = 0; i < call->args.size() && i < alone->argLayouts.size(); ++i) {
      if (alone->argLayouts[i] == alone->argOriginals.at(i)) continue;
      const CallNode* producer = call->args[i]->as<CallNode>();
      while (producer) {
        const auto* producerOp = producer->op->as<OpNode>();
        if (!producerOp) break;
        if (ruleFor(producerOp->name, target)) {
          wanted.try_emplace(producer, alone->argLayouts[i]);
          break;
        }
        if (!carriesLayout(producerOp->name, producer->args.size())) break;
        producer = carriedArgument(*producer)->as<CallNode>();
      }
    }
  });
  return wanted;
}

Expr alterCall(const target::Target& target, const CallNode& call,
               const std::vector<Expr>& children, const std::string& consumerLayout,
               LayoutRewriter& rewriter) {
  const auto* op = call.op->as<OpNode>();
  const AlterOpLayoutFn* rule = ruleFor(op->name, target);
  if (!rule) return nullptr;
  // The rule sees the original, typed call: its arguments' types do not change under rewriting.
  std::vector<std::string> heldLayouts;
  for (size_t i = 1; i < children.size(); ++i) {
    const HeldLayout* held = rewriter.heldLayout(children[i]);
    heldLayouts.push_back(held ? held->layout : "");
  }
  std::optional<LayoutAlteration> alteration = (*rule)(call, heldLayouts, consumerLayout, target);
  if (!alteration) return nullptr;
  const size_t arity = call.args.size();
  TS_CHECK(alteration->argLayouts.size() == arity && alteration->argOriginals.size() == arity)
      << "FTVMAlterOpLayout rule of " << op->name << " gave layouts for "
      << alteration->argLayouts.size() << " of " << arity << " arguments";
  std::vector<Expr> args;
  for (size_t i = 0; i < arity; ++i)
    args.push_back(
        rewriter.inLayout(children[i + 1], alteration->argOriginals[i], alteration->argLayouts[i]));
  Expr altered = makeCall(children[0], std::move(args), alteration->attrs, call.span);
  if (alteration->outLayout == alteration->outOriginal) return altered;
  return rewriter.hold(altered, HeldLayout{alteration->outLayout, alteration->outOriginal});
}

}  // namespace

void registerAlterOpLayout(const std::string& op, const std::string& targetKey,
                           AlterOpLayoutFn fn) {
  AlterOpLayoutRules rules;
  if (const AlterOpLayoutRules* existing = kAlterOpLayoutMap.get(op)) rules = *existing;
  const std::optional<int> level = kAlterOpLayoutMap.level(op);
  rules[targetKey] = std::move(fn);
  kAlterOpLayoutMap.reset(op);
  kAlterOpLayoutMap.set(op, std::move(rules), level.value_or(10));
}

Function alterOpLayout(const Function& fn, const target::Target& target) {
  const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  const std::unordered_map<const CallNode*, std::string> wanted = consumerLayouts(typed, target);
  LayoutRewriter rewriter([&target, &wanted](const CallNode& call,
                                             const std::vector<Expr>& children,
                                             LayoutRewriter& self) {
    const auto it = wanted.find(&call);
    return alterCall(target, call, children, it == wanted.end() ? "" : it->second, self);
  });
  return exprAs<FunctionNode>(rewriter.run(typed));
}

Pass alterOpLayoutPass() {
  return makeFunctionPass(PassInfo{"AlterOpLayout", 3, {"InferType"}},
                          [](const Function& fn, const IRModule&, PassContext& ctx) {
                            if (!ctx.target) return fn;
                            return alterOpLayout(fn, *ctx.target);
                          });
}

}  // namespace tessera::relay
