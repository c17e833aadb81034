// int8 quantization for Python (tvm.relay.quantize): QConfig with TVM's field names, entered as
// a scope by `with relay.quantize.qconfig(...)`, and quantize / prerequisite_optimize /
// partition / annotate / realize over the C++ implementation (driver/quantize.h).
#include "binding.h"
#include "driver/quantize.h"
#include "relay/quantize/qconfig.h"
#include "relay/quantize/quantize.h"

namespace tessera::python {

namespace {

using relay::quantize::QConfig;
using relay::quantize::QConfigScope;

// The scopes entered from Python on this thread, innermost last: `with` blocks nest, so the
// exit of a block always ends the innermost scope.
thread_local std::vector<std::unique_ptr<QConfigScope>> enteredScopes;

std::vector<std::map<std::string, NDArray>> toDataset(py::handle dataset) {
  std::vector<std::map<std::string, NDArray>> out;
  if (dataset.is_none()) return out;
  for (py::handle batch : dataset) out.push_back(toParams(batch));
  return out;
}

relay::IRModule quantizeModule(const relay::IRModule& mod,
                               const std::map<std::string, NDArray>& params,
                               const relay::quantize::CalibrationDataset& dataset) {
  driver::QuantizeOptions options;
  options.config = relay::quantize::currentQConfig();
  options.params = params;
  options.dataset = dataset;
  return driver::quantizeModel(mod, options, relay::PassContext::current()).module;
}

void bindQConfig(py::module_& m) {
  py::class_<QConfig>(m, "QConfig", "relay.quantize's configuration (TVM 0.16 fields)")
      .def(py::init([] { return QConfig::scoped(); }))
      .def_readwrite("nbit_input", &QConfig::nbitInput)
      .def_readwrite("nbit_weight", &QConfig::nbitWeight)
      .def_readwrite("nbit_activation", &QConfig::nbitActivation)
      .def_property(
          "dtype_input", [](const QConfig& c) { return c.dtypeInput.name(); },
          [](QConfig& c, const std::string& v) { c.dtypeInput = *DataType::parse(v); })
      .def_property(
          "dtype_weight", [](const QConfig& c) { return c.dtypeWeight.name(); },
          [](QConfig& c, const std::string& v) { c.dtypeWeight = *DataType::parse(v); })
      .def_property(
          "dtype_activation", [](const QConfig& c) { return c.dtypeActivation.name(); },
          [](QConfig& c, const std::string& v) { c.dtypeActivation = *DataType::parse(v); })
      .def_readwrite("calibrate_mode", &QConfig::calibrateMode)
      .def_readwrite("global_scale", &QConfig::globalScale)
      .def_readwrite("weight_scale", &QConfig::weightScale)
      .def_readwrite("unsigned_inputs", &QConfig::unsignedInputs)
      .def_readwrite("skip_dense_layer", &QConfig::skipDenseLayer)
      .def_readwrite("skip_conv_layers", &QConfig::skipConvLayers)
      .def_readwrite("do_simulation", &QConfig::doSimulation)
      .def_readwrite("round_for_shift", &QConfig::roundForShift)
      .def_readwrite("debug_enabled_ops", &QConfig::debugEnabledOps)
      .def_readwrite("rounding", &QConfig::rounding)
      .def_readwrite("calibrate_chunk_by", &QConfig::calibrateChunkBy)
      .def_readwrite("partition_conversions", &QConfig::partitionConversions)
      .def("validate", &QConfig::validate)
      .def("_enter",
           [](const QConfig& c) {
             c.validate();
             enteredScopes.push_back(std::make_unique<QConfigScope>(c));
           })
      .def("_exit", [](const QConfig&) { enteredScopes.pop_back(); })
      .def("__str__", &QConfig::str)
      .def("__repr__", &QConfig::str);
  m.def("current_qconfig", [] { return relay::quantize::currentQConfig(); });
}

}  // namespace

void bindQuantize(py::module_& m) {
  bindQConfig(m);
  m.def(
      "quantize",
      [](const relay::IRModule& mod, py::handle params, py::handle dataset) {
        std::map<std::string, NDArray> bound = toParams(params);
        relay::quantize::CalibrationDataset batches = toDataset(dataset);
        py::gil_scoped_release release;
        return quantizeModule(mod, bound, batches);
      },
      py::arg("mod"), py::arg("params") = py::none(), py::arg("dataset") = py::none());
  m.def(
      "prerequisite_optimize",
      [](const relay::IRModule& mod, py::handle params) {
        std::map<std::string, NDArray> bound = toParams(params);
        py::gil_scoped_release release;
        return relay::quantize::prerequisiteOptimize(mod, bound);
      },
      py::arg("mod"), py::arg("params") = py::none());
  // The three rewriting stages as passes (relay.quantize.partition() etc.), with the built-in
  // rules registered first, as quantize() does.
  m.def("quantize_stage_pass", [](const std::string& stage) {
    relay::quantize::registerBuiltinRules();
    if (stage == "partition") return PyPass{relay::quantize::partitionPass()};
    if (stage == "annotate") return PyPass{relay::quantize::annotatePass()};
    if (stage == "realize") return PyPass{relay::quantize::realizePass()};
    throw py::value_error("no quantization stage named " + stage);
  });
}

}  // namespace tessera::python
