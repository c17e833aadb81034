// `tessera vta sim|disasm PROGRAM`: run a recorded VTA program on the functional simulator and
// print its statistics and its timing under the cycle model, or print its instruction stream.
#include <iostream>

#include "cli.h"
#include "vta/rt/program_file.h"
#include "vta/rt/timing.h"
#include "vta/rt/trace.h"

namespace tessera::cli {

const char* const kVtaUsage =
    "usage: tessera vta sim PROGRAM [--json] [--vta-stats] [--vta-trace OUT.json]\n"
    "       tessera vta disasm PROGRAM [--uops]\n"
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
    "  --uops   also list the micro-ops loaded by each LOAD UOP instruction\n";

int cmdVta(Args& args) {
  const bool json = args.flag("--json");
  const bool uops = args.flag("--uops");
  const bool statsHeader = args.flag("--vta-stats");
  const std::optional<std::string> tracePath = args.value("--vta-trace");
  std::vector<std::string> rest = args.positionals();
  if (rest.size() != 2) throw UsageError{"expected 'sim PROGRAM' or 'disasm PROGRAM'"};
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
