// `tessera vta sim|disasm PROGRAM`: run a recorded VTA program on the functional simulator and
// print its statistics, or print its instruction stream.
#include <iostream>

#include "cli.h"
#include "vta/rt/program_file.h"

namespace tessera::cli {

const char* const kVtaUsage =
    "usage: tessera vta sim PROGRAM [--json]\n"
    "       tessera vta disasm PROGRAM [--uops]\n"
    "\n"
    "PROGRAM is a VTA program file (.vtaprog: configuration, instruction stream and the initial "
    "DRAM\n"
    "image; format in docs/user/vta.md).\n"
    "  sim      run it on the bit-exact functional simulator and print the statistics counters\n"
    "           (inp/wgt/acc/uop load bytes, out store bytes, gemm_counter, alu_counter)\n"
    "  disasm   print the instructions one per line\n"
    "  --json   print the counters as JSON\n"
    "  --uops   also list the micro-ops loaded by each LOAD UOP instruction\n";

int cmdVta(Args& args) {
  const bool json = args.flag("--json");
  const bool uops = args.flag("--uops");
  std::vector<std::string> rest = args.positionals();
  if (rest.size() != 2) throw UsageError{"expected 'sim PROGRAM' or 'disasm PROGRAM'"};
  const std::string& action = rest[0];
  if (action != "sim" && action != "disasm")
    throw UsageError{"unknown vta action '" + action + "'"};
  const vta::Program program = vta::loadProgram(rest[1]);
  if (action == "disasm") {
    std::cout << vta::disassemble(program, uops);
    return kExitOk;
  }
  const vta::Stats stats = vta::simulate(program);
  std::cout << (json ? stats.toJson() : stats.format()) << "\n";
  return kExitOk;
}

}  // namespace tessera::cli
