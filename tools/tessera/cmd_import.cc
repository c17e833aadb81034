// `tessera import MODEL.onnx`: import an ONNX model and print it as Relay text.
#include "cli.h"
#include "frontend/onnx/importer.h"
#include "relay/text/printer.h"

namespace tessera::cli {

const char* const kImportUsage =
    "usage: tessera import MODEL.onnx [-o OUT.relay] [--input-shape NAME=D0,D1,... ...]\n"
    "                                 [--no-metadata] [--no-types] [--list-ops]\n"
    "\n"
    "Imports an ONNX model (opsets 11 to 18) and prints its Relay module. The output includes the\n"
    "weights (a #[metadata] section), so `tessera run OUT.relay` runs it.\n"
    "  --input-shape NAME=D0,D1,...  shape of graph input NAME (repeat for each input); a dynamic\n"
    "                                dimension it does not fix prints as `?`\n"
    "  --no-metadata                 omit the weights (the printed graph cannot be run)\n"
    "  --no-types                    omit the /* ty=... */ annotations\n"
    "  --list-ops                    list the supported ONNX operators and exit\n"
    "  -o OUT                        write to OUT instead of standard output (whole or not at "
    "all)\n";

int cmdImport(Args& args) {
  if (args.flag("--list-ops")) {
    std::string text;
    for (const frontend::onnx::SupportedOp& op : frontend::onnx::supportedOps())
      text += std::string(op.opType) + (*op.note ? std::string("  (") + op.note + ")" : "") + "\n";
    emitText(text, std::nullopt);
    return kExitOk;
  }
  relay::PrintOptions options;
  options.header = options.metadata = !args.flag("--no-metadata");
  if (args.flag("--no-types")) options.types = false;
  std::vector<std::string> shapes = args.values("--input-shape");
  std::optional<std::string> out = args.value("-o");
  std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one MODEL.onnx"};
  frontend::onnx::ImportOptions importOptions;
  importOptions.inputShapes = parseInputShapes(shapes);
  importOptions.sourceName = files[0];
  importOptions.dynamicDims = true;  // a dynamic dimension --input-shape leaves prints as `?`
  readFilePrefix(files[0], 1);       // the file's own io diagnostics (a directory, a missing file)
  const relay::IRModule module = frontend::onnx::importOnnx(files[0], importOptions);
  emitText(relay::printModule(module, options), out);
  return kExitOk;
}

}  // namespace tessera::cli
