// Shared declarations of the TensorIR, TE and Relax bindings (bind_tir.cc, bind_schedule.cc,
// bind_relax.cc): the Python identities of TIR expressions and PrimFuncs, and their conversions.
#pragma once

#include <string>

#include "binding.h"
#include "te/tensor.h"
#include "tir/expr.h"
#include "tir/function.h"

namespace tessera::python {

/// A TIR expression as Python sees it (tir.PrimExpr; Var, IntImm, ... are the same class).
struct PyPrimExpr {
  tir::PrimExpr expr;
};

/// A PrimFunc as Python sees it (tir.PrimFunc).
struct PyPrimFunc {
  tir::PrimFunc func;
};

/// `value` as T, or a TypeError saying what was expected (a cast failing inside a binding would
/// otherwise read as "incompatible function arguments": pybind11 takes it for an overload miss).
template <typename T>
T castTo(py::handle value, const std::string& expected) {
  auto mismatch = [&] {
    return py::type_error("expected " + expected + ", got " +
                          std::string(py::str(value.get_type().attr("__name__"))));
  };
  try {
    return value.template cast<T>();
  } catch (const py::cast_error&) {
    throw mismatch();
  } catch (const py::reference_cast_error&) {  // None for a class type
    throw mismatch();
  }
}

/// The dtype named `name`; DiagnosticError (code "dtype") when unknown.
DataType tirDtype(const std::string& name);

/// A Python value as a TIR expression: a PrimExpr, an IterVar (its variable), a bool, an int (an
/// int32 immediate, or `like`'s dtype when that is an integer type) or a float (`like`'s dtype
/// when that is a float type, else float32).
tir::PrimExpr toPrimExpr(py::handle value, DataType like = DataType::int32());

/// A shape or index list: each element through toPrimExpr.
std::vector<tir::PrimExpr> toPrimExprs(py::handle values);

void bindTir(py::module_& m);
/// TOPI's TE operators (bind_topi.cc).
void bindTopiOps(py::module_& m);
/// The auto-tuner: tune_tir, compile_tir, the tuning database (bind_tune.cc).
void bindTune(py::module_& m);
void bindSchedule(py::module_& m);
void bindRelax(py::module_& m);
/// The dataflow pattern language, MergeComposite and Python partition rules (bind_pattern.cc;
/// here for tirDtype).
void bindPattern(py::module_& m);
/// VTA: configuration, graph packing, composites, lowering passes, conv2d_packed, simulator
/// (bind_vta.cc).
void bindVta(py::module_& m);

}  // namespace tessera::python
