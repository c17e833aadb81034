// IRModule for Python (tvm.IRModule): a value holding named functions, indexed as `mod["main"]`,
// printed as Relay text, and parsed from it (tvm.relay.fromtext, tvm.parser.parse).
#include "binding.h"
#include "relay/structural_equal.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"

namespace tessera::python {

namespace {

using relay::IRModule;

std::string globalName(py::handle key) {
  if (py::isinstance<py::str>(key)) return key.cast<std::string>();
  const PyExpr& e = key.cast<const PyExpr&>();
  if (const auto* g = e.expr->as<relay::GlobalVarNode>()) return g->name;
  throw py::type_error("an IRModule is indexed by a function name or a GlobalVar");
}

relay::Function asFunction(const PyExpr& e) {
  relay::Function fn = relay::exprAs<relay::FunctionNode>(e.expr);
  if (!fn) throw py::type_error("an IRModule holds relay.Function values");
  return fn;
}

}  // namespace

void bindModule(py::module_& m) {
  py::class_<IRModule>(m, "IRModule", "Named global functions; `main` is the entry")
      .def(py::init<>())
      .def(py::init([](py::dict functions) {
        IRModule mod;
        for (auto [name, fn] : functions) mod.add(globalName(name), asFunction(fn.cast<PyExpr>()));
        return mod;
      }))
      .def_static("from_expr", [](const PyExpr& e) { return IRModule::fromExpr(e.expr); })
      .def("__getitem__", [](const IRModule& mod,
                             py::handle key) { return wrapExpr(mod.lookup(globalName(key))); })
      .def("__setitem__", [](IRModule& mod, py::handle key,
                             const PyExpr& fn) { mod.add(globalName(key), asFunction(fn)); })
      .def("__contains__",
           [](const IRModule& mod, py::handle key) { return mod.has(globalName(key)); })
      .def("update_func",
           [](IRModule& mod, const PyExpr& gv, const PyExpr& fn) {
             mod.add(globalName(py::cast(gv)), asFunction(fn));
           })
      .def("get_global_var",
           [](IRModule& mod, const std::string& name) {
             if (!mod.has(name)) throw py::value_error("no function named " + name);
             return wrapExpr(mod.globalVar(name));
           })
      .def("get_global_vars",
           [](IRModule& mod) {
             py::list out;
             for (const auto& [name, fn] : mod.functions())
               out.append(wrapExpr(mod.globalVar(name)));
             return out;
           })
      .def_property_readonly("functions",
                             [](IRModule& mod) {
                               py::dict out;
                               for (const auto& [name, fn] : mod.functions())
                                 out[wrapExpr(mod.globalVar(name))] = wrapExpr(fn);
                               return out;
                             })
      .def(
          "astext",
          [](const IRModule& mod, bool showMetaData) {
            return relay::printModule(mod, {.header = true, .metadata = showMetaData});
          },
          py::arg("show_meta_data") = true)
      .def("__str__", [](const IRModule& mod) { return relay::printModule(mod); })
      .def("__repr__", [](const IRModule& mod) { return relay::printModule(mod); })
      .def("copy", [](const IRModule& mod) { return mod; })
      // copy.deepcopy(mod), as seed 000 does before each transformation: the functions are
      // immutable, so a copy of the module is a deep copy.
      .def("__copy__", [](const IRModule& mod) { return mod; })
      .def("__deepcopy__", [](const IRModule& mod, py::handle) { return mod; });
  m.def(
      "parse_module",
      [](const std::string& text, const std::string& source) {
        return relay::parseModule(text, source);
      },
      py::arg("text"), py::arg("source_name") = "from_string", ReleaseGil());
  m.def("module_structural_equal",
        [](const IRModule& a, const IRModule& b) { return relay::structuralEqual(a, b); });
}

}  // namespace tessera::python
