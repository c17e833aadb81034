// Tessera's two error channels as Python exceptions: DiagnosticError (a user-reachable problem,
// with its code, span and message) and InternalError (a failed TS_CHECK). The classes are plain
// Python (tessera/error.py); the package hands them to the extension when it is imported.
#include "binding.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::python {

namespace {

// Set once by tessera/__init__.py. Leaked on purpose: the translator may run while the
// interpreter finalizes, when destroying a Python object is no longer allowed.
py::object* diagnosticClass = nullptr;
py::object* internalClass = nullptr;

py::object spanTuple(const Span& span) {
  if (!span.defined()) return py::none();
  return py::make_tuple(*span.source, span.line, span.column);
}

void raiseDiagnostic(const DiagnosticError& e) {
  const Diagnostic& d = e.diagnostic();
  if (!diagnosticClass) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return;
  }
  // DiagnosticError(text, code, message, span, context, notes): see tessera/error.py.
  py::object error = (*diagnosticClass)(d.str(), d.code, d.message, spanTuple(d.span), d.context,
                                        py::cast(d.notes));
  PyErr_SetObject(diagnosticClass->ptr(), error.ptr());
}

void raiseInternal(const InternalError& e) {
  if (!internalClass) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return;
  }
  py::object error = (*internalClass)(e.what());
  PyErr_SetObject(internalClass->ptr(), error.ptr());
}

}  // namespace

void bindError(py::module_& m) {
  m.def(
      "_set_error_classes",
      [](py::object diagnostic, py::object internal) {
        diagnosticClass = new py::object(std::move(diagnostic));
        internalClass = new py::object(std::move(internal));
      },
      "Called once by the package: the Python classes raised for Tessera's errors");
  // Registered after pybind11's own translator, so it is tried first. A Python exception raised
  // by a callback (py::error_already_set) is not caught here: pybind11 restores it unchanged.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const DiagnosticError& e) {
      raiseDiagnostic(e);
    } catch (const InternalError& e) {
      raiseInternal(e);
    }
  });
  // For the tests of the error path: raises what a C++ TS_CHECK failure raises.
  m.def("_fail_check", [](const std::string& message) { TS_CHECK(false) << message; });
}

}  // namespace tessera::python
