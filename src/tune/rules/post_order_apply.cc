#include "tune/rules/post_order_apply.h"

#include "support/diagnostic.h"
#include "tune/rules/rule_analysis.h"

namespace tessera::tune::rules {

std::vector<ScheduleRule> defaultRules() {
  // TVM's ApplyCustomRule and InlineConstantScalars have nothing to do on Tessera's kernels
  // (no custom rules are registered; constant scalars are folded before lowering).
  return {autoInline(), addRFactor(), multiLevelTiling(), parallelVectorizeUnroll(),
          randomComputeLocation()};
}

std::vector<tir::Schedule> postOrderApply(const tir::PrimFunc& func,
                                          const std::vector<ScheduleRule>& rules,
                                          const RuleContext& ctx, int64_t seed) {
  const std::vector<std::string> blocks = blocksPostOrder(func);
  for (size_t i = 0; i < blocks.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (blocks[i] == blocks[j])
        throwDiagnostic("tune", "two blocks are named '" + blocks[i] +
                                    "': post-order-apply needs unique block names");
  std::vector<tir::Schedule> current;
  current.emplace_back(func, seed);
  for (const ScheduleRule& rule : rules) {
    std::vector<tir::Schedule> next;
    // A work stack of (schedule, blocks left); the next block is blocks[left - 1].
    std::vector<std::pair<tir::Schedule, size_t>> stack;
    for (auto it = current.rbegin(); it != current.rend(); ++it)
      stack.emplace_back(std::move(*it), blocks.size());
    while (!stack.empty()) {
      auto [sch, left] = std::move(stack.back());
      stack.pop_back();
      if (left == 0) {
        next.push_back(std::move(sch));
        continue;
      }
      const std::string& name = blocks[left - 1];
      if (!hasBlock(sch, name)) {
        stack.emplace_back(std::move(sch), left - 1);
        continue;
      }
      tir::BlockRV block = sch.getBlock(name);
      if (hasAnnotation(sch.get(block), kScheduleRuleAnn)) {
        stack.emplace_back(std::move(sch), left - 1);
        continue;
      }
      std::vector<tir::Schedule> made = rule.apply(std::move(sch), block, ctx);
      // Pushed in reverse, so the variants come out in the rule's order.
      for (auto it = made.rbegin(); it != made.rend(); ++it)
        stack.emplace_back(std::move(*it), left - 1);
    }
    current = std::move(next);
  }
  return current;
}

std::vector<DesignSpace> ruleSpaces(const tir::PrimFunc& func, const target::Target& target,
                                    int64_t seed) {
  std::vector<DesignSpace> out;
  std::vector<tir::Schedule> schedules =
      postOrderApply(func, defaultRules(), RuleContext::of(target), seed);
  for (size_t i = 0; i < schedules.size(); ++i) {
    DesignSpace space = spaceFromTrace(func, schedules[i].trace().simplified(false),
                                       "post-order-apply #" + std::to_string(i));
    space.postprocess = true;
    out.push_back(std::move(space));
  }
  return out;
}

}  // namespace tessera::tune::rules
