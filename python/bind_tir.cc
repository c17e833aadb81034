// TensorIR and tensor expressions for Python (tvm.tir, tvm.te): TIR expressions with Python
// operators, te.placeholder / te.compute with Python lambdas / reduce_axis / sum, max, min,
// te.create_prim_func, PrimFunc and the module of PrimFuncs with their TVMScript text, and
// tvm.build of such a module (lowered by tir::transform::lower under the current PassContext and
// compiled by LLVM) into functions called with NDArrays.
#include <cstdint>
#include <functional>

#include "codegen/llvm/build.h"
#include "codegen/llvm/target.h"
#include "relax/expr.h"
#include "support/diagnostic.h"
#include "target/target.h"
#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "tir/printer/printer.h"
#include "tir/transform/lower.h"
#include "tir_binding.h"

namespace tessera::python {

DataType tirDtype(const std::string& name) {
  std::optional<DataType> dtype = DataType::parse(name);
  if (!dtype) throwDiagnostic("dtype", "unknown dtype '" + name + "'");
  return *dtype;
}

tir::PrimExpr toPrimExpr(py::handle value, DataType like) {
  if (py::isinstance<PyPrimExpr>(value)) return value.cast<const PyPrimExpr&>().expr;
  if (py::isinstance<tir::IterVar>(value)) return value.cast<const tir::IterVar&>().var;
  // bool before int: Python's bool is an int.
  if (py::isinstance<py::bool_>(value)) return tir::boolImm(value.cast<bool>());
  if (py::isinstance<py::int_>(value))
    return tir::intImm(value.cast<int64_t>(), like.isInteger() ? like : DataType::int32());
  if (py::isinstance<py::float_>(value))
    return tir::floatImm(value.cast<double>(), like.isFloat() ? like : DataType::float32());
  throw py::type_error("expected a TIR expression or a number, got " +
                       std::string(py::str(value.get_type())));
}

std::vector<tir::PrimExpr> toPrimExprs(py::handle values) {
  std::vector<tir::PrimExpr> out;
  if (py::isinstance<py::tuple>(values) || py::isinstance<py::list>(values)) {
    for (py::handle v : values) out.push_back(toPrimExpr(v));
    return out;
  }
  out.push_back(toPrimExpr(values));
  return out;
}

namespace {

using tir::PrimExpr;

py::object wrap(PrimExpr e) {
  return py::cast(PyPrimExpr{std::move(e)});
}

/// A binary operator method: the Python operand takes the dtype of the expression it meets.
template <PrimExpr (*F)(PrimExpr, PrimExpr)>
py::object binaryOp(const PyPrimExpr& a, py::handle b) {
  return wrap(F(a.expr, toPrimExpr(b, a.expr->dtype)));
}
template <PrimExpr (*F)(PrimExpr, PrimExpr)>
py::object reflectedOp(const PyPrimExpr& a, py::handle b) {
  return wrap(F(toPrimExpr(b, a.expr->dtype), a.expr));
}

/// `a == b` as Python compares (TVM's EqualOp converted to bool): constants by value, other
/// expressions by identity. The TIR comparison node is `a.equal(b)`.
bool sameValue(const PyPrimExpr& a, py::handle b) {
  if (!py::isinstance<PyPrimExpr>(b) && !py::isinstance<py::int_>(b) &&
      !py::isinstance<py::float_>(b))
    return false;
  PrimExpr y = toPrimExpr(b, a.expr->dtype);
  if (a.expr == y) return true;
  auto* ai = a.expr->as<tir::IntImmNode>();
  auto* yi = y->as<tir::IntImmNode>();
  if (ai && yi) return ai->value == yi->value;
  auto* af = a.expr->as<tir::FloatImmNode>();
  auto* yf = y->as<tir::FloatImmNode>();
  return af && yf && af->value == yf->value;
}

void bindPrimExpr(py::module_& m) {
  py::class_<PyPrimExpr>(m, "PrimExpr", "A TensorIR expression (tir.PrimExpr, Var, IntImm, ...)")
      .def_property_readonly("dtype", [](const PyPrimExpr& e) { return e.expr->dtype.name(); })
      .def_property_readonly("value",
                             [](const PyPrimExpr& e) -> py::object {
                               if (auto* i = e.expr->as<tir::IntImmNode>())
                                 return py::int_(i->value);
                               if (auto* f = e.expr->as<tir::FloatImmNode>())
                                 return py::float_(f->value);
                               throw py::type_error("the expression is not a constant");
                             })
      .def_property_readonly("name",
                             [](const PyPrimExpr& e) {
                               auto* v = e.expr->as<tir::VarNode>();
                               if (!v) throw py::type_error("the expression is not a variable");
                               return v->name;
                             })
      .def("is_var", [](const PyPrimExpr& e) { return e.expr->as<tir::VarNode>() != nullptr; })
      .def("__int__",
           [](const PyPrimExpr& e) {
             auto* i = e.expr->as<tir::IntImmNode>();
             if (!i) throw py::type_error("the expression is not an integer constant");
             return i->value;
           })
      .def("__index__",
           [](const PyPrimExpr& e) {
             auto* i = e.expr->as<tir::IntImmNode>();
             if (!i) throw py::type_error("the expression is not an integer constant");
             return i->value;
           })
      .def("__str__", [](const PyPrimExpr& e) { return tir::toString(e.expr); })
      .def("__repr__", [](const PyPrimExpr& e) { return tir::toString(e.expr); })
      .def("same_as", [](const PyPrimExpr& a, const PyPrimExpr& b) { return a.expr == b.expr; })
      .def("__eq__", &sameValue)
      .def("__ne__", [](const PyPrimExpr& a, py::handle b) { return !sameValue(a, b); })
      .def("__hash__",
           [](const PyPrimExpr& e) -> py::ssize_t {
             // Constants hash as the Python number they equal (__eq__ compares them by value).
             if (auto* i = e.expr->as<tir::IntImmNode>()) return py::hash(py::int_(i->value));
             if (auto* f = e.expr->as<tir::FloatImmNode>()) return py::hash(py::float_(f->value));
             return static_cast<py::ssize_t>(std::hash<const void*>()(e.expr.get()));
           })
      .def("__add__", &binaryOp<tir::add>)
      .def("__radd__", &reflectedOp<tir::add>)
      .def("__sub__", &binaryOp<tir::sub>)
      .def("__rsub__", &reflectedOp<tir::sub>)
      .def("__mul__", &binaryOp<tir::mul>)
      .def("__rmul__", &reflectedOp<tir::mul>)
      .def("__truediv__", &binaryOp<tir::truncdiv>)
      .def("__rtruediv__", &reflectedOp<tir::truncdiv>)
      .def("__floordiv__", &binaryOp<tir::floordiv>)
      .def("__rfloordiv__", &reflectedOp<tir::floordiv>)
      .def("__mod__", &binaryOp<tir::floormod>)
      .def("__rmod__", &reflectedOp<tir::floormod>)
      .def("__lt__", &binaryOp<tir::lt>)
      .def("__le__", &binaryOp<tir::le>)
      .def("__gt__", &binaryOp<tir::gt>)
      .def("__ge__", &binaryOp<tir::ge>)
      .def("__neg__",
           [](const PyPrimExpr& e) {
             return wrap(tir::sub(tir::makeConst(e.expr->dtype, 0), e.expr));
           })
      .def("equal", &binaryOp<tir::eq>)
      .def("not_equal", &binaryOp<tir::ne>)
      .def("astype", [](const PyPrimExpr& e, const std::string& dtype) {
        return wrap(tir::cast(tirDtype(dtype), e.expr));
      });
  m.def("tir_var", [](const std::string& name, const std::string& dtype, bool size) {
    return wrap(size ? tir::makeSizeVar(name, tirDtype(dtype))
                     : tir::makeVar(name, tirDtype(dtype)));
  });
  m.def("tir_const", [](py::handle value, const std::string& dtype) {
    return wrap(tir::makeConst(tirDtype(dtype), value.cast<double>()));
  });
  m.def("tir_binary", [](const std::string& op, py::handle a, py::handle b) {
    PrimExpr x = py::isinstance<PyPrimExpr>(a) ? toPrimExpr(a) : PrimExpr();
    PrimExpr y = toPrimExpr(b, x ? x->dtype : DataType::int32());
    if (!x) x = toPrimExpr(a, y->dtype);
    if (op == "max") return wrap(tir::max(x, y));
    if (op == "min") return wrap(tir::min(x, y));
    if (op == "floordiv") return wrap(tir::floordiv(x, y));
    if (op == "floormod") return wrap(tir::floormod(x, y));
    if (op == "truncdiv") return wrap(tir::truncdiv(x, y));
    if (op == "truncmod") return wrap(tir::truncmod(x, y));
    if (op == "and") return wrap(tir::logicalAnd(x, y));
    if (op == "or") return wrap(tir::logicalOr(x, y));
    throw py::value_error("unknown binary operator " + op);
  });
  m.def("tir_select", [](py::handle c, py::handle t, py::handle f, bool lazy) {
    PrimExpr tv = toPrimExpr(t);
    PrimExpr fv = toPrimExpr(f, tv->dtype);
    return wrap(lazy ? tir::ifThenElse(toPrimExpr(c), tv, fv) : tir::select(toPrimExpr(c), tv, fv));
  });
  m.def("tir_cast", [](const std::string& dtype, py::handle v) {
    return wrap(tir::cast(tirDtype(dtype), toPrimExpr(v)));
  });
  m.def("tir_call", [](const std::string& dtype, const std::string& op, py::list args) {
    return wrap(tir::call(tirDtype(dtype), op, toPrimExprs(args)));
  });
}

void bindTe(py::module_& m) {
  py::class_<tir::IterVar>(m, "IterVar", "An iteration variable (te.reduce_axis, compute axes)")
      .def_property_readonly("var", [](const tir::IterVar& iv) { return wrap(iv.var); })
      .def_property_readonly("dom",
                             [](const tir::IterVar& iv) {
                               return py::make_tuple(wrap(iv.dom.min), wrap(iv.dom.extent));
                             })
      // Identity is the variable's: `s[op].split(k, ...)` finds the reduce axis `k` the user
      // made among the op's axes (te.create_schedule's facade, tessera/te_schedule.py).
      .def("same_as", [](const tir::IterVar& a, const tir::IterVar& b) { return a.var == b.var; })
      .def("__eq__",
           [](const tir::IterVar& a, py::handle b) {
             return py::isinstance<tir::IterVar>(b) && b.cast<const tir::IterVar&>().var == a.var;
           })
      .def("__hash__",
           [](const tir::IterVar& iv) { return std::hash<const void*>{}(iv.var.get()); })
      .def("__repr__", [](const tir::IterVar& iv) { return "IterVar(" + iv.var->name + ")"; });
  py::class_<te::Tensor>(m, "TeTensor", "A tensor expression: a placeholder or a compute's output")
      .def_property_readonly("shape",
                             [](const te::Tensor& t) {
                               py::list dims;
                               for (const PrimExpr& d : t.shape()) dims.append(wrap(d));
                               return py::tuple(dims);
                             })
      .def_property_readonly("dtype", [](const te::Tensor& t) { return t.dtype().name(); })
      .def_property_readonly("name", &te::Tensor::name)
      .def_property_readonly("ndim", &te::Tensor::ndim)
      .def_property_readonly("value_index", &te::Tensor::valueIndex)
      .def_property_readonly("op_name", [](const te::Tensor& t) { return t.op()->name; })
      // The operation's fields, for `tensor.op` (tessera/te.py) and te.create_schedule.
      .def_property_readonly(
          "op_id",
          [](const te::Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.op().get()); })
      .def_property_readonly(
          "op_is_compute", [](const te::Tensor& t) { return t.op()->kind == te::OpKind::kCompute; })
      .def_property_readonly("op_tag", [](const te::Tensor& t) { return t.op()->tag; })
      .def_property_readonly("op_axis", [](const te::Tensor& t) { return t.op()->axis; })
      .def_property_readonly("op_reduce_axis",
                             [](const te::Tensor& t) { return t.op()->reduceAxis; })
      .def_property_readonly("op_inputs", [](const te::Tensor& t) { return t.op()->inputs; })
      .def_property_readonly("op_num_outputs",
                             [](const te::Tensor& t) { return t.op()->outputs.size(); })
      .def("op_output", [](const te::Tensor& t, int i) { return te::Tensor(t.op(), i); })
      .def("__getitem__",
           [](const te::Tensor& t, py::handle indices) {
             std::vector<PrimExpr> idx = toPrimExprs(indices);
             if (static_cast<int>(idx.size()) != t.ndim())
               throwDiagnostic("te", "tensor " + t.name() + " has " + std::to_string(t.ndim()) +
                                         " dimensions, indexed with " + std::to_string(idx.size()));
             return wrap(t(std::move(idx)));
           })
      .def("__repr__", [](const te::Tensor& t) { return "Tensor(" + t.name() + ")"; });
  m.def("te_placeholder", [](py::handle shape, const std::string& name, const std::string& dtype) {
    return te::placeholder(toPrimExprs(shape), tirDtype(dtype), name);
  });
  m.def("te_compute",
        [](py::handle shape, py::function f, const std::string& name, const std::string& tag,
           py::dict attrs, std::vector<std::string> indexNames) {
          te::ComputeOptions options{.name = name, .tag = tag, .indexNames = std::move(indexNames)};
          for (auto [k, v] : attrs) options.attrs.set(k.cast<std::string>(), toAttrValue(v));
          te::FComputeMulti body = [&f](const std::vector<tir::Var>& vars) {
            py::tuple args(vars.size());
            for (size_t i = 0; i < vars.size(); ++i) args[i] = wrap(vars[i]);
            py::object result = f(*args);
            if (py::isinstance<py::list>(result) || py::isinstance<py::tuple>(result))
              return toPrimExprs(result);
            return std::vector<PrimExpr>{toPrimExpr(result)};
          };
          return te::computeMulti(toPrimExprs(shape), body, std::move(options));
        });
  m.def("te_reduce_axis", [](py::handle begin, py::handle end, const std::string& name) {
    PrimExpr b = toPrimExpr(begin);
    return te::reduceAxis(tir::Range{b, tir::sub(toPrimExpr(end, b->dtype), b)}, name);
  });
  m.def("te_reduce", [](const std::string& kind, py::handle source,
                        const std::vector<tir::IterVar>& axes, py::handle where, py::handle init) {
    te::ReduceOptions options;
    PrimExpr src = toPrimExpr(source);
    if (!where.is_none()) options.where = toPrimExpr(where);
    if (!init.is_none()) options.init = toPrimExpr(init, src->dtype);
    if (kind == "sum") return wrap(te::sum(src, axes, options));
    if (kind == "max") return wrap(te::max(src, axes, options));
    if (kind == "min") return wrap(te::min(src, axes, options));
    if (kind == "prod") return wrap(te::prod(src, axes, options));
    throw py::value_error("unknown reduction " + kind);
  });
  m.def("te_create_prim_func", [](const std::vector<te::Tensor>& args, py::object indexDtype) {
    std::optional<DataType> dtype;
    if (!indexDtype.is_none()) dtype = tirDtype(indexDtype.cast<std::string>());
    return PyPrimFunc{te::createPrimFunc(args, dtype)};
  });
}

tir::PrimFunc funcNamed(const tir::TirModule& mod, const std::string& name) {
  tir::PrimFunc f = mod.find(name);
  if (!f) {
    std::string names;
    for (const tir::PrimFunc& g : mod.functions()) names += (names.empty() ? "" : ", ") + g->name;
    throwDiagnostic("tir_module", "no function named '" + name + "'; the module has: " + names);
  }
  return f;
}

/// `func` under module name `name`: the entry "main" a scheduled function is called by.
tir::PrimFunc renamed(const tir::PrimFunc& func, const std::string& name) {
  if (func->name == name) return func;
  auto copy = std::make_shared<tir::PrimFuncNode>(*func);
  copy->name = name;
  return copy;
}

void bindPrimFunc(py::module_& m) {
  py::class_<PyPrimFunc>(m, "PrimFunc", "A TensorIR function (tir.PrimFunc)")
      .def_property_readonly("name", [](const PyPrimFunc& f) { return f.func->name; })
      .def_property_readonly("params",
                             [](const PyPrimFunc& f) {
                               py::list out;
                               for (const tir::Var& p : f.func->params) out.append(wrap(p));
                               return out;
                             })
      .def_property_readonly("attrs",
                             [](const PyPrimFunc& f) {
                               py::dict out;
                               for (const auto& [k, v] : f.func->attrs.entries())
                                 out[py::str(k)] = fromAttrValue(v);
                               return out;
                             })
      .def("with_attr",
           [](const PyPrimFunc& f, const std::string& key, py::handle value) {
             return PyPrimFunc{relax::withAttr(f.func, key, toAttrValue(value))};
           })
      .def("script", [](const PyPrimFunc& f) { return tir::toScript(f.func); })
      .def("__str__", [](const PyPrimFunc& f) { return tir::toScript(f.func); })
      .def("same_as", [](const PyPrimFunc& a, const PyPrimFunc& b) { return a.func == b.func; });

  py::class_<tir::TirModule>(m, "TirModule", "A module of PrimFuncs (IRModule for TensorIR)")
      .def(py::init<>())
      .def_static("from_func",
                  [](const PyPrimFunc& f, const std::string& name) {
                    tir::TirModule mod;
                    mod.add(renamed(f.func, name));
                    return mod;
                  })
      .def("__getitem__", [](const tir::TirModule& mod,
                             const std::string& name) { return PyPrimFunc{funcNamed(mod, name)}; })
      .def("__setitem__", [](tir::TirModule& mod, const std::string& name,
                             const PyPrimFunc& f) { mod.add(renamed(f.func, name)); })
      .def("__contains__",
           [](const tir::TirModule& mod, const std::string& name) { return !!mod.find(name); })
      .def("__len__", [](const tir::TirModule& mod) { return mod.functions().size(); })
      .def("names",
           [](const tir::TirModule& mod) {
             std::vector<std::string> out;
             for (const tir::PrimFunc& f : mod.functions()) out.push_back(f->name);
             return out;
           })
      .def("script", [](const tir::TirModule& mod) { return tir::toScript(mod); })
      .def("__str__", [](const tir::TirModule& mod) { return tir::toScript(mod); });
}

void bindTirBuild(py::module_& m) {
  py::class_<codegen::CompiledModule>(m, "CompiledModule",
                                      "Compiled PrimFuncs (tvm.build's module)")
      .def_property_readonly("function_names", &codegen::CompiledModule::functionNames)
      .def_property_readonly("entry_name", &codegen::CompiledModule::entryName)
      .def("has_function", [](const codegen::CompiledModule& lib,
                              const std::string& name) { return lib.getFunction(name) != nullptr; })
      .def("call",
           [](const codegen::CompiledModule& lib, const std::string& name, py::args args) {
             std::vector<NDArray> arrays;
             for (py::handle a : args) arrays.push_back(toNDArray(a));
             py::gil_scoped_release release;
             lib.call(name, arrays);
           })
      .def("get_source", &codegen::CompiledModule::llvmIR)
      .def("export_library", &codegen::CompiledModule::exportLibrary, py::arg("path"),
           ReleaseGil());
  m.def(
      "tir_build",
      [](tir::TirModule mod, const std::string& target) {
        // Lowered under the caller's PassContext (tir.disable_vectorize, ...), as TVM's build.
        tir::TirModule lowered =
            tir::transform::lower(std::move(mod), transform::PassContext::current());
        // The host's triple, CPU and features filled in, as driver::build resolves its target.
        return codegen::compile(lowered, codegen::withHostDefaults(target::Target::parse(target)));
      },
      py::arg("mod"), py::arg("target") = "llvm", ReleaseGil());
  m.def(
      "tir_lower",
      [](tir::TirModule mod) {
        return tir::transform::lower(std::move(mod), transform::PassContext::current());
      },
      ReleaseGil());
}

}  // namespace

void bindTir(py::module_& m) {
  bindPrimExpr(m);
  bindTe(m);
  bindPrimFunc(m);
  bindTirBuild(m);
}

}  // namespace tessera::python
