// The extension module `tessera._core`: the C++ side of the Python package. The package in
// python/tessera/ arranges these bindings under TVM's module paths.
#include "binding.h"
#include "tir_binding.h"

PYBIND11_MODULE(_core, m) {
  namespace tp = tessera::python;
  m.doc() = "Tessera's C++ library as seen from Python (use the `tessera` package)";
  // Errors first: every later binding's failures go through its translator.
  tp::bindError(m);
  tp::bindNDArray(m);
  tp::bindPacked(m);
  tp::bindType(m);
  tp::bindExpr(m);
  tp::bindModule(m);
  tp::bindTransform(m);
  tp::bindBuild(m);
  tp::bindQuantize(m);
  tp::bindTir(m);
  tp::bindTopiOps(m);
  tp::bindSchedule(m);
  tp::bindTune(m);
  tp::bindRelax(m);
  tp::bindPattern(m);
  tp::bindVta(m);
}
