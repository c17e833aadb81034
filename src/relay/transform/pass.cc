#include "relay/transform/pass.h"

#include <sys/resource.h>

#include <chrono>

#include <iostream>

#include "relay/text/printer.h"
#include "relay/transform/instrument.h"
#include "relay/transform/pass_table.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::relay {

AttrValue PassContext::configValue(const std::string& key, AttrValue fallback) const {
  auto it = config.find(key);
  return it == config.end() ? fallback : it->second;
}

namespace {

// Depth of Sequential nesting, for indenting the timing report.
thread_local int passDepth = 0;

class ModulePass final : public PassNode {
 public:
  ModulePass(PassInfo info, ModuleTransform fn) : PassNode(std::move(info)), fn_(std::move(fn)) {}

 protected:
  IRModule transform(IRModule module, PassContext& ctx) const override {
    return fn_(std::move(module), ctx);
  }

 private:
  ModuleTransform fn_;
};

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

class SequentialPass final : public PassNode {
 public:
  SequentialPass(PassInfo info, std::vector<Pass> passes)
      : PassNode(std::move(info)), passes_(std::move(passes)) {}

 protected:
  IRModule transform(IRModule module, PassContext& ctx) const override {
    IRModule m = std::move(module);
    for (const Pass& pass : passes_) {
      if (!passEnabled(pass->info(), ctx)) continue;
      for (const std::string& required : pass->info().required)
        m = (*passByName(required))(std::move(m), ctx);
      m = (*pass)(std::move(m), ctx);
    }
    return m;
  }

 private:
  std::vector<Pass> passes_;
};

void runInstrumented(PassContext& ctx, const std::string& name, const std::function<void()>& body,
                     const std::function<std::string()>& print) {
  const auto start = std::chrono::steady_clock::now();
  const size_t timingIndex = ctx.timings.size();
  // Pushed before the body runs, so that nested steps are listed after (below) it.
  if (ctx.timePasses) ctx.timings.push_back(PassTiming{name, 0, passDepth});
  ++passDepth;
  try {
    body();
  } catch (...) {
    --passDepth;
    throw;
  }
  --passDepth;
  if (ctx.timePasses) {
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    ctx.timings[timingIndex].milliseconds = elapsed.count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    ctx.timings[timingIndex].peakMiB = usage.ru_maxrss / 1024;
  }
  if (printsAfter(ctx, name)) {
    std::ostream& os = ctx.printStream ? *ctx.printStream : std::cerr;
    os << "// after " << name << "\n" << print() << "\n";
  }
}

bool printsAfter(const PassContext& ctx, const std::string& name) {
  return ctx.printAfterAll || ctx.printAfter.count(name);
}

IRModule PassNode::operator()(IRModule module, PassContext& ctx) const {
  IRModule result;
  runInstrumented(
      ctx, info_.name, [&] { result = transform(std::move(module), ctx); },
      [&] { return printModule(result); });
  return result;
}

IRModule PassNode::operator()(IRModule module) const {
  PassContext ctx;
  return (*this)(std::move(module), ctx);
}

Pass makeModulePass(PassInfo info, ModuleTransform transform) {
  return std::make_shared<ModulePass>(std::move(info), std::move(transform));
}

Pass makeFunctionPass(PassInfo info, FunctionTransform transform) {
  return std::make_shared<FunctionPass>(std::move(info), std::move(transform));
}

Pass sequential(std::vector<Pass> passes, std::string name, int optLevel) {
  return std::make_shared<SequentialPass>(PassInfo{std::move(name), optLevel, {}},
                                          std::move(passes));
}

bool skippedByFunctionPasses(const FunctionNode& fn) {
  return fn.attrs.has("Compiler") || fn.attrs.has("Extern") || fn.attrs.has("SkipOptimization");
}

bool passEnabled(const PassInfo& info, const PassContext& ctx) {
  if (ctx.disabledPasses.count(info.name)) return false;
  return ctx.requiredPasses.count(info.name) || ctx.optLevel >= info.optLevel;
}

Pass inferTypePass() {
  return makeModulePass(PassInfo{"InferType", 0, {}},
                        [](const IRModule& m, PassContext&) { return inferTypes(m); });
}

}  // namespace tessera::relay
