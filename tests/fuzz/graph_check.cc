// The differential check of graph_check.h. Every stage runs the same inputs; the oracle is the
// interpreter on the module as generated.
#include "graph_check.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>

#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "driver/pipeline.h"
#include "graph_gen.h"
#include "relay/interp/interpreter.h"
#include "relay/op/tensor.h"
#include "relay/strategy/op_strategy.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/transform/pass_table.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "runtime/graph_executor/graph_executor.h"
#include "runtime/vm/vm.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::fuzz {

std::string Finding::str() const {
  return "graph fuzzer finding at stage " + stage + ": " + symptom + "\n--- module ---\n" + module;
}

std::optional<relay::IRModule> withUnknownExtents(const relay::IRModule& module, bool leadingOnly) {
  const relay::Function& main = module.main();
  std::vector<relay::Var> params;
  std::unordered_map<const relay::ExprNode*, relay::Expr> fresh;
  bool anyExtent = false;
  for (const relay::Var& p : main->params) {
    const auto* t = p->typeAnnotation->as<TensorTypeNode>();
    TS_CHECK(t) << "parameter %" << p->nameHint << " is not a tensor";
    // An extent of 1 stays: it may broadcast, and `?` against `?` is taken as equal extents.
    Shape shape;
    for (const Dim& d : t->shape) {
      const bool unknown = (!leadingOnly || shape.empty()) && (!d.isConst() || d.value() != 1);
      anyExtent = anyExtent || unknown;
      shape.push_back(unknown ? Dim::any() : d);
    }
    params.push_back(relay::makeVar(p->nameHint, tensorType(shape, t->dtype)));
    fresh[p.get()] = params.back();
  }
  if (!anyExtent) return std::nullopt;
  relay::IRModule out;
  out.add("main", relay::makeFunction(params, relay::replaceNodes(main->body, fresh)));
  // Through text, so that every call is typed afresh from the new parameters.
  try {
    return relay::inferTypes(relay::parseModule(relay::printRoundTrip(out), "graph-fuzz"));
  } catch (const DiagnosticError&) {
    return std::nullopt;  // a relation that needs a constant extent refuses, cleanly
  }
}

std::vector<relay::Value> graphInputs(const relay::IRModule& module, uint64_t seed) {
  std::vector<relay::Value> inputs;
  for (const relay::Var& p : module.main()->params) {
    const auto* t = p->typeAnnotation ? p->typeAnnotation->as<TensorTypeNode>() : nullptr;
    TS_CHECK(t) << "parameter %" << p->nameHint << " is not a tensor";
    const std::optional<std::vector<int64_t>> dims = staticShape(t->shape);
    TS_CHECK(dims) << "parameter %" << p->nameHint << " has a dynamic shape";
    const double bound = t->dtype.isFloat() ? 1.0 : 64.0;
    inputs.emplace_back(
        test::uniformTensor(*dims, t->dtype, seed + inputs.size() * 7919, -bound, bound));
  }
  return inputs;
}

namespace {

NDArray int64Scalar(int64_t v) {
  NDArray a = NDArray::empty({}, DataType::int64());
  a.setInt(0, v);
  return a;
}

}  // namespace

relay::IRModule withControlFlow(const relay::IRModule& module) {
  const relay::Function& main = module.main();
  const relay::Var branch = relay::makeVar("branch", tensorType({}, DataType::boolType()));
  const relay::Var n = relay::makeVar("n", tensorType({}, DataType::int64()));
  std::vector<relay::Var> params{n, branch};
  std::unordered_map<const relay::ExprNode*, relay::Expr> fresh;
  relay::Expr flipped;
  for (const relay::Var& p : main->params) {
    params.push_back(relay::makeVar(p->nameHint, p->typeAnnotation));
    fresh[p.get()] = params.back();
    const DataType dtype = p->typeAnnotation->as<TensorTypeNode>()->dtype;
    if (!flipped && (dtype.isFloat() || dtype.isInt())) flipped = params.back();
  }
  const relay::Expr body = relay::replaceNodes(main->body, fresh);
  std::unordered_map<const relay::ExprNode*, relay::Expr> negate;
  if (flipped) negate[flipped.get()] = relay::negative(flipped);
  const relay::Expr chosen =
      relay::makeIf(branch, body, flipped ? relay::replaceNodes(body, negate) : body);
  std::vector<relay::Expr> again{relay::subtract(n, relay::makeConstant(int64Scalar(1)))};
  again.insert(again.end(), params.begin() + 1, params.end());
  const relay::Expr countDown =
      relay::makeIf(relay::greater(n, relay::makeConstant(int64Scalar(0))),
                    relay::makeCall(relay::makeGlobalVar("wrapped"), again), chosen);
  relay::IRModule out;
  // The recursive function's result type must be written out (its calls are typed from it).
  out.add("wrapped", relay::makeFunction(params, countDown,
                                         main->retType ? main->retType : main->body->type()));
  std::vector<relay::Var> mainParams(params.begin() + 1, params.end());
  std::vector<relay::Expr> args{relay::makeConstant(int64Scalar(2))};
  args.insert(args.end(), mainParams.begin(), mainParams.end());
  // Fresh parameters for @main: a variable belongs to one function.
  std::unordered_map<const relay::ExprNode*, relay::Expr> mainFresh;
  std::vector<relay::Var> outer;
  for (const relay::Var& p : mainParams) {
    outer.push_back(relay::makeVar(p->nameHint, p->typeAnnotation));
    mainFresh[p.get()] = outer.back();
  }
  out.add("main",
          relay::makeFunction(
              outer, relay::replaceNodes(relay::makeCall(relay::makeGlobalVar("wrapped"), args),
                                         mainFresh)));
  return relay::inferTypes(out);
}

namespace {

// NaN matches NaN and an infinity matches the same infinity; other floats must be within atol
// scaled by the tensor's largest magnitude (so cancellation in big values is not a finding) plus
// rtol of the element.
std::optional<std::string> compareTensor(const NDArray& got, const NDArray& want,
                                         const CheckOptions& o) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    return "type " + got.describe() + " instead of " + want.describe();
  const bool isFloat = want.dtype().isFloat();
  double scale = 1;
  if (isFloat)
    for (int64_t i = 0; i < want.numel(); ++i)
      if (std::isfinite(want.getFloat(i))) scale = std::max(scale, 1 + std::fabs(want.getFloat(i)));
  for (int64_t i = 0; i < want.numel(); ++i) {
    if (!isFloat) {
      if (got.getInt(i) == want.getInt(i)) continue;
      return "element " + std::to_string(i) + " is " + std::to_string(got.getInt(i)) +
             " instead of " + std::to_string(want.getInt(i));
    }
    const double x = got.getFloat(i), y = want.getFloat(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    if (std::fabs(x - y) <= o.atol * scale + o.rtol * std::fabs(y)) continue;
    std::ostringstream os;
    os.precision(9);
    os << "element " << i << " is " << x << " instead of " << y;
    return os.str();
  }
  return std::nullopt;
}

std::optional<std::string> compareOutputs(const std::vector<NDArray>& got,
                                          const std::vector<NDArray>& want, const CheckOptions& o) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " outputs instead of " + std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (auto problem = compareTensor(got[i], want[i], o))
      return "output " + std::to_string(i) + ": " + *problem;
  return std::nullopt;
}

// Runs `stage`, turning every exception into a symptom: a well-typed graph of registered ops must
// neither fail an internal check nor be refused with a diagnostic.
std::optional<std::string> guarded(const std::function<std::optional<std::string>()>& stage) {
  try {
    return stage();
  } catch (const DiagnosticError& e) {
    return "DiagnosticError: " + e.diagnostic().str();
  } catch (const InternalError& e) {
    return std::string("InternalError: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

std::vector<NDArray> runCompiled(const driver::Built& built, const relay::Function& main,
                                 const std::vector<relay::Value>& inputs) {
  runtime::GraphExecutor executor(built.model());
  for (size_t i = 0; i < inputs.size(); ++i)
    executor.setInput(main->params[i]->nameHint, inputs[i].tensor());
  executor.run();
  std::vector<NDArray> out;
  for (int i = 0; i < executor.numOutputs(); ++i) out.push_back(executor.getOutput(i).copy());
  return out;
}

void flattenVM(const runtime::vm::VMValue& v, std::vector<NDArray>& out) {
  if (!v.isTuple()) {
    out.push_back(v.tensor.copy());
    return;
  }
  for (const runtime::vm::VMValue& f : *v.tuple) flattenVM(f, out);
}

std::vector<NDArray> runVM(const driver::Built& built, const std::vector<relay::Value>& inputs) {
  std::vector<NDArray> args;
  for (const relay::Value& v : inputs) args.push_back(v.tensor());
  std::vector<NDArray> out;
  flattenVM(runtime::vm::VirtualMachine(*built.exec).invoke("main", args), out);
  return out;
}

// The module rebuilt from its text (constants included): shares no node with `module`.
relay::IRModule independentCopy(const relay::IRModule& module) {
  return relay::parseModule(relay::printRoundTrip(module), "graph-fuzz");
}

void countOps(const relay::IRModule& module, CheckStats& stats) {
  relay::postOrderVisit(module.main(), [&](const relay::Expr& e) {
    const auto* call = e->as<relay::CallNode>();
    if (!call) return;
    if (const auto* op = call->op->as<relay::OpNode>()) ++stats.opCalls[op->name];
  });
}

}  // namespace

std::optional<Finding> checkGraph(const relay::IRModule& module, uint64_t dataSeed,
                                  const CheckOptions& options, CheckStats* stats) {
  CheckStats local;
  CheckStats& s = stats ? *stats : local;
  ++s.graphs;
  countOps(module, s);
  const std::vector<relay::Value> inputs = graphInputs(module, dataSeed);
  auto finding = [&](const std::string& stage, const std::string& symptom) {
    return Finding{stage, symptom, relay::printModule(module)};
  };

  std::vector<NDArray> expected;
  if (auto problem = guarded([&]() -> std::optional<std::string> {
        expected = test::flattenTensors(relay::Interpreter(module).run(inputs));
        return std::nullopt;
      }))
    return finding("interpreter", *problem);

  // A stage that yields a module: its interpreted result must match the oracle's.
  auto interpreted =
      [&](const std::string& stage,
          const std::function<relay::IRModule()>& transform) -> std::optional<Finding> {
    ++s.stagesRun;
    auto problem = guarded([&] {
      const relay::IRModule after = transform();
      return compareOutputs(test::flattenTensors(relay::Interpreter(after).run(inputs)), expected,
                            options);
    });
    if (problem) return finding(stage, *problem);
    return std::nullopt;
  };

  if (auto f = interpreted("TextRoundTrip", [&] {
        return relay::parseModule(relay::printRoundTrip(module), "graph-fuzz");
      }))
    return f;

  if (options.passes) {
    // Target hooks (AlterOpLayout) act only with a target and its strategies, as in build().
    relay::strategy::registerStrategies();
    auto context = [] {
      relay::PassContext ctx;
      ctx.optLevel = 3;
      ctx.target = codegen::hostTarget();
      return ctx;
    };
    for (const relay::PassTableRow& row : relay::passTable()) {
      if (auto f = interpreted(row.name(), [&] {
            relay::PassContext ctx = context();
            return (*row.factory())(module, ctx);
          }))
        return f;
    }
    if (auto f = interpreted("OptimizationPipeline", [&] {
          relay::PassContext ctx = context();
          return driver::optimize(module, ctx);
        }))
      return f;
    // The same, handed a copy no one else holds: the passes then consume it (FoldConstant frees
    // the constants it replaces), the path `tessera compile` takes.
    if (auto f = interpreted("OptimizationPipeline (consumed)", [&] {
          relay::PassContext ctx = context();
          return driver::optimize(independentCopy(module), ctx);
        }))
      return f;
  }

  auto compiled = [&](const std::string& stage,
                      const driver::BuildOptions& build) -> std::optional<Finding> {
    ++s.stagesRun;
    auto problem = guarded([&] {
      // An independent copy, consumed by the build as `tessera compile` hands over its module.
      const driver::Built built =
          driver::build(independentCopy(module), codegen::hostTarget(), {}, build);
      return compareOutputs(runCompiled(built, module.main(), inputs), expected, options);
    });
    if (problem) return finding(stage, *problem);
    return std::nullopt;
  };
  if (options.build)
    if (auto f = compiled("build", {.optLevel = 3, .defaultSchedules = true})) return f;
  if (options.vm) {
    ++s.stagesRun;
    const relay::IRModule wrapped = withControlFlow(module);
    for (bool branch : {true, false}) {
      auto problem = guarded([&]() -> std::optional<std::string> {
        NDArray b = NDArray::empty({}, DataType::boolType());
        b.setInt(0, branch ? 1 : 0);
        std::vector<relay::Value> args{b};
        args.insert(args.end(), inputs.begin(), inputs.end());
        // The then branch is the graph itself; the other is checked against the interpreter.
        const std::vector<NDArray> want =
            branch ? expected : test::flattenTensors(relay::Interpreter(wrapped).run(args));
        const driver::Built built =
            driver::build(wrapped, codegen::hostTarget(), {}, {.executor = driver::Executor::kVM});
        return compareOutputs(runVM(built, args), want, options);
      });
      if (problem)
        return Finding{std::string("build for the VM (branch ") + (branch ? "true" : "false") + ")",
                       *problem, relay::printModule(wrapped)};
    }
  }
  if (options.dynamic) {
    for (bool leadingOnly : {true, false}) {
      ++s.stagesRun;
      std::optional<relay::IRModule> unknown;
      auto problem = guarded([&]() -> std::optional<std::string> {
        unknown = withUnknownExtents(module, leadingOnly);
        if (!unknown) {
          ++s.dynamicRefused;
          return std::nullopt;
        }
        std::optional<driver::Built> built;
        try {
          built.emplace(driver::build(*unknown, codegen::hostTarget(), {},
                                      {.executor = driver::Executor::kVM}));
        } catch (const DiagnosticError& e) {
          ++s.dynamicRefused;  // an op whose compute needs constant extents, said cleanly
          if (std::getenv("TESSERA_GRAPH_FUZZ_VERBOSE")) std::cerr << e.diagnostic().str() << "\n";
          return std::nullopt;
        }
        ++s.dynamicCompiled;
        std::vector<NDArray> got;
        try {
          got = runVM(*built, inputs);
        } catch (const DiagnosticError& e) {
          // Two extents the types took as equal (TVM's assumption for `?` dims) differ: a 1 that
          // the static graph broadcast. The VM refuses it cleanly; anything else is a finding.
          if (e.diagnostic().code != "vm_shape") throw;
          ++s.dynamicRefusedWhenRun;
          return std::nullopt;
        }
        return compareOutputs(got, expected, options);
      });
      if (problem)
        return Finding{
            std::string("build for the VM with ") +
                (leadingOnly ? "each input's leading extent" : "every input extent") + " `?`",
            *problem, unknown ? relay::printModule(*unknown) : relay::printModule(module)};
    }
  }
  if (options.plainBuild)
    if (auto f =
            compiled("build(opt_level=0, plain loops)", {.optLevel = 0, .defaultSchedules = false}))
      return f;
  return std::nullopt;
}

std::optional<Finding> checkSeed(uint64_t seed, const CheckOptions& options, CheckStats* stats) {
  Choices choices(seed);
  relay::IRModule module;
  try {
    module = generateGraph(choices);
  } catch (const IllTypedGraph& e) {
    return Finding{"generate", e.what(), "(seed " + std::to_string(seed) + ")"};
  }
  std::optional<Finding> f = checkGraph(module, choices.dataSeed(), options, stats);
  if (f) f->stage += " (seed " + std::to_string(seed) + ")";
  return f;
}

}  // namespace tessera::fuzz
