// Compiling and running for Python: relay.build (driver::build), the graph executor
// (tvm.contrib.graph_executor), the VM and the reference interpreter behind
// relay.create_executor, and the ONNX importer (relay.frontend.from_onnx). Every call that
// compiles, imports or runs releases the GIL.
#include <memory>

#include "binding.h"
#include "driver/build.h"
#include "driver/load.h"
#include "frontend/onnx/importer.h"
#include "relay/interp/interpreter.h"
#include "runtime/graph_executor/graph_executor.h"
#include "runtime/vm/vm.h"
#include "target/target.h"

namespace tessera::python {

namespace {

using driver::Built;
using runtime::GraphExecutor;
using runtime::vm::VirtualMachine;

std::shared_ptr<Built> buildModule(relay::IRModule mod, const std::string& target,
                                   const std::map<std::string, NDArray>& params, bool vm) {
  driver::BuildOptions options;
  // relay.build compiles at the current PassContext's opt level, as TVM's does.
  options.optLevel = std::nullopt;
  options.executor = vm ? driver::Executor::kVM : driver::Executor::kGraph;
  return std::make_shared<Built>(
      driver::build(std::move(mod), target::Target::parse(target), params, options));
}

py::object vmValueToPython(const runtime::vm::VMValue& v) {
  if (!v.isTuple()) return py::cast(v.tensor);
  py::list fields;
  for (const auto& f : *v.tuple) fields.append(vmValueToPython(f));
  return py::tuple(fields);
}

py::object valueToPython(const relay::Value& v) {
  if (v.isTensor()) return py::cast(v.tensor());
  if (!v.isTuple()) throw py::type_error("the result is a function, which Python cannot hold");
  py::list fields;
  for (const relay::Value& f : v.fields()) fields.append(valueToPython(f));
  return py::tuple(fields);
}

std::vector<NDArray> toArrays(const py::args& args) {
  std::vector<NDArray> out;
  for (py::handle a : args) out.push_back(toNDArray(a));
  return out;
}

void bindBuilt(py::module_& m) {
  py::class_<Built, std::shared_ptr<Built>>(m, "Built", "What relay.build made")
      .def_property_readonly("is_vm", &Built::isVM)
      .def_property_readonly("target", [](const Built& b) { return b.target.str(); })
      .def("get_graph_json", [](const Built& b) { return b.graph.toJson(); })
      .def("get_params", [](const Built& b) { return b.params; })
      .def("export_library", &driver::exportBuilt, py::arg("directory"), ReleaseGil())
      .def("graph_executor",
           [](const Built& b) { return std::make_shared<GraphExecutor>(b.model()); })
      .def("virtual_machine", [](const Built& b) {
        if (!b.exec) throw py::value_error("this module was built for the graph executor");
        return std::make_shared<VirtualMachine>(*b.exec);
      });
  m.def("build", &buildModule, py::arg("mod"), py::arg("target") = "llvm",
        py::arg("params") = std::map<std::string, NDArray>{}, py::arg("vm") = false, ReleaseGil());
  m.def("load_built", &driver::loadBuilt, py::arg("directory"), ReleaseGil());
}

void bindExecutors(py::module_& m) {
  py::class_<GraphExecutor, std::shared_ptr<GraphExecutor>>(m, "GraphExecutor")
      .def("set_input",
           py::overload_cast<const std::string&, const NDArray&>(&GraphExecutor::setInput))
      .def("set_input", py::overload_cast<int, const NDArray&>(&GraphExecutor::setInput))
      .def("run", &GraphExecutor::run, ReleaseGil())
      .def("get_output", py::overload_cast<int>(&GraphExecutor::getOutput, py::const_))
      .def("get_input", &GraphExecutor::getInput)
      .def("get_input_index", &GraphExecutor::inputIndex)
      .def("input_name", &GraphExecutor::inputName)
      .def("get_num_inputs", &GraphExecutor::numInputs)
      .def("get_num_outputs", &GraphExecutor::numOutputs);
  py::class_<VirtualMachine, std::shared_ptr<VirtualMachine>>(m, "VirtualMachine")
      .def("invoke", [](const VirtualMachine& vm, const std::string& fn, py::args args) {
        std::vector<NDArray> arrays = toArrays(args);
        runtime::vm::VMValue result;
        {
          py::gil_scoped_release release;
          result = vm.invoke(fn, arrays);
        }
        return vmValueToPython(result);
      });
  m.def("interpret", [](const relay::IRModule& mod, const std::string& fn, py::args args) {
    std::vector<relay::Value> values;
    for (const NDArray& a : toArrays(args)) values.emplace_back(a);
    relay::Value result;
    {
      py::gil_scoped_release release;
      relay::Interpreter interpreter(mod);
      result = interpreter.call(fn, values);
    }
    return valueToPython(result);
  });
}

// A Python function as an ONNX custom converter: called as f(inputs, dtypes) with the GIL held;
// it returns an expression or a list of them (one per output). Its exception propagates.
frontend::onnx::CustomConverter customConverter(const py::function& fn) {
  // The function is held by a shared pointer whose deleter takes the GIL: the converter may be
  // destroyed where the import released it.
  auto held = std::shared_ptr<py::function>(new py::function(fn), [](py::function* f) {
    py::gil_scoped_acquire gil;
    delete f;
  });
  return [held](const std::vector<relay::Expr>& inputs, const std::vector<std::string>& dtypes) {
    py::gil_scoped_acquire gil;
    py::list args;
    for (const relay::Expr& e : inputs) args.append(wrapExpr(e));
    py::object out = (*held)(args, py::cast(dtypes));
    std::vector<relay::Expr> exprs;
    auto take = [&](py::handle v) {
      if (!py::isinstance<PyExpr>(v))
        throw py::type_error("a custom converter must return Relay expressions, got " +
                             std::string(py::str(v.get_type().attr("__name__"))));
      exprs.push_back(v.cast<const PyExpr&>().expr);
    };
    if (py::isinstance<py::list>(out) || py::isinstance<py::tuple>(out)) {
      for (py::handle v : out) take(v);
    } else {
      take(out);
    }
    return exprs;
  };
}

}  // namespace

void bindBuild(py::module_& m) {
  bindBuilt(m);
  bindExecutors(m);
  m.def(
      "from_onnx_bytes",
      [](const std::string& bytes, const std::map<std::string, std::vector<int64_t>>& shapes,
         const std::string& source, const std::map<std::string, py::function>& custom) {
        frontend::onnx::ImportOptions options{.inputShapes = shapes, .sourceName = source};
        for (const auto& [key, fn] : custom) options.customConverters[key] = customConverter(fn);
        // The import runs without the GIL; custom converters take it back.
        py::gil_scoped_release release;
        return frontend::onnx::importOnnxBytes(bytes, options);
      },
      py::arg("model"), py::arg("shapes"), py::arg("source_name") = "model.onnx",
      py::arg("custom_converters") = std::map<std::string, py::function>{});
  m.def(
      "load_model",
      [](const std::string& path, const std::map<std::string, std::vector<int64_t>>& shapes) {
        return driver::loadModel(path, {.shapes = shapes});
      },
      py::arg("path"), py::arg("shapes") = std::map<std::string, std::vector<int64_t>>{},
      ReleaseGil());
}

}  // namespace tessera::python
