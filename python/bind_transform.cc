// The pass infrastructure for Python (tvm.transform, tvm.relay.transform): PassContext as a
// scope entered by `with`, the passes of the pass table by name, the ones that take arguments,
// and Sequential. Running a pass releases the GIL.
#include "binding.h"
#include "relay/transform/pass.h"
#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "support/diagnostic.h"

namespace tessera::python {

namespace {

using relay::PassContext;

std::shared_ptr<PassContext> makeContext(int optLevel, const std::vector<std::string>& required,
                                         const std::vector<std::string>& disabled,
                                         const std::map<std::string, std::string>& config) {
  auto ctx = std::make_shared<PassContext>();
  ctx->optLevel = optLevel;
  ctx->requiredPasses = {required.begin(), required.end()};
  ctx->disabledPasses = {disabled.begin(), disabled.end()};
  // Values arrive as --pass-config text (the package writes booleans, integers and JSON), so
  // the checks and the diagnostics are those of `tessera compile --pass-config`.
  for (const auto& [key, text] : config) ctx->setConfig(key, text);
  return ctx;
}

relay::IRModule runPass(const PyPass& p, relay::IRModule mod) {
  return (*p.pass)(std::move(mod));
}

// FuseOps(fuse_opt_level=N) fuses as the context's level N would, whatever the context says.
relay::Pass fuseOpsAtLevel(int level) {
  if (level < 0) return relay::fuseOpsPass();
  return relay::makeModulePass({.name = "FuseOps", .optLevel = 0},
                               [level](relay::IRModule mod, PassContext& outer) {
                                 PassContext ctx = outer;
                                 ctx.optLevel = level;
                                 PassContext::Scope scope(ctx);
                                 return (*relay::fuseOpsPass())(std::move(mod), ctx);
                               });
}

void bindPassContext(py::module_& m) {
  py::class_<PassContext, std::shared_ptr<PassContext>>(m, "PassContext")
      .def(py::init(&makeContext), py::arg("opt_level") = 2,
           py::arg("required_pass") = std::vector<std::string>{},
           py::arg("disabled_pass") = std::vector<std::string>{},
           py::arg("config") = std::map<std::string, std::string>{})
      .def_readwrite("opt_level", &PassContext::optLevel)
      .def_property_readonly(
          "required_pass", [](const PassContext& c) { return py::set(py::cast(c.requiredPasses)); })
      .def_property_readonly(
          "disabled_pass", [](const PassContext& c) { return py::set(py::cast(c.disabledPasses)); })
      .def_property_readonly("config",
                             [](const PassContext& c) {
                               py::dict out;
                               for (const auto& [k, v] : c.config)
                                 out[py::str(k)] = fromAttrValue(v);
                               return out;
                             })
      .def("_enter", [](PassContext& c) { PassContext::enter(c); })
      .def("_exit", [](PassContext&) { PassContext::exit(); })
      // The innermost context of this thread (or its default one), without taking ownership.
      .def_static("current", [] {
        return std::shared_ptr<PassContext>(std::shared_ptr<PassContext>(),
                                            &PassContext::current());
      });
  m.def("list_configs", [] {
    std::vector<std::string> keys;
    for (const transform::ConfigOption& o : transform::configOptions()) keys.push_back(o.key);
    return keys;
  });
}

}  // namespace

void bindTransform(py::module_& m) {
  bindPassContext(m);
  py::class_<PyPass>(m, "Pass")
      .def("__call__", &runPass, py::arg("mod"), ReleaseGil())
      .def_property_readonly("name", [](const PyPass& p) { return p.pass->info().name; })
      .def_property_readonly("opt_level", [](const PyPass& p) { return p.pass->info().optLevel; })
      .def_property_readonly("required", [](const PyPass& p) { return p.pass->info().required; })
      .def("__repr__", [](const PyPass& p) { return "Pass(" + p.pass->info().name + ")"; });
  m.def("pass_names", [] {
    std::vector<std::string> names;
    for (const relay::PassTableRow& row : relay::passTable()) names.push_back(row.name());
    return names;
  });
  m.def("pass_by_name", [](const std::string& name) { return PyPass{relay::passByName(name)}; });
  m.def(
      "sequential",
      [](const std::vector<PyPass>& passes, int optLevel, const std::string& name) {
        std::vector<relay::Pass> list;
        for (const PyPass& p : passes) list.push_back(p.pass);
        return PyPass{relay::sequential(std::move(list), name, optLevel)};
      },
      py::arg("passes"), py::arg("opt_level") = 0, py::arg("name") = "sequential");
  m.def(
      "fuse_ops", [](int level) { return PyPass{fuseOpsAtLevel(level)}; },
      py::arg("fuse_opt_level") = -1);
  m.def("combine_parallel_conv2d",
        [](int minBranches) { return PyPass{relay::combineParallelConv2dPass(minBranches)}; });
  m.def("combine_parallel_dense",
        [](int minBranches) { return PyPass{relay::combineParallelDensePass(minBranches)}; });
  m.def("convert_layout", [](const relay::DesiredLayouts& desired) {
    return PyPass{relay::convertLayoutPass(desired)};
  });
  m.def(
      "bind_params_by_name",
      [](const PyExpr& fn, py::handle params) {
        auto function = relay::exprAs<relay::FunctionNode>(fn.expr);
        if (!function) throw py::type_error("bind_params_by_name expects a relay.Function");
        return wrapExpr(relay::bindParams(function, toParams(params)));
      },
      py::arg("func"), py::arg("params"));
}

}  // namespace tessera::python
