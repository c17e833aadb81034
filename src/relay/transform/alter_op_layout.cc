#include "relay/transform/alter_op_layout.h"

#include "relay/transform/layout_rewriter.h"
#include "relay/type_infer.h"
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

Expr alterCall(const target::Target& target, const CallNode& call,
               const std::vector<Expr>& children, LayoutRewriter& rewriter) {
  const auto* op = call.op->as<OpNode>();
  const AlterOpLayoutFn* rule = ruleFor(op->name, target);
  if (!rule) return nullptr;
  // The rule sees the original, typed call: its arguments' types do not change under rewriting.
  std::vector<std::string> heldLayouts;
  for (size_t i = 1; i < children.size(); ++i) {
    const HeldLayout* held = rewriter.heldLayout(children[i]);
    heldLayouts.push_back(held ? held->layout : "");
  }
  std::optional<LayoutAlteration> alteration = (*rule)(call, heldLayouts, target);
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
  LayoutRewriter rewriter(
      [&target](const CallNode& call, const std::vector<Expr>& children, LayoutRewriter& self) {
        return alterCall(target, call, children, self);
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
