// `tessera print FILE`: parse a Relay text module, infer its types and print it.
#include <iostream>

#include "cli.h"
#include "relay/text/printer.h"

namespace tessera::cli {

const char* const kPrintUsage =
    "usage: tessera print FILE [--metadata] [--no-types] [--input-shape NAME=D0,D1,...] [-o OUT]\n"
    "\n"
    "Parses FILE (Relay text format, or an ONNX model: .onnx), infers types and prints the "
    "module.\n"
    "  --metadata   print the round-trippable form: a #[version] header and a #[metadata] section\n"
    "               holding the constants' values (parse it back with any command)\n"
    "  --no-types   omit the /* ty=... */ annotations\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable)\n"
    "  -o OUT       write to OUT instead of standard output (written whole or not at all)\n";

int cmdPrint(Args& args) {
  relay::PrintOptions options;
  if (args.flag("--metadata")) {
    options.header = true;
    options.metadata = true;
  }
  if (args.flag("--no-types")) options.types = false;
  std::optional<std::string> out = args.value("-o");
  std::vector<std::string> inputShapes = args.values("--input-shape");
  std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one FILE"};
  const relay::IRModule module = loadModule(files[0], inputShapes, {}, /*dynamicDims=*/true);
  emitText(relay::printModule(module, options), out);
  return kExitOk;
}

}  // namespace tessera::cli
