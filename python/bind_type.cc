// Graph-IR types for Python (relay.TensorType, TupleType, FuncType, scalar_type) and attribute
// values: what `var.checked_type` gives and what op attributes are made of.
#include "binding.h"
#include "support/diagnostic.h"

namespace tessera::python {

namespace {

struct PyTensorType : PyType {};
struct PyTupleType : PyType {};
struct PyFuncType : PyType {};
struct PyIncompleteType : PyType {};

DataType dtypeNamed(const std::string& name) {
  std::optional<DataType> dtype = DataType::parse(name);
  if (!dtype) throwDiagnostic("dtype", "unknown dtype '" + name + "'");
  return *dtype;
}

// A dimension: its extent, or its name ("?" for Any) when it is not a constant.
py::object dimToPython(const Dim& d) {
  if (d.isConst()) return py::int_(d.value());
  return py::str(d.str());
}

const TensorTypeNode& tensorOf(const PyType& t) {
  return *t.type->as<TensorTypeNode>();
}

std::vector<Type> unwrapTypes(const std::vector<PyType>& types) {
  std::vector<Type> out;
  for (const PyType& t : types) out.push_back(t.type);
  return out;
}

py::list wrapTypes(const std::vector<Type>& types) {
  py::list out;
  for (const Type& t : types) out.append(wrapType(t));
  return out;
}

}  // namespace

py::object wrapType(Type t) {
  if (!t) return py::none();
  switch (t->kind) {
    case TypeKind::kTensor:
      return py::cast(PyTensorType{{std::move(t)}});
    case TypeKind::kTuple:
      return py::cast(PyTupleType{{std::move(t)}});
    case TypeKind::kFunc:
      return py::cast(PyFuncType{{std::move(t)}});
    case TypeKind::kIncomplete:
      return py::cast(PyIncompleteType{{std::move(t)}});
  }
  return py::none();
}

AttrValue toAttrValue(py::handle value) {
  if (value.is_none()) return AttrValue();
  if (py::isinstance<py::bool_>(value)) return AttrValue::boolean(value.cast<bool>());
  if (py::isinstance<py::int_>(value)) return AttrValue::integer(value.cast<int64_t>());
  if (py::isinstance<py::float_>(value)) return AttrValue::floating(value.cast<double>());
  if (py::isinstance<py::str>(value)) return AttrValue::string(value.cast<std::string>());
  // NumPy scalars and integer-like objects (e.g. a shape's numpy.int64) by their protocol.
  if (py::hasattr(value, "__index__")) return AttrValue::integer(value.cast<int64_t>());
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::vector<AttrValue> items;
    for (py::handle item : value) items.push_back(toAttrValue(item));
    return AttrValue::array(std::move(items));
  }
  if (py::hasattr(value, "__float__")) return AttrValue::floating(value.cast<double>());
  throwDiagnostic("attrs", "cannot use a Python " +
                               std::string(py::str(py::type::of(value).attr("__name__"))) +
                               " as an attribute value");
}

py::object fromAttrValue(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNone:
      return py::none();
    case AttrValue::Kind::kInt:
      return py::int_(value.asInt());
    case AttrValue::Kind::kFloat:
      return py::float_(value.asFloat());
    case AttrValue::Kind::kBool:
      return py::bool_(value.asBool());
    case AttrValue::Kind::kString:
      return py::str(value.asString());
    case AttrValue::Kind::kArray: {
      py::list items;
      for (const AttrValue& item : value.asArray()) items.append(fromAttrValue(item));
      return items;
    }
    case AttrValue::Kind::kAttrs:
      return py::str(value.str());
  }
  return py::none();
}

void bindType(py::module_& m) {
  py::class_<PyType>(m, "Type")
      .def("__str__", [](const PyType& t) { return typeToString(t.type); })
      .def("__repr__", [](const PyType& t) { return typeToString(t.type); })
      .def("__eq__", [](const PyType& a, const PyType& b) { return typeEqual(a.type, b.type); })
      .def("__hash__", [](const PyType& t) { return typeHash(t.type); })
      .def("is_complete", [](const PyType& t) { return isCompleteType(t.type); });
  py::class_<PyTensorType, PyType>(m, "TensorType")
      .def(py::init([](std::vector<int64_t> shape, const std::string& dtype) {
             return PyTensorType{{tensorType(shape, dtypeNamed(dtype))}};
           }),
           py::arg("shape"), py::arg("dtype") = "float32")
      .def_property_readonly("shape",
                             [](const PyType& t) {
                               py::list dims;
                               for (const Dim& d : tensorOf(t).shape) dims.append(dimToPython(d));
                               return py::tuple(dims);
                             })
      .def_property_readonly("concrete_shape",
                             [](const PyType& t) {
                               auto dims = staticShape(tensorOf(t).shape);
                               if (!dims)
                                 throwDiagnostic(
                                     "concrete_shape",
                                     "the shape " + typeToString(t.type) + " is not static");
                               return py::tuple(py::cast(*dims));
                             })
      .def_property_readonly("dtype", [](const PyType& t) { return tensorOf(t).dtype.name(); });
  py::class_<PyTupleType, PyType>(m, "TupleType")
      .def(py::init([](const std::vector<PyType>& fields) {
        return PyTupleType{{tupleType(unwrapTypes(fields))}};
      }))
      .def_property_readonly(
          "fields", [](const PyType& t) { return wrapTypes(t.type->as<TupleTypeNode>()->fields); });
  py::class_<PyFuncType, PyType>(m, "FuncType")
      .def(py::init([](const std::vector<PyType>& args, const PyType& ret) {
        return PyFuncType{{funcType(unwrapTypes(args), ret.type)}};
      }))
      .def_property_readonly(
          "arg_types",
          [](const PyType& t) { return wrapTypes(t.type->as<FuncTypeNode>()->argTypes); })
      .def_property_readonly("ret_type", [](const PyType& t) {
        return wrapType(t.type->as<FuncTypeNode>()->retType);
      });
  py::class_<PyIncompleteType, PyType>(m, "IncompleteType").def(py::init([] {
    return PyIncompleteType{{incompleteType()}};
  }));
  m.def(
      "scalar_type",
      [](const std::string& dtype) { return wrapType(scalarType(dtypeNamed(dtype))); },
      py::arg("dtype"));
}

}  // namespace tessera::python
