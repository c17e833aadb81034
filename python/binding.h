// Shared declarations of the pybind11 extension `tessera._core`: one bind function per file, the
// wrappers that give C++ values a Python identity, and the conversions every file needs.
//
// GIL policy (docs/design/python-package.md): every call that compiles, runs passes or runs a
// model releases the GIL (`ReleaseGil` as a call guard); C++ code that calls back into Python
// (registered packed functions) takes it back with py::gil_scoped_acquire.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/attr_value.h"
#include "ir/type.h"
#include "relay/expr.h"
#include "relay/module.h"
#include "relay/transform/pass.h"
#include "runtime/ndarray.h"
#include "runtime/packed_func.h"

namespace tessera::python {

namespace py = pybind11;

/// The call guard of every binding that may run for long (compile, passes, run).
using ReleaseGil = py::call_guard<py::gil_scoped_release>;

/// A graph-IR expression as Python sees it. pybind11 holders cannot be shared_ptr<const T>, so
/// the reference lives in a plain struct; one Python class per expression kind derives from it.
struct PyExpr {
  relay::Expr expr;
};

/// A graph-IR type (TensorType, TupleType, FuncType, IncompleteType).
struct PyType {
  Type type;
};

/// The Python object of the right class (Var, Call, Function, ...) for `e`.
py::object wrapExpr(relay::Expr e);
/// A Relay pass (shared, immutable): relay.transform's passes and the quantizer's stages.
struct PyPass {
  relay::Pass pass;
};

/// The Python object for a type, or None for a null type.
py::object wrapType(Type t);

/// A Python value as an attribute value: None, bool, int, float, str, list/tuple (arrays).
AttrValue toAttrValue(py::handle value);
/// An attribute value as a Python object.
py::object fromAttrValue(const AttrValue& value);

/// A NumPy array (or anything NumPy can read) copied into a fresh, 64-byte aligned NDArray.
NDArray ndarrayFromNumpy(py::handle value, const std::string& dtype);
/// An NDArray, or a NumPy-convertible value copied into one (`ndarrayFromNumpy`).
NDArray toNDArray(py::handle value);
/// A {name: array} dict (values NDArray or NumPy-convertible) as params.
std::map<std::string, NDArray> toParams(py::handle params);

void bindError(py::module_& m);
void bindNDArray(py::module_& m);
void bindPacked(py::module_& m);
void bindType(py::module_& m);
void bindExpr(py::module_& m);
void bindModule(py::module_& m);
void bindTransform(py::module_& m);
void bindBuild(py::module_& m);
void bindQuantize(py::module_& m);

}  // namespace tessera::python
