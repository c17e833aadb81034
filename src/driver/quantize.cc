#include "driver/quantize.h"

#include <algorithm>
#include <cstring>

#include "driver/compiled_runner.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

namespace tessera::driver {

Quantized quantizeModel(const relay::IRModule& module, const QuantizeOptions& options,
                        relay::PassContext& ctx) {
  relay::PassContext::Scope scope(ctx);
  relay::quantize::QConfigScope qconfig(options.config);
  relay::quantize::QuantizeReport r;
  const relay::quantize::ModuleRunner run =
      options.calibrateCompiled ? compiledRunner() : relay::quantize::runOnInterpreter;
  Quantized out;
  out.module = relay::quantize::quantize(module, options.params, options.dataset, run,
                                         options.report ? &r : nullptr);
  if (options.report) out.report = relay::quantize::formatLayerReport(r.layers, r.floatOps);
  return out;
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

}  // namespace tessera::driver
