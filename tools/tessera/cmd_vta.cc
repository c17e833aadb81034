// `tessera vta sim|disasm PROGRAM`: run a recorded VTA program on the functional simulator and
// print its statistics and its timing under the cycle model, or print its instruction stream.
// `tessera vta pack FILE`: graph packing of a quantized module (vta/graph/graph_pack.h).
#include <iostream>

#include "cli.h"
#include "relay/text/printer.h"
#include "vta/graph/graph_pack.h"
#include "vta/graph/vta_composite.h"
#include "vta/rt/program_file.h"
#include "vta/rt/timing.h"
#include "vta/rt/trace.h"

namespace tessera::cli {

const char* const kVtaUsage =
    "usage: tessera vta sim PROGRAM [--json] [--vta-stats] [--vta-trace OUT.json]\n"
    "       tessera vta disasm PROGRAM [--uops]\n"
    "       tessera vta pack FILE [--bfactor 1] [--cfactor 16] [--weight-bits 8]\n"
    "                            [--no-pack-dense] [--start-name OP --stop-name OP] [--composite]\n"
    "                            [-o OUT.relay]\n"
    "\n"
    "PROGRAM is a VTA program file (.vtaprog: configuration, instruction stream and the initial "
    "DRAM\n"
    "image; format in docs/user/vta.md).\n"
    "  sim      run it on the bit-exact functional simulator and print the statistics counters\n"
    "           (inp/wgt/acc/uop load bytes, out store bytes, gemm_counter, alu_counter), then\n"
    "           its timing under the cycle model: total cycles, per-module busy/wait/idle cycles\n"
    "           and utilisation, GEMM utilisation and the critical path\n"
    "  disasm   print the instructions one per line\n"
    "  --json        print the counters as JSON, with the timing under the key \"timing\"\n"
    "  --vta-stats   head the counters with 'Execution statistics:' as the seeds print them\n"
    "  --vta-trace   write the timeline to OUT.json in Chrome trace format (one simulated cycle\n"
    "                per trace microsecond; open it in chrome://tracing or ui.perfetto.dev)\n"
    "  --uops   also list the micro-ops loaded by each LOAD UOP instruction\n"
    "  pack     pack a quantized module (Relay text or ONNX) for VTA: int8 convolutions take\n"
    "           the NCHW{b}n{c}c / OIHW{c}o{c}i layouts, channels padded to whole blocks.\n"
    "           Without --start-name/--stop-name it is seed 000's variant (every int8 conv\n"
    "           packed, the result left packed); with them, TVM's graph_pack: packing starts\n"
    "           at the first START op's output and is undone before the STOP op. An int8\n"
    "           nn.dense whose result is requantized to int8 is packed too (a Tessera\n"
    "           extension: (N/b, K/c, b, c) data, (O/c, K/c, c, c) weights)\n"
    "  --no-pack-dense   leave every nn.dense unpacked, as TVM's graph_pack does\n"
    "  --composite   then fold constants and merge seed 000's four VTA composite patterns,\n"
    "                lifted to global functions with ConvAttrs (seed 000's third printout)\n"
    "  -o OUT.relay  where to write the packed module with its constants (whole or not at all)\n";

namespace {

int64_t intOption(Args& args, const std::string& name, int64_t fallback) {
  const std::optional<std::string> text = args.value(name);
  if (!text) return fallback;
  try {
    size_t used = 0;
    const int64_t v = std::stoll(*text, &used);
    if (used == text->size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw UsageError{name + " expects a positive integer, found '" + *text + "'"};
}

int cmdVtaPack(Args& args) {
  vta::GraphPackOptions options;
  options.bfactor = intOption(args, "--bfactor", 1);
  options.cfactor = intOption(args, "--cfactor", 16);
  options.weightBits = intOption(args, "--weight-bits", 8);
  options.packDense = !args.flag("--no-pack-dense");
  options.startName = args.value("--start-name");
  options.stopName = args.value("--stop-name");
  const bool composite = args.flag("--composite");
  const std::optional<std::string> out = args.value("-o");
  std::vector<std::string> rest = args.positionals();
  if (rest.size() != 2) throw UsageError{"expected 'pack FILE'"};
  if (options.startName.has_value() != options.stopName.has_value())
    throw UsageError{"--start-name and --stop-name go together"};
  if (composite && options.hasRegion())
    throw UsageError{"--composite applies to seed 000's variant (no --start-name/--stop-name)"};
  relay::IRModule module = vta::graphPackModule(loadModule(rest[1], {}), options);
  if (composite) module = (*vta::vtaCompositePass())(module);
  relay::PrintOptions print;
  print.header = print.metadata = true;
  emitText(relay::printModule(module, print), out);  // written whole, after success
  return kExitOk;
}

}  // namespace

int cmdVta(Args& args) {
  if (args.first() == "pack") return cmdVtaPack(args);
  const bool json = args.flag("--json");
  const bool uops = args.flag("--uops");
  const bool statsHeader = args.flag("--vta-stats");
  const std::optional<std::string> tracePath = args.value("--vta-trace");
  std::vector<std::string> rest = args.positionals();
  if (rest.size() != 2) throw UsageError{"expected 'sim PROGRAM', 'disasm PROGRAM' or 'pack FILE'"};
  const std::string& action = rest[0];
  if (action != "sim" && action != "disasm")
    throw UsageError{"unknown vta action '" + action + "'"};
  if (action == "disasm" && (statsHeader || tracePath || json))
    throw UsageError{"--json, --vta-stats and --vta-trace apply to 'vta sim'"};
  const vta::Program program = vta::loadProgram(rest[1]);
  if (action == "disasm") {
    std::cout << vta::disassemble(program, uops);
    return kExitOk;
  }
  // The functional run comes first: it validates the stream, which the timing model assumes.
  const vta::Stats stats = vta::simulate(program);
  const std::vector<vta::Instruction> insns = vta::decodeInstructions(program);
  const vta::TimingReport timing = vta::estimateTiming(program.config, insns);
  if (tracePath) vta::writeChromeTrace(*tracePath, program.config, insns, timing);
  if (json) {
    std::string text = stats.toJson();
    text.pop_back();  // the closing brace: the timing joins the counters' object
    std::cout << text << ", \"timing\": " << timing.toJson() << "}\n";
    return kExitOk;
  }
  if (statsHeader) std::cout << "Execution statistics:\n";
  std::cout << stats.format() << "\n" << timing.format();
  return kExitOk;
}

}  // namespace tessera::cli
