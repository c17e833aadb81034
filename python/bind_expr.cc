// Graph-IR expressions for Python (tvm.relay.expr): one Python class per node kind, their
// fields under TVM's names, the constructors, and the op registry the package generates
// `relay.add`, `relay.nn.conv2d(...)` and every other op function from.
#include "binding.h"
#include "ir/attrs.h"
#include "relay/builder.h"
#include "relay/op_registry.h"
#include "relay/structural_equal.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::python {

namespace {

using namespace relay;

struct PyVar : PyExpr {};
struct PyGlobalVar : PyExpr {};
struct PyConstant : PyExpr {};
struct PyOp : PyExpr {};
struct PyCall : PyExpr {};
struct PyTuple : PyExpr {};
struct PyTupleGetItem : PyExpr {};
struct PyLet : PyExpr {};
struct PyIf : PyExpr {};
struct PyFunction : PyExpr {};

/// A call's attributes: read by name (`call.attrs.channels`, `call.attrs["channels"]`).
struct PyAttrs {
  Attrs attrs;
};

template <typename Node>
const Node& node(const PyExpr& e) {
  return *e.expr->as<Node>();
}

std::vector<Expr> unwrapAll(const std::vector<PyExpr>& items) {
  std::vector<Expr> out;
  out.reserve(items.size());
  for (const PyExpr& e : items) out.push_back(e.expr);
  return out;
}

template <typename T>
py::list wrapAll(const std::vector<T>& items) {
  py::list out;
  for (const auto& e : items) out.append(wrapExpr(e));
  return out;
}

Var asVar(const PyExpr& e) {
  Var v = exprAs<VarNode>(e.expr);
  if (!v) throwDiagnostic("relay_var", "expected a relay.Var but got " + exprSummary(e.expr));
  return v;
}

DictAttrs toDictAttrs(py::handle dict) {
  DictAttrs out;
  if (dict.is_none()) return out;
  for (auto [key, value] : dict.cast<py::dict>()) out.set(py::str(key), toAttrValue(value));
  return out;
}

std::string printText(const PyExpr& e, bool showMetaData) {
  return printExpr(e.expr, {.header = true, .metadata = showMetaData});
}

py::object checkedType(const PyExpr& e) {
  if (!e.expr->checkedType)
    throw py::value_error("the type checker has not populated checked_type for " +
                          exprSummary(e.expr) + "; run relay.transform.InferType() first");
  return wrapType(e.expr->checkedType);
}

// The op's argument names, summary and attribute fields (in declaration order): what the
// package needs to generate a Python function with TVM's signature for every registered op.
py::dict opInfo(const std::string& name) {
  const OpDef* def = OpRegistry::global().find(name);
  if (!def) throwDiagnostic("unknown_op", "no op named '" + name + "'");
  py::dict info;
  info["args"] = py::cast(def->args);
  info["summary"] = def->summary;
  std::vector<std::string> fields;
  if (Attrs defaults = defaultAttrsFor(*def)) fields = defaults->fieldNames();
  info["attrs"] = py::cast(fields);
  info["support_level"] = def->supportLevel;
  return info;
}

Expr callOpFromPython(const std::string& name, const std::vector<PyExpr>& args, py::dict attrs) {
  std::vector<std::pair<std::string, AttrValue>> pairs;
  for (auto [key, value] : attrs) pairs.emplace_back(py::str(key), toAttrValue(value));
  return callOp(name, unwrapAll(args), pairs);
}

// relay.Function(params, body, ret_type=None, type_params=None, attrs=None); type parameters
// (polymorphic functions) do not exist in Tessera's IR.
PyFunction makeFunctionFromPython(const std::vector<PyExpr>& params, const PyExpr& body,
                                  py::object retType, py::object typeParams, py::object attrs) {
  if (!typeParams.is_none() && py::len(typeParams) != 0)
    throwDiagnostic("relay_function", "type parameters are not supported");
  std::vector<Var> vars;
  for (const PyExpr& p : params) vars.push_back(asVar(p));
  Type ret = retType.is_none() ? nullptr : retType.cast<PyType>().type;
  return PyFunction{{makeFunction(std::move(vars), body.expr, ret, toDictAttrs(attrs))}};
}

template <typename T>
py::class_<T, PyExpr> exprClass(py::module_& m, const char* name) {
  return py::class_<T, PyExpr>(m, name);
}

void bindExprClasses(py::module_& m) {
  py::class_<PyExpr>(m, "Expr")
      .def_property_readonly("checked_type", &checkedType)
      .def_property_readonly("span", [](const PyExpr& e) { return e.expr->span.str(); })
      .def("astext", &printText, py::arg("show_meta_data") = true)
      .def("__str__", [](const PyExpr& e) { return printExpr(e.expr); })
      .def("__repr__", [](const PyExpr& e) { return printExpr(e.expr); })
      .def("same_as", [](const PyExpr& a, const PyExpr& b) { return a.expr == b.expr; })
      // TVM's ObjectRef compares by identity; structural comparison is tvm.ir.structural_equal.
      .def("__eq__", [](const PyExpr& a, const PyExpr& b) { return a.expr == b.expr; })
      .def("__hash__", [](const PyExpr& e) { return reinterpret_cast<uintptr_t>(e.expr.get()); });
  exprClass<PyVar>(m, "Var")
      .def(py::init([](const std::string& name, py::object type) {
             return PyVar{{makeVar(name, type.is_none() ? nullptr : type.cast<PyType>().type)}};
           }),
           py::arg("name_hint"), py::arg("type_annotation") = py::none())
      .def_property_readonly("name_hint", [](const PyExpr& e) { return node<VarNode>(e).nameHint; })
      .def_property_readonly("type_annotation", [](const PyExpr& e) {
        return wrapType(node<VarNode>(e).typeAnnotation);
      });
  exprClass<PyGlobalVar>(m, "GlobalVar").def_property_readonly("name_hint", [](const PyExpr& e) {
    return node<GlobalVarNode>(e).name;
  });
  exprClass<PyConstant>(m, "Constant")
      .def(py::init([](const NDArray& value) { return PyConstant{{makeConstant(value)}}; }))
      .def_property_readonly("data", [](const PyExpr& e) {
        const ConstantNode& c = node<ConstantNode>(e);
        if (!c.hasData())
          throwDiagnostic("constant", "the constant's value is unknown (no metadata)");
        return c.data;
      });
  exprClass<PyOp>(m, "Op").def_property_readonly(
      "name", [](const PyExpr& e) { return node<OpNode>(e).name; });
  exprClass<PyCall>(m, "Call")
      .def(py::init([](const PyExpr& fn, const std::vector<PyExpr>& args) {
             return PyCall{{makeCall(fn.expr, unwrapAll(args))}};
           }),
           py::arg("op"), py::arg("args"))
      .def_property_readonly("op", [](const PyExpr& e) { return wrapExpr(node<CallNode>(e).op); })
      .def_property_readonly("args",
                             [](const PyExpr& e) { return wrapAll(node<CallNode>(e).args); })
      .def_property_readonly("attrs", [](const PyExpr& e) -> py::object {
        const Attrs& attrs = node<CallNode>(e).attrs;
        return attrs ? py::cast(PyAttrs{attrs}) : py::none();
      });
  exprClass<PyTuple>(m, "Tuple")
      .def(py::init([](const std::vector<PyExpr>& fields) {
        return PyTuple{{makeTuple(unwrapAll(fields))}};
      }))
      .def_property_readonly("fields",
                             [](const PyExpr& e) { return wrapAll(node<TupleNode>(e).fields); })
      .def("__len__", [](const PyExpr& e) { return node<TupleNode>(e).fields.size(); });
  exprClass<PyTupleGetItem>(m, "TupleGetItem")
      .def(py::init([](const PyExpr& t, int index) {
        return PyTupleGetItem{{makeTupleGetItem(t.expr, index)}};
      }))
      .def_property_readonly(
          "tuple_value", [](const PyExpr& e) { return wrapExpr(node<TupleGetItemNode>(e).tuple); })
      .def_property_readonly("index",
                             [](const PyExpr& e) { return node<TupleGetItemNode>(e).index; });
  exprClass<PyLet>(m, "Let")
      .def(py::init([](const PyExpr& var, const PyExpr& value, const PyExpr& body) {
        return PyLet{{makeLet(asVar(var), value.expr, body.expr)}};
      }))
      .def_property_readonly("var", [](const PyExpr& e) { return wrapExpr(node<LetNode>(e).var); })
      .def_property_readonly("value",
                             [](const PyExpr& e) { return wrapExpr(node<LetNode>(e).value); })
      .def_property_readonly("body",
                             [](const PyExpr& e) { return wrapExpr(node<LetNode>(e).body); });
  exprClass<PyIf>(m, "If")
      .def(py::init([](const PyExpr& c, const PyExpr& t, const PyExpr& f) {
        return PyIf{{makeIf(c.expr, t.expr, f.expr)}};
      }))
      .def_property_readonly("cond", [](const PyExpr& e) { return wrapExpr(node<IfNode>(e).cond); })
      .def_property_readonly("true_branch",
                             [](const PyExpr& e) { return wrapExpr(node<IfNode>(e).thenBranch); })
      .def_property_readonly("false_branch",
                             [](const PyExpr& e) { return wrapExpr(node<IfNode>(e).elseBranch); });
  exprClass<PyFunction>(m, "Function")
      .def(py::init(&makeFunctionFromPython), py::arg("params"), py::arg("body"),
           py::arg("ret_type") = py::none(), py::arg("type_params") = py::none(),
           py::arg("attrs") = py::none())
      .def_property_readonly("params",
                             [](const PyExpr& e) { return wrapAll(node<FunctionNode>(e).params); })
      .def_property_readonly("body",
                             [](const PyExpr& e) { return wrapExpr(node<FunctionNode>(e).body); })
      .def_property_readonly(
          "ret_type", [](const PyExpr& e) { return wrapType(node<FunctionNode>(e).retType); })
      .def_property_readonly("attrs",
                             [](const PyExpr& e) {
                               py::dict out;
                               for (const auto& [k, v] : node<FunctionNode>(e).attrs.entries())
                                 out[py::str(k)] = fromAttrValue(v);
                               return out;
                             })
      .def("with_attr", [](const PyExpr& e, const std::string& key, py::handle value) {
        const FunctionNode& f = node<FunctionNode>(e);
        DictAttrs attrs = f.attrs;
        attrs.set(key, toAttrValue(value));
        return wrapExpr(makeFunction(f.params, f.body, f.retType, attrs, f.span));
      });
  py::class_<PyAttrs>(m, "Attrs")
      .def("__getattr__",
           [](const PyAttrs& a, const std::string& name) {
             std::vector<std::string> names = a.attrs->fieldNames();
             if (std::find(names.begin(), names.end(), name) == names.end())
               throw py::attribute_error(std::string(a.attrs->typeKey()) + " has no field " + name);
             return fromAttrValue(a.attrs->get(name));
           })
      .def("__getitem__", [](const PyAttrs& a,
                             const std::string& name) { return fromAttrValue(a.attrs->get(name)); })
      .def("keys", [](const PyAttrs& a) { return a.attrs->fieldNames(); })
      .def_property_readonly("type_key", [](const PyAttrs& a) { return a.attrs->typeKey(); })
      .def("__str__", [](const PyAttrs& a) { return a.attrs->nonDefaultString(); });
}

}  // namespace

py::object wrapExpr(Expr e) {
  if (!e) return py::none();
  switch (e->kind) {
    case ExprKind::kVar:
      return py::cast(PyVar{{std::move(e)}});
    case ExprKind::kGlobalVar:
      return py::cast(PyGlobalVar{{std::move(e)}});
    case ExprKind::kConstant:
      return py::cast(PyConstant{{std::move(e)}});
    case ExprKind::kOp:
      return py::cast(PyOp{{std::move(e)}});
    case ExprKind::kCall:
      return py::cast(PyCall{{std::move(e)}});
    case ExprKind::kTuple:
      return py::cast(PyTuple{{std::move(e)}});
    case ExprKind::kTupleGetItem:
      return py::cast(PyTupleGetItem{{std::move(e)}});
    case ExprKind::kLet:
      return py::cast(PyLet{{std::move(e)}});
    case ExprKind::kIf:
      return py::cast(PyIf{{std::move(e)}});
    case ExprKind::kFunction:
      return py::cast(PyFunction{{std::move(e)}});
  }
  return py::none();
}

void bindExpr(py::module_& m) {
  bindExprClasses(m);
  m.def("call_op", [](const std::string& name, const std::vector<PyExpr>& args, py::dict attrs) {
    return wrapExpr(callOpFromPython(name, args, attrs));
  });
  m.def("tuple_get_item", [](const PyExpr& t, int index) {
    if (const auto* tuple = t.expr->as<TupleNode>()) {
      if (index < 0 || index >= static_cast<int>(tuple->fields.size()))
        throw py::index_error("tuple index out of range");
      return wrapExpr(tuple->fields[index]);
    }
    return wrapExpr(makeTupleGetItem(t.expr, index));
  });
  m.def("op_get", [](const std::string& name) { return wrapExpr(opByName(name)); });
  m.def("op_names", [] { return OpRegistry::global().names(); });
  m.def("op_info", &opInfo);
  m.def("free_vars", [](const PyExpr& e) { return wrapAll(freeVars(e.expr)); });
  m.def("infer_type_expr", [](const PyExpr& e) { return wrapExpr(inferExprTypes(e.expr)); });
  m.def(
      "structural_equal",
      [](const PyExpr& a, const PyExpr& b, bool mapFreeVars) {
        return structuralEqual(a.expr, b.expr, mapFreeVars);
      },
      py::arg("lhs"), py::arg("rhs"), py::arg("map_free_vars") = false);
  m.def("structural_hash", [](const PyExpr& e) { return structuralHash(e.expr); });
  m.def(
      "parse_expr",
      [](const std::string& text, const std::string& source) {
        return wrapExpr(parseExpr(text, source));
      },
      py::arg("text"), py::arg("source_name") = "from_string");
}

}  // namespace tessera::python
