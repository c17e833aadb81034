// `tessera demo`: the main job on the embedded default example — seed 003's conv + batch_norm +
// relu block built with the C++ builder API, printed, type-checked and run by the reference
// interpreter.
#include <cmath>
#include <iostream>
#include <map>

#include "cli.h"
#include "driver/pipeline.h"
#include "relay/builder.h"
#include "relay/interp/interpreter.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"

namespace tessera::cli {

const char* const kDemoUsage =
    "usage: tessera demo [--seed N]\n"
    "\n"
    "Builds seed 003's convolution block (conv2d 3->32, 3x3, stride 2, pad 1 + batch_norm + relu "
    "on a\n"
    "1x3x224x224 input) with the C++ builder API, prints it in the Relay text format, runs it with "
    "the\n"
    "reference interpreter on seeded random inputs and summarises the output. Then binds the "
    "weights\n"
    "as constants, optimizes the block with the relay.build pipeline (opt level 3), prints the "
    "result\n"
    "and checks that it computes the same output.\n"
    "  --seed N   seed of the random inputs and parameters (default 0)\n";

namespace {

relay::Function convBlock() {
  using namespace relay;
  Var data = var("data", {1, 3, 224, 224});
  Expr conv =
      nn::conv2d(data, var("graph_conv_weight"),
                 {.strides = {2, 2}, .padding = {1, 1}, .channels = 32, .kernelSize = {{3, 3}}});
  Expr bn = nn::batchNorm(conv, var("graph_bn_gamma"), var("graph_bn_beta"),
                          var("graph_bn_moving_mean"), var("graph_bn_moving_var"));
  return function(nn::relu(tupleGetItem(bn, 0)));
}

// Uniform values in [lo, hi) from a small LCG, so the demo prints the same numbers everywhere.
NDArray seededTensor(const Type& type, uint64_t seed, double lo, double hi) {
  const auto* t = type->as<TensorTypeNode>();
  NDArray a = NDArray::empty(*staticShape(t->shape), t->dtype);
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < a.numel(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    a.setFloat(i, lo + (hi - lo) * (static_cast<double>(state >> 11) / 9007199254740992.0));
  }
  return a;
}

}  // namespace

int cmdDemo(Args& args) {
  uint64_t seed = 0;
  if (std::optional<std::string> s = args.value("--seed")) {
    try {
      seed = std::stoull(*s);
    } catch (const std::exception&) {
      throw UsageError{"--seed expects a non-negative integer"};
    }
  }
  if (!args.positionals().empty()) throw UsageError{"demo takes no positional arguments"};

  relay::IRModule module = relay::inferTypes(relay::IRModule::fromExpr(convBlock()));
  std::cout << "Seed 003's conv block, built with the C++ API and type-checked:\n\n"
            << relay::printModule(module) << "\n";

  std::vector<relay::Value> inputs;
  std::map<std::string, NDArray> params;  // everything but the data: bound as constants below
  for (const relay::Var& p : module.main()->params) {
    // Variances must be positive; everything else is uniform in [-1, 1).
    const bool isVariance = p->nameHint.find("moving_var") != std::string::npos;
    NDArray value = seededTensor(p->typeAnnotation, seed + inputs.size(), isVariance ? 0.5 : -1.0,
                                 isVariance ? 1.5 : 1.0);
    if (p->nameHint != "data") params[p->nameHint] = value;
    inputs.emplace_back(std::move(value));
  }
  relay::Value out = relay::Interpreter(module).run(inputs);
  const NDArray& y = out.tensor();
  double sum = 0, maxValue = 0;
  int64_t positive = 0;
  for (int64_t i = 0; i < y.numel(); ++i) {
    const double v = y.getFloat(i);
    sum += v;
    maxValue = std::max(maxValue, v);
    positive += v > 0 ? 1 : 0;
  }
  std::cout << "Ran @main with the reference interpreter on random inputs (seed " << seed << "):\n"
            << "  output " << y.describe() << "\n"
            << "  mean " << sum / static_cast<double>(y.numel()) << ", max " << maxValue << ", "
            << positive << " of " << y.numel() << " activations positive\n\n";

  // The same block as relay.build sees it: weights bound, then the optimization pipeline.
  relay::PassContext ctx;
  ctx.optLevel = 3;
  const relay::IRModule optimized = driver::optimize(module, ctx, params);
  std::cout
      << "With the weights bound and the optimization pipeline applied (opt level 3; batch_norm\n"
      << "folded into the convolution's weights, ops fused into a Primitive function):\n\n"
      << relay::printModule(optimized) << "\n";
  const NDArray z = relay::Interpreter(optimized).run({inputs.front()}).tensor();
  double maxDiff = 0;
  for (int64_t i = 0; i < y.numel(); ++i)
    maxDiff = std::max(maxDiff, std::fabs(y.getFloat(i) - z.getFloat(i)));
  std::cout << "Optimized and original outputs agree: max abs difference " << maxDiff << "\n";
  return kExitOk;
}

}  // namespace tessera::cli
