// The packed-function registry for Python (tvm.register_func, tvm.get_global_func): Python
// functions registered by name are called by C++ (the VM's call_dps_packed, any caller of
// getGlobal), and C++ functions are called from Python.
//
// GIL: a registered Python function may be called from any thread while the GIL is released
// (the binding releases it around every long call), so the wrapper takes the GIL for the call and
// for destroying the function. A Python exception raised by the function travels through C++ as
// py::error_already_set and reaches the Python caller unchanged.
#include "binding.h"

namespace tessera::python {

namespace {

py::object packedToPython(const PackedValue& value) {
  if (value.isTensor()) return py::cast(value.tensor());
  if (value.isInt()) return py::int_(value.toInt());
  if (value.isFloat()) return py::float_(value.toFloat());
  if (value.isString()) return py::str(value.str());
  return py::none();
}

PackedValue pythonToPacked(py::handle value) {
  if (value.is_none()) return PackedValue();
  if (py::isinstance<NDArray>(value)) return PackedValue(value.cast<NDArray>());
  // bool before int: Python's bool is an int; it travels as 0/1 as in TVM.
  if (py::isinstance<py::bool_>(value)) return PackedValue(int64_t(value.cast<bool>()));
  if (py::isinstance<py::int_>(value)) return PackedValue(value.cast<int64_t>());
  if (py::isinstance<py::float_>(value)) return PackedValue(value.cast<double>());
  if (py::isinstance<py::str>(value)) return PackedValue(value.cast<std::string>());
  return PackedValue(toNDArray(value));  // NumPy arrays and array-likes, copied
}

// Destroys a Python object from any thread, unless the interpreter is gone (the registry is a
// C++ static that may outlive it): then the object is leaked, as there is nothing left to free.
void releasePython(py::function* fn) {
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
  py::gil_scoped_acquire gil;
  delete fn;
}

PackedFunc wrapPythonFunction(py::function fn) {
  std::shared_ptr<py::function> held(new py::function(std::move(fn)), releasePython);
  return [held](PackedArgs args) -> PackedValue {
    py::gil_scoped_acquire gil;
    py::tuple pyArgs(args.size());
    for (size_t i = 0; i < args.size(); ++i) pyArgs[i] = packedToPython(args[i]);
    return pythonToPacked((*held)(*pyArgs));
  };
}

/// A C++ packed function as a Python callable (what get_global_func returns).
struct PyPackedFunc {
  std::string name;
  PackedFunc fn;
};

py::object callPacked(const PyPackedFunc& self, py::args args) {
  std::vector<PackedValue> values;
  values.reserve(args.size());
  for (py::handle a : args) values.push_back(pythonToPacked(a));
  PackedValue result;
  {
    py::gil_scoped_release release;
    result = self.fn(values);
  }
  return packedToPython(result);
}

}  // namespace

void bindPacked(py::module_& m) {
  py::class_<PyPackedFunc>(m, "PackedFunc", "A function of the packed-function registry")
      .def("__call__", &callPacked)
      .def_readonly("name", &PyPackedFunc::name)
      .def("__repr__", [](const PyPackedFunc& f) { return "PackedFunc(" + f.name + ")"; });
  m.def(
      "register_func",
      [](const std::string& name, py::function fn, bool override) {
        registerGlobal(name, wrapPythonFunction(std::move(fn)), override);
      },
      py::arg("name"), py::arg("fn"), py::arg("override") = false,
      "Registers a Python function under `name` for C++ callers");
  m.def(
      "get_global_func",
      [](const std::string& name, bool allowMissing) -> py::object {
        const PackedFunc* fn = findGlobal(name);
        if (!fn && allowMissing) return py::none();
        return py::cast(PyPackedFunc{name, fn ? *fn : getGlobal(name)});
      },
      py::arg("name"), py::arg("allow_missing") = false);
  m.def("remove_global_func", &removeGlobal, py::arg("name"));
  m.def("list_global_func_names", &listGlobals);
}

}  // namespace tessera::python
