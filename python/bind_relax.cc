// Relax for Python (tvm.relax): struct info, variables and constants, call_tir and
// call_dps_packed, the high-level ops the VM compiler legalizes, the BlockBuilder (function and
// dataflow scopes, emit, emit_te with Python TE functions, emit_output, emit_func_output), the
// module of Relax functions and PrimFuncs with its TVMScript text (printed, and parsed for
// tessera.script's decorators), BindParams, and relax.build to the VM's executable
// (relax::compile under the current PassContext). The VM itself is _core.VirtualMachine
// (bind_build.cc).
#include <memory>
#include <utility>
#include <variant>

#include "relax/bind_params.h"
#include "relax/block_builder.h"
#include "relax/ops.h"
#include "relax/printer.h"
#include "relax/script_parser.h"
#include "relax/vm.h"
#include "support/diagnostic.h"
#include "tir/script/parser.h"
#include "tir_binding.h"

namespace tessera::python {

namespace {

using relax::Expr;

/// A Relax expression; Var and DataflowVar are Python subclasses (isinstance checks in seed 002).
struct PyRelaxExpr {
  Expr expr;
};
struct PyRelaxVar : PyRelaxExpr {};
struct PyRelaxDataflowVar : PyRelaxVar {};
struct PySInfo {
  relax::StructInfo sinfo;
};
struct PyRelaxFunc {
  relax::Function func;
};

py::object wrapRelax(Expr e) {
  if (auto* v = e->as<relax::VarNode>()) {
    if (v->dataflow) return py::cast(PyRelaxDataflowVar{{{std::move(e)}}});
    return py::cast(PyRelaxVar{{std::move(e)}});
  }
  return py::cast(PyRelaxExpr{std::move(e)});
}

relax::Var varOf(const PyRelaxExpr& e) {
  return std::static_pointer_cast<const relax::VarNode>(e.expr);
}

/// A Relax argument: an expression, or a tensor/NumPy value as a constant.
Expr toRelax(py::handle value) {
  if (py::isinstance<PyRelaxExpr>(value)) return value.cast<const PyRelaxExpr&>().expr;
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::vector<Expr> fields;
    for (py::handle f : value) fields.push_back(toRelax(f));
    return relax::makeTuple(std::move(fields));
  }
  return relax::makeConstant(toNDArray(value));
}

/// call_tir's argument list: a tuple or list of expressions, or a single expression.
std::vector<Expr> toArgs(py::handle args) {
  std::vector<Expr> out;
  if (py::isinstance<py::list>(args) || py::isinstance<py::tuple>(args)) {
    for (py::handle a : args) out.push_back(toRelax(a));
    return out;
  }
  out.push_back(toRelax(args));
  return out;
}

relax::StructInfo toSInfo(py::handle s) {
  if (py::isinstance<PySInfo>(s)) return s.cast<const PySInfo&>().sinfo;
  if (py::isinstance<py::list>(s) || py::isinstance<py::tuple>(s)) {
    std::vector<relax::StructInfo> fields;
    for (py::handle f : s) fields.push_back(toSInfo(f));
    return relax::tupleSInfo(std::move(fields));
  }
  throw py::type_error("expected a StructInfo (relax.TensorStructInfo) or a list of them");
}

/// A tensor shape's dimensions: ints become int64 constants, a str an int64 variable of that
/// name (one per call), a TIR expression is used as is.
std::vector<tir::PrimExpr> toDims(py::handle shape) {
  std::vector<tir::PrimExpr> dims;
  for (py::handle d : shape) {
    if (py::isinstance<py::str>(d))
      dims.push_back(tir::makeVar(d.cast<std::string>(), DataType::int64()));
    else if (py::isinstance<py::int_>(d))
      dims.push_back(relax::dim(d.cast<int64_t>()));
    else
      dims.push_back(toPrimExpr(d, DataType::int64()));
  }
  return dims;
}

py::object moduleItem(const relax::IRModule& mod, const std::string& name) {
  const relax::IRModule::Func* f = mod.find(name);
  if (!f) throwDiagnostic("relax_module", "no function named '" + name + "' in the module");
  if (auto* fn = std::get_if<relax::Function>(f)) return py::cast(PyRelaxFunc{*fn});
  return py::cast(PyPrimFunc{std::get<tir::PrimFunc>(*f)});
}

relax::IRModule::Func toFunc(py::handle f) {
  if (py::isinstance<PyPrimFunc>(f)) return f.cast<const PyPrimFunc&>().func;
  return castTo<const PyRelaxFunc&>(f, "a relax.Function or a tir.PrimFunc").func;
}

void bindRelaxExprs(py::module_& m) {
  py::class_<PySInfo>(m, "StructInfo", "Relax struct info (TensorStructInfo, TupleStructInfo)")
      .def_property_readonly("ndim", [](const PySInfo& s) { return s.sinfo->ndim; })
      .def_property_readonly("dtype", [](const PySInfo& s) { return s.sinfo->dtype.name(); })
      .def_property_readonly("shape",
                             [](const PySInfo& s) -> py::object {
                               if (!s.sinfo->shape) return py::none();
                               py::list dims;
                               for (const tir::PrimExpr& d : *s.sinfo->shape)
                                 dims.append(PyPrimExpr{d});
                               return py::tuple(dims);
                             })
      .def("__repr__", [](const PySInfo& s) { return relax::sinfoScript(s.sinfo); });
  m.def("relax_tensor_sinfo", [](py::handle shape, const std::string& dtype, int ndim) {
    if (shape.is_none()) return PySInfo{relax::tensorSInfoNdim(ndim, tirDtype(dtype))};
    return PySInfo{relax::tensorSInfo(toDims(shape), tirDtype(dtype))};
  });
  m.def("relax_tuple_sinfo", [](py::handle fields) { return PySInfo{toSInfo(fields)}; });
  m.def("relax_object_sinfo", [] { return PySInfo{relax::objectSInfo()}; });

  py::class_<PyRelaxExpr>(m, "RelaxExpr", "A Relax expression")
      .def_property_readonly("struct_info",
                             [](const PyRelaxExpr& e) { return PySInfo{e.expr->sinfo}; })
      .def("same_as", [](const PyRelaxExpr& a, const PyRelaxExpr& b) { return a.expr == b.expr; })
      .def("__repr__", [](const PyRelaxExpr& e) {
        if (auto* v = e.expr->as<relax::VarNode>()) return v->name;
        if (auto* c = e.expr->as<relax::CallNode>()) return c->op + "(...)";
        return std::string("relax.Expr");
      });
  py::class_<PyRelaxVar, PyRelaxExpr>(m, "RelaxVar", "A Relax variable (relax.Var)")
      .def_property_readonly("name_hint", [](const PyRelaxVar& v) { return varOf(v)->name; });
  py::class_<PyRelaxDataflowVar, PyRelaxVar>(m, "RelaxDataflowVar",
                                             "A variable of a dataflow block (relax.DataflowVar)");
  m.def("relax_var", [](const std::string& name, py::handle sinfo, bool dataflow) {
    relax::StructInfo s = sinfo.is_none() ? relax::objectSInfo() : toSInfo(sinfo);
    return wrapRelax(dataflow ? relax::makeDataflowVar(name, s) : relax::makeVar(name, s));
  });
  m.def("relax_const",
        [](py::handle value) { return wrapRelax(relax::makeConstant(toNDArray(value))); });
  m.def("relax_tuple", [](py::list fields) { return wrapRelax(toRelax(fields)); });
  m.def("relax_tuple_get_item", [](const PyRelaxExpr& t, int index) {
    return wrapRelax(relax::makeTupleGetItem(t.expr, index));
  });
  m.def("relax_call_tir", [](const std::string& func, py::handle args, py::handle outSinfo) {
    return wrapRelax(relax::callTir(func, toArgs(args), toSInfo(outSinfo)));
  });
  m.def("relax_call_dps_packed", [](const std::string& func, py::handle args, py::handle outSinfo) {
    return wrapRelax(relax::callDpsPacked(func, toArgs(args), toSInfo(outSinfo)));
  });
  m.def("relax_op", [](const std::string& op, py::list args, std::vector<int64_t> axes) {
    std::vector<Expr> a;
    for (py::handle x : args) a.push_back(toRelax(x));
    auto arity = [&](size_t n) {
      if (a.size() != n)
        throwDiagnostic("relax_op", "relax." + op + " takes " + std::to_string(n) + " arguments");
    };
    if (op == "add") return arity(2), wrapRelax(relax::add(a[0], a[1]));
    if (op == "multiply") return arity(2), wrapRelax(relax::multiply(a[0], a[1]));
    if (op == "matmul") return arity(2), wrapRelax(relax::matmul(a[0], a[1]));
    if (op == "relu") return arity(1), wrapRelax(relax::relu(a[0]));
    if (op == "permute_dims") return arity(1), wrapRelax(relax::permuteDims(a[0], axes));
    throwDiagnostic("relax_op", "Tessera's Relax has no op '" + op + "'");
  });
}

void bindBlockBuilder(py::module_& m) {
  using relax::BlockBuilder;
  py::class_<BlockBuilder, std::shared_ptr<BlockBuilder>>(m, "BlockBuilder")
      .def(py::init<>())
      .def(py::init<relax::IRModule>())
      .def(
          "function",
          [](BlockBuilder& bb, const std::string& name, py::handle params, bool isPrivate) {
            std::optional<std::vector<relax::Var>> ps;
            if (!params.is_none()) {
              ps.emplace();
              for (py::handle p : params)
                ps->push_back(varOf(castTo<const PyRelaxVar&>(p, "a relax.Var parameter")));
            }
            bb.function(name, ps, isPrivate);
          },
          py::arg("name"), py::arg("params") = py::none(), py::arg("private") = false)
      .def("begin_dataflow", &BlockBuilder::beginDataflow)
      .def("end_dataflow", &BlockBuilder::endDataflow)
      .def(
          "emit",
          [](BlockBuilder& bb, py::handle e, const std::string& name) {
            return wrapRelax(bb.emit(toRelax(e), name));
          },
          py::arg("expr"), py::arg("name_hint") = "")
      .def(
          "emit_output",
          [](BlockBuilder& bb, py::handle e, const std::string& name) {
            return wrapRelax(bb.emitOutput(toRelax(e), name));
          },
          py::arg("output"), py::arg("name_hint") = "")
      .def("emit_te",
           [](BlockBuilder& bb, const std::string& name, py::function f, py::handle args) {
             // The Python TE function runs now, with the GIL held, on placeholders standing for
             // the Relax arguments.
             relax::TeFunction te = [&f](const std::vector<te::Tensor>& tensors) {
               py::tuple ts(tensors.size());
               for (size_t i = 0; i < tensors.size(); ++i) ts[i] = py::cast(tensors[i]);
               return castTo<te::Tensor>(f(*ts), "the TE function to return a te.Tensor");
             };
             return wrapRelax(bb.emitTe(name, te, toArgs(args)));
           })
      .def(
          "emit_func_output",
          [](BlockBuilder& bb, py::handle output, py::handle params) {
            std::optional<std::vector<relax::Var>> ps;
            if (!params.is_none()) {
              ps.emplace();
              for (py::handle p : params)
                ps->push_back(varOf(castTo<const PyRelaxVar&>(p, "a relax.Var parameter")));
            }
            return bb.emitFuncOutput(toRelax(output), ps);
          },
          py::arg("output"), py::arg("params") = py::none())
      .def("get", &BlockBuilder::get);
}

void bindRelaxModule(py::module_& m) {
  py::class_<PyRelaxFunc>(m, "RelaxFunction", "A Relax function (relax.Function)")
      .def_property_readonly("params",
                             [](const PyRelaxFunc& f) {
                               py::list out;
                               for (const relax::Var& p : f.func->params) out.append(wrapRelax(p));
                               return out;
                             })
      .def(
          "script",
          [](const PyRelaxFunc& f, const std::string& name) {
            return relax::toScript(f.func, name);
          },
          py::arg("name") = "main");
  py::class_<relax::IRModule>(m, "RelaxModule", "A module of Relax functions and PrimFuncs")
      .def(py::init<>())
      .def("__getitem__", &moduleItem)
      .def("__contains__", &relax::IRModule::contains)
      .def("__setitem__",
           [](relax::IRModule& mod, const std::string& name, py::handle f) {
             if (mod.contains(name))
               mod.update(name, toFunc(f));
             else
               mod.add(name, toFunc(f));
           })
      .def("update_func", [](relax::IRModule& mod, const std::string& name,
                             py::handle f) { mod.update(name, toFunc(f)); })
      .def("names",
           [](const relax::IRModule& mod) {
             std::vector<std::string> out;
             for (const auto& e : mod.entries()) out.push_back(e.name);
             return out;
           })
      .def("script", [](const relax::IRModule& mod) { return relax::toScript(mod); })
      .def("__str__", [](const relax::IRModule& mod) { return relax::toScript(mod); });
  m.def(
      "relax_bind_params",
      [](const relax::IRModule& mod, const std::string& name, py::handle params) {
        return relax::bindParams(mod, name, toParams(params));
      },
      py::arg("mod"), py::arg("func_name"), py::arg("params"));
  py::class_<relax::Executable, std::shared_ptr<relax::Executable>>(m, "RelaxExecutable",
                                                                    "What relax.build made");
  m.def(
      "relax_build",
      [](const relax::IRModule& mod) {
        return std::make_shared<relax::Executable>(
            relax::compile(mod, transform::PassContext::current()));
      },
      ReleaseGil());
  m.def("relax_vm", [](const relax::Executable& exec) {
    return std::make_shared<relax::VirtualMachine>(exec);
  });
}

}  // namespace

// TVMScript in (tessera.script): the C++ parsers, called with the decorated source.
void bindScript(py::module_& m) {
  m.def(
      "tvmscript_module",
      [](const std::string& text, const std::string& source) -> py::object {
        relax::IRModule mod;
        {
          py::gil_scoped_release release;
          mod = relax::parseScript(text, source);
        }
        // A module of PrimFuncs only is a TIR module: tir.Schedule and tessera.build take it.
        bool tirOnly = true;
        for (const relax::IRModule::Entry& e : mod.entries())
          tirOnly = tirOnly && std::holds_alternative<tir::PrimFunc>(e.func);
        if (!tirOnly) return py::cast(std::move(mod));
        tir::TirModule prims;
        for (const relax::IRModule::Entry& e : mod.entries())
          prims.add(std::get<tir::PrimFunc>(e.func));
        return py::cast(std::move(prims));
      },
      py::arg("text"), py::arg("source") = "<tvmscript>");
  m.def(
      "tvmscript_prim_func",
      [](const std::string& text, const std::string& source) {
        return PyPrimFunc{tir::parsePrimFunc(text, source)};
      },
      py::arg("text"), py::arg("source") = "<tvmscript>", ReleaseGil());
  m.def(
      "tvmscript_relax_function",
      [](const std::string& text, const std::string& source) {
        std::pair<std::string, relax::Function> parsed;
        {
          py::gil_scoped_release release;
          parsed = relax::parseFunction(text, source);
        }
        return py::make_tuple(parsed.first, PyRelaxFunc{parsed.second});
      },
      py::arg("text"), py::arg("source") = "<tvmscript>");
}

void bindRelax(py::module_& m) {
  bindRelaxExprs(m);
  bindBlockBuilder(m);
  bindRelaxModule(m);
  bindScript(m);
}

}  // namespace tessera::python
