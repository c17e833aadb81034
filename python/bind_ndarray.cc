// NDArray for Python (tvm.nd): copies to and from NumPy, and DLPack both ways so that NumPy and
// PyTorch share memory with Tessera without copying.
//
// Copy or share: `nd.array(x)` and `.numpy()` copy, as TVM's do (the result does not alias the
// argument). DLPack shares: `nd.from_dlpack(x)` wraps x's memory when it is 64-byte aligned (what
// compiled kernels assume) and copies it into an aligned tensor otherwise; `__dlpack__` exports
// the NDArray's own memory.
#include <pybind11/numpy.h>

#include <cstring>

#include "binding.h"
#include "runtime/dlpack_import.h"
#include "runtime/ndarray_print.h"
#include "support/diagnostic.h"

namespace tessera::python {

namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

DataType parseDtype(const std::string& name) {
  std::optional<DataType> dtype = DataType::parse(name);
  if (!dtype || dtype->isVoid() || dtype->isHandle())
    throwDiagnostic("dtype", "unknown tensor dtype '" + name + "'");
  return *dtype;
}

py::array toNumpy(const NDArray& a) {
  if (a.dtype().code() == DataType::Code::kBFloat)
    throwDiagnostic("dtype", "bfloat16 has no NumPy dtype; convert with astype first");
  py::array out(py::dtype(a.dtype().name()), a.shape());
  std::memcpy(out.mutable_data(), a.data(), a.nbytes());
  return out;
}

// The capsule's destructor runs the deleter only if no consumer took the tensor (a consumer
// renames the capsule "used_dltensor", as the DLPack Python specification says).
void deleteUnusedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (managed && managed->deleter) managed->deleter(managed);
}

py::capsule exportDLPack(const NDArray& a) {
  DLManagedTensor* managed = a.toDLPack();
  PyObject* capsule = PyCapsule_New(managed, kCapsuleName, deleteUnusedCapsule);
  if (!capsule) {
    managed->deleter(managed);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

// Takes the tensor out of a "dltensor" capsule (renaming it, so its destructor leaves it alone).
NDArray importCapsule(py::handle capsule) {
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName))
    throwDiagnostic("dlpack", "expected an unused DLPack capsule named 'dltensor'");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
  return importDLPack(managed, DLPackImport::kCopyIfUnaligned);
}

NDArray fromDLPack(py::handle value) {
  if (PyCapsule_CheckExact(value.ptr())) return importCapsule(value);
  if (!py::hasattr(value, "__dlpack__"))
    throwDiagnostic("dlpack",
                    "expected an object with __dlpack__ (a NumPy array, a PyTorch "
                    "tensor, an NDArray) or a DLPack capsule, got " +
                        std::string(py::str(py::type::of(value).attr("__name__"))));
  if (py::hasattr(value, "__dlpack_device__")) {
    auto device = value.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    if (device.first != kDLCPU)
      throwDiagnostic("dlpack", "only CPU tensors can be imported; this one is on device type " +
                                    std::to_string(device.first));
  }
  return importCapsule(value.attr("__dlpack__")());
}

}  // namespace

NDArray ndarrayFromNumpy(py::handle value, const std::string& dtype) {
  // asarray(order="C") rather than ascontiguousarray, which turns a 0-d array into a 1-d one.
  py::module_ np = py::module_::import("numpy");
  py::object converted =
      np.attr("asarray")(value, dtype.empty() ? py::object(py::none()) : py::str(dtype), "C");
  auto array = py::reinterpret_borrow<py::array>(converted);
  std::string name = py::str(array.dtype().attr("name"));
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  NDArray out = NDArray::empty(shape, parseDtype(name));
  std::memcpy(out.data(), array.data(), out.nbytes());
  return out;
}

NDArray toNDArray(py::handle value) {
  if (py::isinstance<NDArray>(value)) return value.cast<NDArray>();
  return ndarrayFromNumpy(value, "");
}

std::map<std::string, NDArray> toParams(py::handle params) {
  std::map<std::string, NDArray> out;
  if (params.is_none()) return out;
  for (auto [key, value] : params.cast<py::dict>()) out[py::str(key)] = toNDArray(value);
  return out;
}

void bindNDArray(py::module_& m) {
  py::class_<NDArray>(m, "NDArray", "A CPU tensor, 64-byte aligned when Tessera allocates it")
      .def_property_readonly("shape",
                             [](const NDArray& a) { return py::tuple(py::cast(a.shape())); })
      .def_property_readonly("dtype", [](const NDArray& a) { return a.dtype().name(); })
      .def_property_readonly("ndim", &NDArray::ndim)
      .def_property_readonly("_data_address",
                             [](const NDArray& a) { return reinterpret_cast<uintptr_t>(a.data()); })
      .def("numpy", &toNumpy, "A NumPy copy of the data")
      .def(
          "copyfrom",
          [](NDArray& self, py::handle source) {
            NDArray value = toNDArray(source);
            if (value.shape() != self.shape() || value.dtype() != self.dtype())
              throwDiagnostic("copyfrom",
                              "expected " + self.describe() + " but got " + value.describe());
            std::memcpy(self.data(), value.data(), self.nbytes());
            return self;
          },
          "Copies a NumPy array or NDArray of the same shape and dtype into this one")
      .def("copy", &NDArray::copy)
      .def(
          "__dlpack__", [](const NDArray& a, py::object stream) { return exportDLPack(a); },
          py::arg("stream") = py::none(), "A DLPack capsule sharing this array's memory")
      .def("__dlpack_device__", [](const NDArray&) { return py::make_tuple(int(kDLCPU), 0); })
      .def("__repr__", [](const NDArray& a) { return a.describe() + "\n" + formatValues(a); });

  m.def(
      "ndarray_from_numpy",
      [](py::handle value, const std::string& dtype) { return ndarrayFromNumpy(value, dtype); },
      py::arg("value"), py::arg("dtype") = "", "A copy of a NumPy array (or array-like)");
  m.def(
      "ndarray_empty",
      [](std::vector<int64_t> shape, const std::string& dtype) {
        return NDArray::empty(std::move(shape), parseDtype(dtype));
      },
      py::arg("shape"), py::arg("dtype") = "float32",
      "A zero-filled, 64-byte aligned tensor (zero-copy with NumPy through DLPack)");
  m.def("from_dlpack", &fromDLPack, py::arg("value"),
        "Shares the memory of a DLPack producer (NumPy, PyTorch) or capsule; unaligned data is "
        "copied");
}

}  // namespace tessera::python
