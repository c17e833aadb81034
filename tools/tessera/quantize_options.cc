#include "quantize_options.h"

#include <sstream>

#include "pass_options.h"
#include "runtime/npy.h"

namespace tessera::cli {

namespace {

int64_t integerOf(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    const int64_t v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError{flag + " expects an integer, not '" + text + "'"};
}

bool booleanOf(const std::string& flag, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw UsageError{flag + " expects true or false, not '" + text + "'"};
}

}  // namespace

QuantizeOptions parseQuantizeOptions(Args& args) {
  QuantizeOptions o;
  o.context = parsePassContext(args, /*instruments=*/false).ctx;
  relay::quantize::QConfig& c = o.config;
  if (auto v = args.value("--calibrate-mode")) c.calibrateMode = *v;
  if (auto v = args.value("--weight-scale")) c.weightScale = *v;
  if (auto v = args.value("--rounding")) c.rounding = *v;
  if (auto v = args.value("--global-scale")) {
    try {
      c.globalScale = std::stod(*v);
    } catch (const std::exception&) {
      throw UsageError{"--global-scale expects a number, not '" + *v + "'"};
    }
  }
  if (auto v = args.value("--unsigned-inputs"))
    c.unsignedInputs = booleanOf("--unsigned-inputs", *v);
  if (auto v = args.value("--skip-dense-layer"))
    c.skipDenseLayer = booleanOf("--skip-dense-layer", *v);
  if (auto v = args.value("--skip-conv-layers")) {
    std::vector<int64_t> layers;
    if (*v != "none" && !v->empty()) {
      std::stringstream ss(*v);
      std::string item;
      while (std::getline(ss, item, ',')) layers.push_back(integerOf("--skip-conv-layers", item));
    }
    c.skipConvLayers = layers;
  }
  if (auto v = args.value("--nbit-input"))
    c.nbitInput = static_cast<int>(integerOf("--nbit-input", *v));
  if (auto v = args.value("--nbit-weight"))
    c.nbitWeight = static_cast<int>(integerOf("--nbit-weight", *v));
  if (auto v = args.value("--nbit-activation"))
    c.nbitActivation = static_cast<int>(integerOf("--nbit-activation", *v));
  c.doSimulation = args.flag("--simulate");
  if (auto v = args.value("--partition-conversions")) c.partitionConversions = *v;
  o.report = args.flag("--report");
  if (auto v = args.value("--calibrate-with")) {
    if (*v != "compiled" && *v != "interpreter")
      throw UsageError{"--calibrate-with expects compiled or interpreter, not '" + *v + "'"};
    o.calibrateCompiled = *v == "compiled";
  }
  o.paramsPath = args.value("--params");
  o.datasetPath = args.value("--dataset");
  if (auto v = args.value("--samples")) {
    o.samples = integerOf("--samples", *v);
    if (*o.samples <= 0) throw UsageError{"--samples expects a positive count"};
  }
  c.validate();  // an impossible configuration fails before any work
  return o;
}

driver::QuantizeOptions quantizeRequest(const relay::IRModule& module,
                                        const QuantizeOptions& options,
                                        relay::quantize::CalibrationDataset dataset) {
  driver::QuantizeOptions request;
  request.config = options.config;
  if (options.paramsPath) request.params = readNpz(*options.paramsPath);
  if (dataset.empty() && options.datasetPath)
    dataset = driver::readCalibrationDataset(*options.datasetPath, module, options.samples);
  request.dataset = std::move(dataset);
  request.report = options.report;
  request.calibrateCompiled = options.calibrateCompiled;
  return request;
}

}  // namespace tessera::cli
