// The auto-tuner for Python (tvm.meta_schedule's tune_tir and compile_tir, seed 002): one PrimFunc
// tuned over the design space of a Python space function (ScheduleFn) or the target's default
// space, every measurement committed to a tuning database (in memory, or a work_dir on disk as
// `tessera tune --db`). The space function runs once, with the GIL, while the space is made;
// the search, the builds and the measurements (forked children, src/tune/measure.h) run with the
// GIL released.
#include <memory>
#include <sstream>

#include "codegen/llvm/target.h"
#include "support/diagnostic.h"
#include "tir/schedule/schedule.h"
#include "tir_binding.h"
#include "tune/analytic_model.h"
#include "tune/cost_model.h"
#include "tune/database.h"
#include "tune/flops.h"
#include "tune/rules/post_order_apply.h"
#include "tune/space.h"
#include "tune/task_scheduler.h"
#ifdef TESSERA_HAVE_XGBOOST
#include "tune/xgb/xgb_model.h"
#endif

namespace tessera::python {

namespace {

using DatabasePtr = std::shared_ptr<tune::Database>;

/// The tuning target: the host's triple and features filled in; num-cores required (TVM's error).
target::Target tuneTarget(const std::string& text) {
  target::Target target = codegen::withHostDefaults(target::Target::parse(text));
  tune::requireNumCores(target);
  return target;
}

/// A Python space function as the tuner's: it gets a copy of the schedule (a tir.Schedule that
/// stays valid if the function keeps it) whose result replaces the tuner's.
tune::SpaceFunction pythonSpace(py::function fn) {
  return [fn](tir::Schedule& sch) {
    auto copy = std::make_shared<tir::Schedule>(sch.copy());
    fn(py::cast(copy));
    sch = copy->copy();
  };
}

std::unique_ptr<tune::CostModel> costModel(const std::string& name, uint64_t seed,
                                           const target::Target& target, std::ostream* log) {
  if (name == "random") return std::make_unique<tune::RandomModel>(seed);
  if (name == "analytic") return tune::makeAnalyticModel(target);
  if (name != "xgb")
    throwDiagnostic("tune", "cost_model must be 'xgb', 'analytic' or 'random', got '" + name + "'");
#ifdef TESSERA_HAVE_XGBOOST
  return tune::makeXgbModel({.threads = 1, .log = log, .prior = tune::makeAnalyticModel(target)});
#else
  throwDiagnostic("tune",
                  "this tessera was built without XGBoost (libxgboost-dev); use "
                  "cost_model='analytic' or 'random'");
#endif
}

}  // namespace

void bindTune(py::module_& m) {
  py::class_<tune::Database, DatabasePtr>(m, "TuneDatabase",
                                          "A tuning database (in memory, or a directory)")
      .def(py::init<>())
      .def(py::init<const std::string&>(), py::arg("work_dir"))
      .def_property_readonly("work_dir", &tune::Database::dir)
      .def_property_readonly("warnings", &tune::Database::warnings)
      .def("num_records", &tune::Database::numRecords)
      .def("num_workloads", &tune::Database::numWorkloads);
  m.def(
      "tune_tir",
      [](const PyPrimFunc& func, const std::string& targetText, DatabasePtr database,
         int maxTrialsGlobal, int trialsPerIter, py::object space, const std::string& spaceName,
         const std::string& taskName, const std::string& model, bool evolutionary, uint64_t seed) {
        if (maxTrialsGlobal < 1 || trialsPerIter < 1)
          throwDiagnostic("tune", "max_trials_global and num_trials_per_iter must be positive");
        const target::Target target = tuneTarget(targetText);
        tune::TuneTask task{.name = taskName, .func = func.func, .weight = 1, .spaces = {}};
        if (space.is_none()) {
          // As `tessera tune` searches a model's kernel: the default schedule's space and the
          // rule-made ones (TVM's post-order-apply), unless the rules cannot walk the function.
          task.spaces.push_back(tune::defaultSpace(func.func, target));
          try {
            for (tune::DesignSpace& s : tune::rules::ruleSpaces(func.func, target))
              task.spaces.push_back(std::move(s));
          } catch (const DiagnosticError&) {
          }
        } else {
          auto fn = castTo<py::function>(space, "a space function taking a tir.Schedule");
          task.spaces.push_back(tune::spaceFromFunction(func.func, pythonSpace(fn), spaceName,
                                                        static_cast<int64_t>(seed)));
        }
        std::ostringstream log;
        tune::TuneOptions options;
        options.maxTrialsGlobal = maxTrialsGlobal;
        options.trialsPerIter = trialsPerIter;
        options.search.evolutionary = evolutionary;
        options.search.seed = seed;
        options.measure.threads = target.numCores;
        options.log = &log;
        std::unique_ptr<tune::CostModel> cost = costModel(model, seed, target, &log);
        {
          py::gil_scoped_release release;
          tune::tune({std::move(task)}, target, *database, *cost, options);
        }
        return log.str();
      },
      py::arg("func"), py::arg("target"), py::arg("database"), py::arg("max_trials_global"),
      py::arg("num_trials_per_iter"), py::arg("space"), py::arg("space_name"), py::arg("task_name"),
      py::arg("cost_model"), py::arg("evolutionary"), py::arg("seed"));
  m.def(
      "compile_tir",
      [](const DatabasePtr& database, const PyPrimFunc& func,
         const std::string& targetText) -> py::object {
        std::optional<tir::PrimFunc> best =
            tune::compileTir(*database, func.func, tuneTarget(targetText));
        if (!best) return py::none();
        return py::cast(PyPrimFunc{*best});
      },
      py::arg("database"), py::arg("func"), py::arg("target"));
  m.def("estimate_flops", [](const PyPrimFunc& func) { return tune::estimateFlops(func.func); });
}

}  // namespace tessera::python
