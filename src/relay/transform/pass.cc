#include "relay/transform/pass.h"

#include "relay/text/printer.h"
#include "relay/transform/pass_table.h"
#include "relay/type_infer.h"

namespace tessera::relay {

namespace {

class FunctionPass final : public PassNode {
 public:
  FunctionPass(PassInfo info, FunctionTransform fn)
      : PassNode(std::move(info)), fn_(std::move(fn)) {}

 protected:
  IRModule transform(IRModule module, PassContext& ctx) const override {
    IRModule out = module;
    for (const auto& [name, fn] : module.functions()) {
      if (skippedByFunctionPasses(*fn)) continue;
      out.add(name, fn_(fn, module, ctx));
    }
    return inferTypes(out);
  }

 private:
  FunctionTransform fn_;
};

}  // namespace

std::string printForInstruments(const IRModule& module) {
  return printModule(module);
}

Pass makeModulePass(PassInfo info, ModuleTransform transform) {
  return std::make_shared<transform::ModulePass<IRModule>>(std::move(info), std::move(transform));
}

Pass makeFunctionPass(PassInfo info, FunctionTransform transform) {
  return std::make_shared<FunctionPass>(std::move(info), std::move(transform));
}

Pass sequential(std::vector<Pass> passes, std::string name, int optLevel) {
  return std::make_shared<transform::SequentialPass<IRModule>>(
      PassInfo{std::move(name), optLevel, {}}, std::move(passes), passByName);
}

bool skippedByFunctionPasses(const FunctionNode& fn) {
  return fn.attrs.has("Compiler") || fn.attrs.has("Extern") || fn.attrs.has("SkipOptimization");
}

Pass inferTypePass() {
  return makeModulePass(PassInfo{"InferType", 0, {}},
                        [](const IRModule& m, PassContext&) { return inferTypes(m); });
}

}  // namespace tessera::relay
