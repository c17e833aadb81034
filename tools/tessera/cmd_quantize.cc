// `tessera quantize MODEL ... -o OUT.relay`: relay.quantize from the command line — prerequisite
// optimisation, partition, annotate, calibrate and realize under a qconfig made of the flags —
// writing the quantized module as Relay text with its constants, and optionally the per-layer
// error report.
#include <iostream>

#include "cli.h"
#include "quantize_options.h"
#include "relay/text/printer.h"

namespace tessera::cli {

const char* const kQuantizeUsage =
    "usage: tessera quantize MODEL [--calibrate-mode M] [--dataset FILE.npz [--samples N]]\n"
    "                        [--params FILE.npz] [--skip-conv-layers L] [--skip-dense-layer B]\n"
    "                        [--global-scale S] [--weight-scale W] [--report] [-o OUT.relay]\n"
    "                        [--opt-level N] [--pass-config KEY=VALUE] [--disabled-pass NAMES]\n"
    "\n"
    "Quantizes MODEL (Relay text or ONNX) to int8 as TVM's relay.quantize does and writes the\n"
    "result as Relay text with its constants (stdout without -o). Defaults are qconfig()'s.\n"
    "  -o OUT.relay           where to write (whole or not at all)\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input "
    "(repeatable)\n" TESSERA_QUANTIZE_OPTIONS_USAGE;

int cmdQuantize(Args& args) {
  QuantizeOptions options = parseQuantizeOptions(args);
  const std::optional<std::string> out = args.value("-o");
  const std::vector<std::string> inputShapes = args.values("--input-shape");
  const std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one MODEL"};
  const relay::IRModule module = loadModule(files[0], inputShapes);
  const driver::Quantized quantized =
      driver::quantizeModel(module, quantizeRequest(module, options), options.context);
  relay::PrintOptions print;
  print.header = print.metadata = true;
  emitText(relay::printModule(quantized.module, print), out);  // written whole, after success
  if (options.report) std::cerr << quantized.report;
  return kExitOk;
}

}  // namespace tessera::cli
