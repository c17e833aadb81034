#include "quantize_options.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "driver/build.h"
#include "driver/compiled_runner.h"
#include "runtime/graph_executor.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

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

relay::quantize::CalibrationDataset readCalibrationDataset(const std::string& path,
                                                           const relay::IRModule& module,
                                                           std::optional<int64_t> samples) {
  const std::map<std::string, NDArray> arrays = readNpz(path);
  if (arrays.empty()) throwDiagnostic("quantize_dataset", "the dataset has no arrays", {}, path);
  relay::quantize::CalibrationDataset batches;
  for (const auto& [name, array] : arrays) {
    const relay::Var* input = nullptr;
    for (const relay::Var& p : module.main()->params)
      if (p->nameHint == name) input = &p;
    if (!input)
      throwDiagnostic("quantize_dataset", "array '" + name + "' names no input of the model", {},
                      path);
    const auto* t =
        (*input)->typeAnnotation ? (*input)->typeAnnotation->as<TensorTypeNode>() : nullptr;
    const std::optional<std::vector<int64_t>> shape = t ? staticShape(t->shape) : std::nullopt;
    if (!shape || shape->empty())
      throwDiagnostic("quantize_dataset", "input '" + name + "' has no static shape", {}, path);
    std::vector<int64_t> sample = *shape;
    const std::vector<int64_t>& a = array.shape();
    int64_t count = 0;
    if (a.size() == shape->size() + 1 && std::equal(a.begin() + 1, a.end(), shape->begin())) {
      count = a[0];
    } else if (a.size() == shape->size() && (*shape)[0] > 0 && a[0] % (*shape)[0] == 0 &&
               std::equal(a.begin() + 1, a.end(), shape->begin() + 1)) {
      count = a[0] / (*shape)[0];
    } else {
      throwDiagnostic("quantize_dataset",
                      "array '" + name + "' is " + array.describe() +
                          ": expected samples of the input's shape " +
                          typeToString((*input)->typeAnnotation),
                      {}, path);
    }
    if (samples) count = std::min(count, *samples);
    if (batches.empty()) batches.resize(static_cast<size_t>(count));
    if (static_cast<int64_t>(batches.size()) != count)
      throwDiagnostic("quantize_dataset", "the arrays hold different numbers of samples", {}, path);
    int64_t per = 1;
    for (int64_t d : sample) per *= d;
    for (int64_t i = 0; i < count; ++i) {
      NDArray one = NDArray::empty(sample, array.dtype());
      std::memcpy(one.data(),
                  static_cast<const char*>(array.data()) + i * per * array.dtype().bytes(),
                  static_cast<size_t>(per * array.dtype().bytes()));
      batches[static_cast<size_t>(i)][name] = one;
    }
  }
  return batches;
}

relay::IRModule quantizeWithOptions(const relay::IRModule& module, const QuantizeOptions& options,
                                    std::string* report,
                                    relay::quantize::CalibrationDataset dataset) {
  std::map<std::string, NDArray> params;
  if (options.paramsPath) params = readNpz(*options.paramsPath);
  if (dataset.empty() && options.datasetPath)
    dataset = readCalibrationDataset(*options.datasetPath, module, options.samples);
  relay::quantize::QConfigScope scope(options.config);
  relay::quantize::QuantizeReport r;
  const relay::quantize::ModuleRunner run =
      options.calibrateCompiled ? driver::compiledRunner() : relay::quantize::runOnInterpreter;
  relay::IRModule q =
      relay::quantize::quantize(module, params, dataset, run, options.report ? &r : nullptr);
  if (options.report && report) *report = relay::quantize::formatLayerReport(r.layers, r.floatOps);
  return q;
}

}  // namespace tessera::cli
