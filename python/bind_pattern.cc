// The dataflow pattern language for Python (tvm.relay.dataflow_pattern: is_op, wildcard,
// is_constant, is_var, `|`, optional, has_attr, ...; match and partition), MergeComposite with a
// pattern table, and Python-defined op attributes the C++ reads: the quantizer's partition rules
// ("FQPartitionRewrite", TVM's register_partition_function, QPartitionExpr,
// partition_expr_check, _forward_op) and op reset_attr.
#include "relay/builder.h"
#include "relay/op_registry.h"
#include "relay/pattern/matcher.h"
#include "relay/pattern/partition.h"
#include "relay/quantize/forward_rewrite.h"
#include "relay/quantize/partition.h"
#include "relay/quantize/quantize_util.h"
#include "relay/transform/merge_composite.h"
#include "support/diagnostic.h"
#include "tir_binding.h"

namespace tessera::python {

namespace {

using relay::Expr;
using relay::Pattern;
using relay::quantize::RewriteValue;

/// A value inside a quantization region as a partition rule sees it (TVM's QPartitionExpr).
struct PyQPartition {
  Expr expr;
};

Expr exprOf(py::handle e) {
  if (!py::isinstance<PyExpr>(e)) throw py::type_error("expected a relay expression");
  return e.cast<const PyExpr&>().expr;
}

std::vector<Pattern> toPatterns(py::handle items) {
  std::vector<Pattern> out;
  for (py::handle p : items) out.push_back(castTo<Pattern>(p, "a dataflow pattern"));
  return out;
}

// Destroys a Python callable from any thread, or leaks it once the interpreter is finalizing:
// the op registry holding it is a C++ static that outlives the interpreter (as for register_func).
void releasePythonRule(py::function* fn) {
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
  py::gil_scoped_acquire gil;
  delete fn;
}

py::object rewriteValueToPython(const RewriteValue& v) {
  if (auto* q = v.as<relay::quantize::QPartitionExpr>()) return py::cast(PyQPartition{q->expr});
  if (v.isTuple()) {
    py::list fields;
    for (const RewriteValue& f : v.fields()) fields.append(rewriteValueToPython(f));
    return fields;
  }
  if (v.isTemp()) return wrapExpr(v.realize());
  return wrapExpr(v.expr());
}

std::optional<RewriteValue> rewriteValueFromPython(py::handle v) {
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<PyQPartition>(v))
    return relay::quantize::partitionedExpr(v.cast<const PyQPartition&>().expr);
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::vector<RewriteValue> fields;
    for (py::handle f : v) fields.push_back(rewriteValueFromPython(f).value_or(RewriteValue()));
    return RewriteValue::tuple(std::move(fields), {});
  }
  return RewriteValue(exprOf(v));
}

/// A Python rule `f(ref_call, new_args, ctx)` as the C++ rule type. The pass that calls it runs
/// with the GIL released, so the call takes it back.
relay::quantize::ForwardRewriteFn wrapPartitionRule(py::function fn) {
  std::shared_ptr<py::function> held(new py::function(std::move(fn)), releasePythonRule);
  return [held](const relay::CallNode& call,
                const std::vector<RewriteValue>& args) -> std::optional<RewriteValue> {
    py::gil_scoped_acquire gil;
    // The rule receives the call as an expression of its own: a copy with the same fields and
    // type (the engine holds the original by reference only).
    Expr ref = relay::makeCall(call.op, call.args, call.attrs, call.span);
    ref->checkedType = call.checkedType;
    py::list pyArgs;
    for (const RewriteValue& a : args) pyArgs.append(rewriteValueToPython(a));
    return rewriteValueFromPython((*held)(wrapExpr(ref), pyArgs, py::none()));
  };
}

void bindPatterns(py::module_& m) {
  py::class_<Pattern>(m, "DFPattern", "A dataflow pattern (relay.dataflow_pattern)")
      .def("__call__", [](const Pattern& p, py::args args) { return p(toPatterns(args)); })
      .def("__or__", [](const Pattern& a, const Pattern& b) { return a | b; })
      .def("optional",
           [](const Pattern& p, py::function wrap) {
             return p.optional([&wrap](const Pattern& x) {
               return castTo<Pattern>(wrap(x), "optional's function to return a pattern");
             });
           })
      .def("has_attr",
           [](const Pattern& p, py::dict attrs) {
             std::vector<std::pair<std::string, AttrValue>> pairs;
             for (auto [k, v] : attrs) pairs.emplace_back(k.cast<std::string>(), toAttrValue(v));
             return p.hasAttr(std::move(pairs));
           })
      .def("has_dtype",
           [](const Pattern& p, const std::string& dtype) { return p.hasDtype(tirDtype(dtype)); })
      .def("has_shape", &Pattern::hasShape)
      .def("has_type", [](const Pattern& p, const PyType& t) { return p.hasType(t.type); })
      .def("match", [](const Pattern& p, py::handle e) { return relay::matches(p, exprOf(e)); })
      .def(
          "partition",
          [](const Pattern& p, py::handle e, py::dict attrs) {
            DictAttrs dict;
            for (auto [k, v] : attrs) dict.set(k.cast<std::string>(), toAttrValue(v));
            return wrapExpr(relay::partition(p, exprOf(e), dict));
          },
          py::arg("expr"), py::arg("attrs") = py::dict());
  m.def("pattern_wildcard", &relay::wildcard);
  m.def("pattern_is_op", &relay::isOp);
  m.def("pattern_is_constant", &relay::isConstant);
  m.def("pattern_is_var", &relay::isVar, py::arg("name") = "");
  m.def("pattern_is_expr", [](py::handle e) { return relay::isExpr(exprOf(e)); });
  m.def("pattern_is_tuple", [](py::handle fields) { return relay::isTuple(toPatterns(fields)); });
  m.def("pattern_is_tuple_get_item", &relay::isTupleGetItem, py::arg("tuple"),
        py::arg("index") = -1);
  m.def("pattern_dominates", &relay::dominates);
  m.def("merge_composite_pass", [](py::handle table) {
    relay::PatternTable rows;
    for (py::handle row : table) {
      auto t = row.cast<py::tuple>();
      if (t.size() == 3 && !t[2].is_none())
        throwDiagnostic("merge_composite",
                        "pattern table row '" + t[0].cast<std::string>() +
                            "': check functions are not supported by Tessera's MergeComposite");
      if (t.size() < 2 || t.size() > 3)
        throw py::value_error("a pattern table row is (name, pattern) or (name, pattern, check)");
      rows.emplace_back(t[0].cast<std::string>(), castTo<Pattern>(t[1], "a dataflow pattern"));
    }
    return PyPass{relay::mergeCompositePass(std::move(rows))};
  });
}

void bindOpAttrs(py::module_& m) {
  namespace q = relay::quantize;
  py::class_<PyQPartition>(m, "QPartitionExpr", "A value inside a quantization region")
      .def(py::init([](py::handle e) { return PyQPartition{exprOf(e)}; }))
      .def_property_readonly("expr", [](const PyQPartition& q) { return wrapExpr(q.expr); })
      .def("realize",
           [](const PyQPartition& p) { return wrapExpr(q::QPartitionExpr(p.expr).realize()); });
  m.def("op_set_attr", [](const std::string& op, const std::string& key, py::function value,
                          int level) {
    if (key != q::kPartitionRules.key)
      throwDiagnostic("op_attr", "attribute " + key +
                                     " cannot be set from Python: only FQPartitionRewrite has a "
                                     "Python form");
    // The built-in rules go in first, so that they never replace what Python sets.
    q::registerBuiltinPartitionRules();
    q::kPartitionRules.set(op, wrapPartitionRule(std::move(value)), level);
  });
  m.def("op_reset_attr", [](const std::string& op, const std::string& key) {
    if (key == q::kPartitionRules.key) q::registerBuiltinPartitionRules();
    relay::OpRegistry::global().resetAttr(op, key);
  });
  m.def("op_has_attr", [](const std::string& op, const std::string& key) {
    return relay::OpRegistry::global().getAttr(op, key) != nullptr;
  });
  m.def("restore_builtin_partition_rules", &q::restoreBuiltinPartitionRules);
  m.def("forward_op", [](py::handle refCall, const std::vector<PyExpr>& args) {
    Expr call = exprOf(refCall);
    auto* node = call->as<relay::CallNode>();
    if (!node) throw py::type_error("_forward_op expects the rule's ref_call");
    std::vector<Expr> exprs;
    for (const PyExpr& a : args) exprs.push_back(a.expr);
    return wrapExpr(q::forwardOp(*node, std::move(exprs)));
  });
  m.def("check_constant", [](py::handle e) { return q::isConstantExpr(exprOf(e)); });
}

}  // namespace

void bindPattern(py::module_& m) {
  bindPatterns(m);
  bindOpAttrs(m);
}

}  // namespace tessera::python
