// tir.Schedule for Python: every primitive of tir::Schedule under TVM's names and keyword
// arguments, the random variables (BlockRV, LoopRV, ExprRV) it hands out, `sch.mod`, and the trace
// (printed as TVM's `def apply_trace(sch)`, as JSON, replayable). A failed primitive raises the
// schedule's DiagnosticError and leaves the schedule unchanged, as in C++.
#include <memory>
#include <string>
#include <vector>

#include "tir/schedule/primitive/tensor_intrin.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"
#include "tir_binding.h"

namespace tessera::python {

namespace {

using tir::BlockRV;
using tir::ExprRV;
using tir::LoopRV;
using tir::Schedule;
using tir::SplitFactor;
using SchedulePtr = std::shared_ptr<Schedule>;

SplitFactor toFactor(py::handle f) {
  if (f.is_none()) return std::monostate{};
  if (py::isinstance<ExprRV>(f)) return f.cast<ExprRV>();
  if (py::isinstance<PyPrimExpr>(f)) {
    // An IntImm (what TVM users get from a shape).
    auto* imm = f.cast<const PyPrimExpr&>().expr->as<tir::IntImmNode>();
    if (!imm) throw py::type_error("a split factor must be None, an int or a sampled ExprRV");
    return imm->value;
  }
  return castTo<int64_t>(f, "a split factor (None, an int or a sampled ExprRV)");
}

std::vector<LoopRV> toLoops(const py::args& args) {
  // reorder(i, j) and reorder([i, j]) both appear in TVM code.
  if (args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0])))
    return castTo<std::vector<LoopRV>>(args[0], "loops (LoopRV)");
  return castTo<std::vector<LoopRV>>(args, "loops (LoopRV)");
}

std::optional<std::vector<int64_t>> toDecisionList(py::handle d) {
  if (d.is_none()) return std::nullopt;
  return castTo<std::vector<int64_t>>(d, "a decision (a list of ints)");
}

std::optional<int64_t> toDecision(py::handle d) {
  if (d.is_none()) return std::nullopt;
  return castTo<int64_t>(d, "a decision (an int)");
}

void bindRVs(py::module_& m) {
  py::class_<BlockRV>(m, "BlockRV", "A block of a schedule")
      .def_readonly("id", &BlockRV::id)
      .def("__repr__", [](const BlockRV& b) { return "BlockRV(" + std::to_string(b.id) + ")"; });
  py::class_<LoopRV>(m, "LoopRV", "A loop of a schedule")
      .def_readonly("id", &LoopRV::id)
      .def("__repr__", [](const LoopRV& l) { return "LoopRV(" + std::to_string(l.id) + ")"; });
  py::class_<ExprRV>(m, "ExprRV", "A sampled integer of a schedule (a split factor)")
      .def_readonly("id", &ExprRV::id)
      .def("__repr__", [](const ExprRV& e) { return "ExprRV(" + std::to_string(e.id) + ")"; });
}

void bindTrace(py::module_& m) {
  py::class_<tir::Trace>(m, "Trace", "The instructions a schedule executed, with decisions")
      .def("__str__", &tir::Trace::str)
      .def("__len__", [](const tir::Trace& t) { return t.insts().size(); })
      .def("json", &tir::Trace::toJson)
      .def_static("from_json", &tir::Trace::fromJson)
      .def("simplified", &tir::Trace::simplified, py::arg("remove_postproc"))
      .def(
          "with_decision",
          [](const tir::Trace& t, size_t index, py::handle decision, bool removePostproc) {
            return t.withDecision(index, toAttrValue(decision), removePostproc);
          },
          py::arg("inst_index"), py::arg("decision"), py::arg("remove_postproc"))
      .def(
          "apply_to_schedule",
          [](const tir::Trace& t, Schedule& sch, bool removePostproc) {
            tir::applyTrace(sch, t, {}, removePostproc);
          },
          py::arg("sch"), py::arg("remove_postproc") = false);
}

void bindQueries(py::class_<Schedule, SchedulePtr>& c) {
  c.def("get_block", &Schedule::getBlock, py::arg("name"), py::arg("func_name") = "")
      .def("get_loops", &Schedule::getLoops, py::arg("block"))
      .def("get_child_blocks", py::overload_cast<const BlockRV&>(&Schedule::getChildBlocks))
      .def("get_child_blocks", py::overload_cast<const LoopRV&>(&Schedule::getChildBlocks))
      .def("get_producers", &Schedule::getProducers, py::arg("block"))
      .def("get_consumers", &Schedule::getConsumers, py::arg("block"))
      .def("get", [](const Schedule& s, const ExprRV& rv) { return s.get(rv); })
      // The names of the buffers a block reads / writes, in its region order: what TE's
      // cache_read(tensor, ...) needs to find the buffer index (tessera/te_schedule.py).
      .def("_read_buffer_names",
           [](const Schedule& s, const BlockRV& b) {
             std::vector<std::string> names;
             for (const auto& r : s.get(b)->reads) names.push_back(r.buffer->name);
             return names;
           })
      .def("_write_buffer_names",
           [](const Schedule& s, const BlockRV& b) {
             std::vector<std::string> names;
             for (const auto& w : s.get(b)->writes) names.push_back(w.buffer->name);
             return names;
           })
      .def("remove_rv", py::overload_cast<const BlockRV&>(&Schedule::removeRV))
      .def("remove_rv", py::overload_cast<const LoopRV&>(&Schedule::removeRV));
}

void bindLoopPrimitives(py::class_<Schedule, SchedulePtr>& c) {
  c.def(
       "split",
       [](Schedule& s, const LoopRV& loop, py::iterable factors, bool preserve, bool noPred) {
         std::vector<SplitFactor> fs;
         for (py::handle f : factors) fs.push_back(toFactor(f));
         return s.split(loop, fs, preserve, noPred);
       },
       py::arg("loop"), py::arg("factors"), py::arg("preserve_unit_iters") = true,
       py::arg("disable_predication") = false)
      .def(
          "fuse",
          [](Schedule& s, py::args loops, bool preserve) {
            return s.fuse(toLoops(loops), preserve);
          },
          py::kw_only(), py::arg("preserve_unit_iters") = true)
      .def("reorder", [](Schedule& s, py::args loops) { s.reorder(toLoops(loops)); })
      .def("add_unit_loop", py::overload_cast<const BlockRV&>(&Schedule::addUnitLoop))
      .def("add_unit_loop", py::overload_cast<const LoopRV&>(&Schedule::addUnitLoop))
      .def("parallel", &Schedule::parallel, py::arg("loop"))
      .def("vectorize", &Schedule::vectorize, py::arg("loop"))
      .def("unroll", &Schedule::unroll, py::arg("loop"))
      .def("bind", &Schedule::bind, py::arg("loop"), py::arg("thread_axis"));
}

void bindBlockPrimitives(py::class_<Schedule, SchedulePtr>& c) {
  c.def(
       "annotate",
       [](Schedule& s, const LoopRV& l, const std::string& k, py::handle v) {
         s.annotate(l, k, toAttrValue(v));
       },
       py::arg("block_or_loop"), py::arg("ann_key"), py::arg("ann_val"))
      .def(
          "annotate",
          [](Schedule& s, const BlockRV& b, const std::string& k, py::handle v) {
            s.annotate(b, k, toAttrValue(v));
          },
          py::arg("block_or_loop"), py::arg("ann_key"), py::arg("ann_val"))
      .def("unannotate",
           py::overload_cast<const LoopRV&, const std::string&>(&Schedule::unannotate),
           py::arg("block_or_loop"), py::arg("ann_key"))
      .def("unannotate",
           py::overload_cast<const BlockRV&, const std::string&>(&Schedule::unannotate),
           py::arg("block_or_loop"), py::arg("ann_key"))
      .def("compute_at", &Schedule::computeAt, py::arg("block"), py::arg("loop"),
           py::arg("preserve_unit_loops") = false, py::arg("index") = -1)
      .def("reverse_compute_at", &Schedule::reverseComputeAt, py::arg("block"), py::arg("loop"),
           py::arg("preserve_unit_loops") = false, py::arg("index") = -1)
      .def("compute_inline", &Schedule::computeInline, py::arg("block"))
      .def("reverse_compute_inline", &Schedule::reverseComputeInline, py::arg("block"))
      .def("cache_read", &Schedule::cacheRead, py::arg("block"), py::arg("read_buffer_index"),
           py::arg("storage_scope"), py::arg("consumer_blocks") = std::vector<BlockRV>{})
      .def("cache_write", &Schedule::cacheWrite, py::arg("block"), py::arg("write_buffer_index"),
           py::arg("storage_scope"), py::arg("consumer_blocks") = std::vector<BlockRV>{})
      .def("set_scope", &Schedule::setScope, py::arg("block"), py::arg("buffer_index"),
           py::arg("storage_scope"))
      .def("storage_align", &Schedule::storageAlign, py::arg("block"), py::arg("buffer_index"),
           py::arg("axis"), py::arg("factor"), py::arg("offset"))
      .def("decompose_reduction", &Schedule::decomposeReduction, py::arg("block"), py::arg("loop"))
      .def("rfactor", &Schedule::rfactor, py::arg("loop"), py::arg("factor_axis"))
      .def("blockize", &Schedule::blockize, py::arg("target"),
           py::arg("preserve_unit_iters") = true)
      .def("tensorize",
           py::overload_cast<const LoopRV&, const std::string&, bool>(&Schedule::tensorize),
           py::arg("block_or_loop"), py::arg("tensor_intrin"),
           py::arg("preserve_unit_iters") = true)
      .def("tensorize",
           py::overload_cast<const BlockRV&, const std::string&, bool>(&Schedule::tensorize),
           py::arg("block_or_loop"), py::arg("tensor_intrin"),
           py::arg("preserve_unit_iters") = true);
}

void bindSampling(py::class_<Schedule, SchedulePtr>& c) {
  c.def(
       "sample_perfect_tile",
       [](Schedule& s, const LoopRV& loop, int n, int maxInnermost, py::handle decision) {
         return s.samplePerfectTile(loop, n, maxInnermost, toDecisionList(decision));
       },
       py::arg("loop"), py::arg("n"), py::arg("max_innermost_factor") = 16,
       py::arg("decision") = py::none())
      .def(
          "sample_categorical",
          [](Schedule& s, const std::vector<int64_t>& candidates, const std::vector<double>& probs,
             py::handle decision) {
            return s.sampleCategorical(candidates, probs, toDecision(decision));
          },
          py::arg("candidates"), py::arg("probs"), py::arg("decision") = py::none())
      .def(
          "sample_compute_location",
          [](Schedule& s, const BlockRV& block, py::handle decision) {
            return s.sampleComputeLocation(block, toDecision(decision));
          },
          py::arg("block"), py::arg("decision") = py::none());
}

}  // namespace

void bindSchedule(py::module_& m) {
  bindRVs(m);
  bindTrace(m);
  m.def(
      "tensor_intrin_register",
      [](const std::string& name, const PyPrimFunc& desc, const PyPrimFunc& impl, bool override) {
        tir::registerTensorIntrin(name, desc.func, impl.func, override);
      },
      py::arg("name"), py::arg("desc"), py::arg("impl"), py::arg("override") = false);
  m.def("tensor_intrin_get", [](const std::string& name) {
    const tir::TensorIntrin& intrin = tir::getTensorIntrin(name);
    return py::make_tuple(PyPrimFunc{intrin.desc}, PyPrimFunc{intrin.impl});
  });
  m.def("tensor_intrin_names", &tir::tensorIntrinNames);
  py::class_<Schedule, SchedulePtr> c(m, "Schedule", "Schedules one PrimFunc of a module");
  // seed=None (TVM's default) draws a seed from the system.
  c.def(py::init([](const tir::TirModule& mod, py::handle seed) {
          return std::make_shared<Schedule>(mod, seed.is_none() ? -1 : seed.cast<int64_t>());
        }),
        py::arg("mod"), py::kw_only(), py::arg("seed") = py::none())
      .def(py::init([](const PyPrimFunc& f, py::handle seed) {
             return std::make_shared<Schedule>(f.func, seed.is_none() ? -1 : seed.cast<int64_t>());
           }),
           py::arg("mod"), py::kw_only(), py::arg("seed") = py::none())
      .def_property_readonly("mod", &Schedule::mod)
      .def_property_readonly("func", [](const Schedule& s) { return PyPrimFunc{s.func()}; })
      .def_property_readonly("trace", &Schedule::trace)
      .def("copy", [](const Schedule& s) { return std::make_shared<Schedule>(s.copy()); })
      .def("seed", &Schedule::seed, py::arg("seed"))
      .def("fork_seed", &Schedule::forkSeed)
      .def("work_on", &Schedule::workOn, py::arg("func_name"));
  bindQueries(c);
  bindLoopPrimitives(c);
  bindBlockPrimitives(c);
  bindSampling(c);
}

}  // namespace tessera::python
