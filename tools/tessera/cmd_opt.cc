// `tessera opt FILE`: run graph passes (a named list, or the default pipeline at an opt level) and
// print the result.
#include <iostream>
#include <sstream>

#include "cli.h"
#include "driver/pipeline.h"
#include "relay/text/printer.h"
#include "relay/transform/pass_table.h"

namespace tessera::cli {

const char* const kOptUsage =
    "usage: tessera opt FILE [--passes A,B,...] [--opt-level N] [--print-after PASS]\n"
    "                        [--print-after-all] [--time-passes] [--list-passes] [--metadata] [-o "
    "OUT]\n"
    "\n"
    "Optimizes the module in FILE (Relay text or an ONNX model, .onnx) and prints the result.\n"
    "  --passes A,B,...    run these passes in order (each runs whatever the opt level)\n"
    "                      default: the relay.build pipeline, gated by --opt-level\n"
    "  --opt-level N       the pass context's opt level (default 3, as the seeds use)\n"
    "  --print-after PASS  print the module to stderr after each run of PASS (repeatable)\n"
    "  --print-after-all   print the module after every pass\n"
    "  --time-passes       report the time of each pass on stderr\n"
    "  --list-passes       list the known passes with their opt levels and exit\n"
    "  --metadata          print the round-trippable form (header + constants' values)\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable)\n"
    "  -o OUT              write the result to OUT (whole or not at all)\n";

namespace {

std::vector<std::string> splitCommaList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int cmdOpt(Args& args) {
  if (args.flag("--list-passes")) {
    for (const relay::PassTableRow& row : relay::passTable())
      std::cout << row.name() << " (level " << row.optLevel() << "): " << row.summary << "\n";
    return kExitOk;
  }
  relay::PassContext ctx;
  ctx.optLevel = 3;
  if (std::optional<std::string> level = args.value("--opt-level")) {
    if (level->size() != 1 || (*level)[0] < '0' || (*level)[0] > '4')
      throw UsageError{"--opt-level expects 0 to 4"};
    ctx.optLevel = (*level)[0] - '0';
  }
  for (const std::string& name : args.values("--print-after")) ctx.printAfter.insert(name);
  ctx.printAfterAll = args.flag("--print-after-all");
  ctx.timePasses = args.flag("--time-passes");
  relay::PrintOptions print;
  if (args.flag("--metadata")) print.header = print.metadata = true;
  std::optional<std::string> passList = args.value("--passes");
  std::optional<std::string> out = args.value("-o");
  std::vector<std::string> inputShapes = args.values("--input-shape");
  std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one FILE"};

  // Resolve pass names before reading the input, so a typo is reported first.
  relay::Pass pipeline = driver::optimizationPipeline();
  if (passList) {
    std::vector<relay::Pass> passes;
    for (const std::string& name : splitCommaList(*passList)) {
      passes.push_back(relay::passByName(name));
      ctx.requiredPasses.insert(name);  // named explicitly: run regardless of the opt level
    }
    pipeline = relay::sequential(std::move(passes), "UserPasses");
  }
  const relay::IRModule module = loadModule(files[0], inputShapes, {}, /*dynamicDims=*/true);
  const relay::IRModule result = (*pipeline)(module, ctx);
  if (ctx.timePasses) {
    for (const relay::PassTiming& t : ctx.timings)
      std::cerr << std::string(2 * t.depth, ' ') << t.name << ": " << t.milliseconds << " ms\n";
  }
  emitText(relay::printModule(result, print), out);
  return kExitOk;
}

}  // namespace tessera::cli
