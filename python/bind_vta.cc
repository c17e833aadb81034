// VTA for Python (tessera.vta, TVM's `vta` package): the hardware configuration (vta.get_env()),
// graph packing, seed 000's composite patterns and WithVTAFunctionTransform, vta.build_config()'s
// lowering passes, the packed convolution's TE definition and schedule (vta.topi), and running a
// lowered PrimFunc on the simulator with its seven counters.
#include "relay/builder.h"
#include "support/diagnostic.h"
#include "tir/schedule/schedule.h"
#include "tir_binding.h"
#include "vta/graph/graph_pack.h"
#include "vta/graph/vta_composite.h"
#include "vta/rt/config.h"
#include "vta/rt/runtime.h"
#include "vta/tir/gemm_intrin.h"
#include "vta/tir/host_program.h"
#include "vta/tir/passes.h"
#include "vta/topi/conv2d_packed.h"

namespace tessera::python {

namespace {

using vta::Config;

void bindConfig(py::module_& m) {
  py::class_<Config>(m, "VtaConfig", "A VTA hardware configuration (vta_config.json)")
      .def_readonly("TARGET", &Config::target)
      .def_readonly("HW_VER", &Config::hwVer)
      .def_readonly("LOG_INP_WIDTH", &Config::logInpWidth)
      .def_readonly("LOG_WGT_WIDTH", &Config::logWgtWidth)
      .def_readonly("LOG_ACC_WIDTH", &Config::logAccWidth)
      .def_readonly("LOG_BATCH", &Config::logBatch)
      .def_readonly("LOG_BLOCK", &Config::logBlock)
      .def_readonly("LOG_UOP_BUFF_SIZE", &Config::logUopBuffSize)
      .def_readonly("LOG_INP_BUFF_SIZE", &Config::logInpBuffSize)
      .def_readonly("LOG_WGT_BUFF_SIZE", &Config::logWgtBuffSize)
      .def_readonly("LOG_ACC_BUFF_SIZE", &Config::logAccBuffSize)
      .def_property_readonly("BATCH", &Config::batch)
      .def_property_readonly("BLOCK_IN", &Config::blockIn)
      .def_property_readonly("BLOCK_OUT", &Config::blockOut)
      .def_property_readonly("INP_WIDTH", &Config::inpWidth)
      .def_property_readonly("WGT_WIDTH", &Config::wgtWidth)
      .def_property_readonly("ACC_WIDTH", &Config::accWidth)
      .def_property_readonly("OUT_WIDTH", &Config::outWidth)
      .def_property_readonly("INP_ELEM_BYTES", &Config::inpElemBytes)
      .def_property_readonly("WGT_ELEM_BYTES", &Config::wgtElemBytes)
      .def_property_readonly("ACC_ELEM_BYTES", &Config::accElemBytes)
      .def_property_readonly("OUT_ELEM_BYTES", &Config::outElemBytes)
      .def_property_readonly("inp_dtype", &Config::inpDtype)
      .def_property_readonly("wgt_dtype", &Config::wgtDtype)
      .def_property_readonly("acc_dtype", &Config::accDtype)
      .def_property_readonly("out_dtype", &Config::outDtype)
      .def_property_readonly("model", &Config::model)
      .def("to_json", &Config::toJson)
      .def("__eq__", [](const Config& a, const Config& b) { return a == b; });
  m.def("vta_default_config", &Config::defaults);
  // The GEMM tensor intrinsics' names for tir.Schedule.tensorize (registered on first use).
  m.def("vta_gemm_intrin_names", [](const Config& config) {
    vta::registerGemmIntrinsics(config);
    return py::make_tuple(vta::gemmIntrinName(config), vta::gemmResetIntrinName(config));
  });
  m.def("vta_load_config", &vta::loadConfig, py::arg("path"));
  m.def("vta_parse_config", [](const std::string& text) { return vta::parseConfig(text); });
}

void bindGraph(py::module_& m) {
  m.def(
      "vta_graph_pack",
      [](py::handle expr, int64_t bfactor, int64_t cfactor, int64_t weightBits,
         std::optional<std::string> startName, std::optional<std::string> stopName,
         std::optional<int64_t> startIdx, std::optional<int64_t> stopIdx, bool countMeta,
         bool packDense) {
        if (!py::isinstance<PyExpr>(expr)) throw py::type_error("graph_pack expects a relay expr");
        relay::Expr e = expr.cast<const PyExpr&>().expr;
        vta::GraphPackOptions options{
            bfactor, cfactor,   weightBits, std::move(startName), std::move(stopName), startIdx,
            stopIdx, countMeta, packDense};
        relay::Function fn = relay::exprAs<relay::FunctionNode>(e);
        relay::Function packed;
        {
          py::gil_scoped_release release;
          // TVM's graph_pack takes an expression too: the body of a function of its free
          // variables.
          if (!fn) fn = relay::function(e);
          packed = vta::graphPack(fn, options);
        }
        return wrapExpr(packed);
      },
      py::arg("expr"), py::arg("bfactor"), py::arg("cfactor"), py::arg("weight_bits"),
      py::arg("start_name") = py::none(), py::arg("stop_name") = py::none(),
      py::arg("start_name_idx") = py::none(), py::arg("stop_name_idx") = py::none(),
      py::arg("count_meta") = false, py::arg("pack_dense") = true);
  m.def("vta_pattern_table", [] {
    py::list rows;
    for (const auto& [name, pattern] : vta::vtaPatternTable())
      rows.append(py::make_tuple(name, pattern));
    return rows;
  });
  m.def("vta_with_function_transform", [] { return PyPass{vta::withVtaFunctionTransformPass()}; });
  m.def("vta_composite_pass", [] { return PyPass{vta::vtaCompositePass()}; });
  m.def("vta_add_lower_passes", &vta::addVtaLowerPasses, py::arg("ctx"), py::arg("config"));
}

vta::Conv2dPackedShape shapeFrom(const py::dict& d) {
  vta::Conv2dPackedShape s;
  for (auto [key, value] : d) {
    const std::string k = key.cast<std::string>();
    const int64_t v = value.cast<int64_t>();
    if (k == "batch")
      s.batch = v;
    else if (k == "in_channels")
      s.inChannels = v;
    else if (k == "height")
      s.height = v;
    else if (k == "width")
      s.width = v;
    else if (k == "out_channels")
      s.outChannels = v;
    else if (k == "kernel")
      s.kernel = v;
    else if (k == "pad")
      s.pad = v;
    else if (k == "stride")
      s.stride = v;
    else if (k == "shift")
      s.shift = v;
    else
      throw py::key_error("conv2d_packed has no shape field '" + k + "'");
  }
  return s;
}

vta::Conv2dPackedKnobs knobsFrom(const py::dict& d) {
  vta::Conv2dPackedKnobs k;
  for (auto [key, value] : d) {
    const std::string name = key.cast<std::string>();
    const int64_t v = value.cast<int64_t>();
    if (name == "tile_b")
      k.tileB = v;
    else if (name == "tile_co")
      k.tileCo = v;
    else if (name == "tile_h")
      k.tileH = v;
    else if (name == "tile_w")
      k.tileW = v;
    else if (name == "tile_ci")
      k.tileCi = v;
    else if (name == "oc_threads")
      k.ocThreads = v;
    else if (name == "h_threads")
      k.hThreads = v;
    else
      throw py::key_error("conv2d_packed has no schedule knob '" + name + "'");
  }
  return k;
}

void bindTopi(py::module_& m) {
  m.def("vta_conv2d_packed_func", [](const Config& config, const py::dict& shape) {
    return PyPrimFunc{vta::conv2dPackedFunc(config, shapeFrom(shape))};
  });
  m.def(
      "vta_schedule_conv2d_packed",
      [](tir::Schedule& sch, const Config& config, const py::dict& shape, py::object knobs,
         bool tensorize) {
        const vta::Conv2dPackedShape s = shapeFrom(shape);
        const vta::Conv2dPackedKnobs k = knobs.is_none() ? vta::defaultConv2dPackedKnobs(config, s)
                                                         : knobsFrom(knobs.cast<py::dict>());
        vta::scheduleConv2dPacked(sch, config, s, k, tensorize);
      },
      py::arg("sch"), py::arg("config"), py::arg("shape"), py::arg("knobs") = py::none(),
      py::arg("tensorize") = true);
}

py::dict statsDict(const vta::Stats& s) {
  py::dict out;
  out["inp_load_nbytes"] = s.inpLoadNbytes;
  out["wgt_load_nbytes"] = s.wgtLoadNbytes;
  out["acc_load_nbytes"] = s.accLoadNbytes;
  out["uop_load_nbytes"] = s.uopLoadNbytes;
  out["out_store_nbytes"] = s.outStoreNbytes;
  out["gemm_counter"] = s.gemmCounter;
  out["alu_counter"] = s.aluCounter;
  return out;
}

/// A lowered VTA PrimFunc run on a command queue: every argument is copied into a device buffer,
/// the host program runs, and every buffer is copied back (the caller decides which are outputs).
std::vector<NDArray> runOnQueue(vta::CommandQueue& queue, const tir::PrimFunc& func,
                                const std::vector<NDArray>& args) {
  std::vector<vta::DeviceBuffer> buffers;
  for (const NDArray& a : args) buffers.push_back(queue.bufferFromArray(a));
  std::vector<NDArray> out;
  try {
    vta::runOnVta(func, queue, buffers);
    for (size_t i = 0; i < args.size(); ++i)
      out.push_back(queue.bufferToArray(buffers[i], args[i].shape(), args[i].dtype()));
  } catch (...) {
    for (const vta::DeviceBuffer& b : buffers) queue.bufferFree(b);
    throw;
  }
  for (const vta::DeviceBuffer& b : buffers) queue.bufferFree(b);
  return out;
}

void bindSimulator(py::module_& m) {
  py::class_<vta::CommandQueue, std::shared_ptr<vta::CommandQueue>>(
      m, "VtaCommandQueue", "A VTA command queue with its simulated device")
      .def(py::init(
               [](const Config& config) { return std::make_shared<vta::CommandQueue>(config); }),
           py::arg("config") = Config::defaults())
      .def_property_readonly("config", &vta::CommandQueue::config)
      .def("stats", [](const vta::CommandQueue& q) { return statsDict(q.stats()); })
      .def("stats_text", [](const vta::CommandQueue& q) { return q.stats().format(); })
      .def("clear_stats", &vta::CommandQueue::clearStats)
      .def_property_readonly("instruction_count",
                             [](const vta::CommandQueue& q) { return q.lastRun().size(); })
      .def(
          "run",
          [](vta::CommandQueue& q, const PyPrimFunc& f, py::args args) {
            std::vector<NDArray> arrays;
            for (py::handle a : args) arrays.push_back(toNDArray(a));
            py::gil_scoped_release release;
            return runOnQueue(q, f.func, arrays);
          },
          py::arg("func"));
}

}  // namespace

void bindVta(py::module_& m) {
  bindConfig(m);
  bindGraph(m);
  bindTopi(m);
  bindSimulator(m);
}

}  // namespace tessera::python
