// Entry point of the `tessera` tool: dispatches to a subcommand and turns every user-reachable
// error into a diagnostic and a non-zero exit, never a crash.
#include <cstring>
#include <iostream>

#include "cli.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace {

const char* const kMainUsage =
    "usage: tessera <command> [options]\n"
    "\n"
    "Tessera is a deep-learning compiler. Commands:\n"
    "  import MODEL    import an ONNX model and print it as Relay text\n"
    "  print FILE      parse a Relay text module (or an ONNX model), infer its types, print it\n"
    "  opt FILE        optimize a module with graph passes and print it\n"
    "  compile FILE    compile a module to kernels + graph executor description (-o OUT_DIR)\n"
    "  run FILE        run a module's @main on .npy inputs (compiled, or --interpreter)\n"
    "  classify MODEL  compile an image classifier and classify sample images (the main job)\n"
    "  eval MODEL      accuracy of an image classifier on the FashionMNIST test set\n"
    "  quantize MODEL  quantize a model to int8 (relay.quantize), with a per-layer error report\n"
    "  tir FILE        print a module's kernels as TensorIR (scheduled by a trace, lowered)\n"
    "  tune MODEL      tune a model's kernels into a database (--trials N --db DIR)\n"
    "  demo            build seed 003's conv+batch_norm+relu block, print it and run it\n"
    "  vta sim|disasm  run a VTA program on the functional simulator, or disassemble it\n"
    "  vta pack        pack a quantized module to VTA's layouts (graph_pack)\n"
    "  help [COMMAND]  show help for a command\n"
    "\n"
    "Every command accepts --help.\n";

struct Command {
  const char* name;
  int (*run)(tessera::cli::Args&);
  const char* const* usage;
};

const Command kCommands[] = {
    {"import", tessera::cli::cmdImport, &tessera::cli::kImportUsage},
    {"print", tessera::cli::cmdPrint, &tessera::cli::kPrintUsage},
    {"opt", tessera::cli::cmdOpt, &tessera::cli::kOptUsage},
    {"compile", tessera::cli::cmdCompile, &tessera::cli::kCompileUsage},
    {"classify", tessera::cli::cmdClassify, &tessera::cli::kClassifyUsage},
    {"eval", tessera::cli::cmdEval, &tessera::cli::kEvalUsage},
    {"quantize", tessera::cli::cmdQuantize, &tessera::cli::kQuantizeUsage},
    {"run", tessera::cli::cmdRun, &tessera::cli::kRunUsage},
    {"tir", tessera::cli::cmdTir, &tessera::cli::kTirUsage},
    {"tune", tessera::cli::cmdTune, &tessera::cli::kTuneUsage},
    {"demo", tessera::cli::cmdDemo, &tessera::cli::kDemoUsage},
    {"vta", tessera::cli::cmdVta, &tessera::cli::kVtaUsage},
};

const Command* findCommand(const std::string& name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera;
  if (argc < 2) {
    std::cerr << kMainUsage;
    return cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h") {
    std::cout << kMainUsage;
    return cli::kExitOk;
  }
  if (name == "help") {
    const Command* c = argc > 2 ? findCommand(argv[2]) : nullptr;
    std::cout << (c ? *c->usage : kMainUsage);
    return cli::kExitOk;
  }
  const Command* command = findCommand(name);
  if (!command) {
    std::cerr << "tessera: unknown command '" << name << "'\n\n" << kMainUsage;
    return cli::kExitUsage;
  }
  std::vector<std::string> rest(argv + 2, argv + argc);
  cli::Args args(rest);
  try {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << *command->usage;
      return cli::kExitOk;
    }
    return command->run(args);
  } catch (const cli::UsageError& e) {
    std::cerr << "tessera " << name << ": " << e.message << "\n\n" << *command->usage;
    return cli::kExitUsage;
  } catch (const DiagnosticError& e) {
    std::cerr << e.diagnostic().str() << "\n";
    return cli::kExitError;
  } catch (const InternalError& e) {
    std::cerr << e.what() << "\n(this is a bug in Tessera; please report it with the input)\n";
    return cli::kExitError;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return cli::kExitError;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return cli::kExitError;
  }
}
