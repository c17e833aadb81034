// Graph executor: entries are typed views into shared storage buffers (the memory plan), so a
// kernel call is a fixed array of DLTensor pointers prepared once.
#include "runtime/graph_executor/graph_executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include "runtime/thread_pool.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::runtime {

namespace {

// Keeps the storage buffer alive while a view of it lives.
struct ViewContext {
  NDArray storage;
  std::vector<int64_t> shape;
};

// `shape`/`dtype` over the first bytes of `storage`, sharing its memory (DLPack import, so the
// view holds a reference to the buffer).
NDArray viewOf(const NDArray& storage, const std::vector<int64_t>& shape, DataType dtype) {
  auto* context = new ViewContext{storage, shape};
  auto* managed = new DLManagedTensor{};
  managed->dl_tensor.data = storage.data();
  managed->dl_tensor.device = DLDevice{kDLCPU, 0};
  managed->dl_tensor.ndim = static_cast<int32_t>(context->shape.size());
  managed->dl_tensor.dtype = dtype.toDLPack();
  managed->dl_tensor.shape = context->shape.data();
  managed->dl_tensor.strides = nullptr;
  managed->dl_tensor.byte_offset = 0;
  managed->manager_ctx = context;
  managed->deleter = [](DLManagedTensor* self) {
    delete static_cast<ViewContext*>(self->manager_ctx);
    delete self;
  };
  return NDArray::fromDLPack(managed);
}

std::string describeEntry(const TensorEntry& e) {
  return "Tensor[" + shapeString(e.shape) + ", " + e.dtype.name() + "]";
}

}  // namespace

struct GraphExecutor::DeviceMemory {
  std::vector<std::shared_ptr<void>> buffers;  // per storage; null for the CPU's
  std::vector<std::vector<int64_t>> shapes;    // per entry (device entries only)
  std::vector<DLTensor> tensors;               // per entry (device entries only)
};

GraphExecutor::GraphExecutor(const GraphModel& model) : graph_(model.graph), lib_(model.lib) {
  validate(graph_, "graph");
  devices_.resize(graph_.devices.size());
  for (size_t d = 1; d < graph_.devices.size(); ++d)
    devices_[d] = openDevice(graph_.devices[d].name, graph_.devices[d].target);
  for (auto& d : devices_)
    if (d) d->activate();
  auto storageDevice = [&](size_t s) {
    return graph_.storageDevices.empty() ? 0 : graph_.storageDevices[s];
  };
  deviceMemory_ = std::make_shared<DeviceMemory>();
  DeviceMemory& dm = *deviceMemory_;
  for (size_t s = 0; s < graph_.storageBytes.size(); ++s) {
    const int64_t bytes = std::max<int64_t>(graph_.storageBytes[s], 1);
    const int d = storageDevice(s);
    if (d == 0) {
      storage_.push_back(NDArray::empty({bytes}, DataType::uint8()));
      dm.buffers.push_back(nullptr);
      continue;
    }
    storage_.push_back(NDArray());
    std::shared_ptr<DeviceApi> api = devices_[d];
    dm.buffers.push_back(std::shared_ptr<void>(api->alloc(static_cast<size_t>(bytes)),
                                               [api](void* h) { api->free(h); }));
  }
  dm.shapes.resize(graph_.entries.size());
  dm.tensors.resize(graph_.entries.size());
  for (size_t i = 0; i < graph_.entries.size(); ++i) {
    const TensorEntry& e = graph_.entries[i];
    if (e.device == 0) {
      entries_.push_back(viewOf(storage_[e.storage], e.shape, e.dtype));
      continue;
    }
    entries_.push_back(NDArray());
    dm.shapes[i] = e.shape;
    DLTensor& t = dm.tensors[i];
    t.data = dm.buffers[e.storage].get();
    t.device = DLDevice{devices_[e.device]->deviceType(), 0};
    t.ndim = static_cast<int32_t>(e.shape.size());
    t.dtype = e.dtype.toDLPack();
    t.shape = dm.shapes[i].data();
  }
  for (const NamedEntry& p : graph_.params) {
    auto it = model.params.find(p.name);
    if (it == model.params.end())
      throwDiagnostic("graph_executor", "no value for parameter '" + p.name + "'", {}, p.name);
    const TensorEntry& entry = graph_.entries[p.entry];
    TS_CHECK(static_cast<int64_t>(it->second.nbytes()) == entry.bytes())
        << "parameter " << p.name << " size";
    if (entry.device == 0)
      std::memcpy(entries_[p.entry].data(), it->second.data(), it->second.nbytes());
    else
      devices_[entry.device]->copyToDevice(it->second.data(), dm.tensors[p.entry].data,
                                           it->second.nbytes());
  }
  for (const KernelCall& call : graph_.calls) {
    PreparedCall prepared{nullptr, call.kernel, {}, 0};
    if (call.kernel != kCopyKernel) {
      prepared.fn = lib_.getKernel(call.kernel);
      if (prepared.fn == nullptr)
        throwDiagnostic("graph_executor", "the compiled module has no kernel of this name", {},
                        call.kernel);
    }
    for (const std::vector<int>* list : {&call.inputs, &call.outputs})
      for (int e : *list) prepared.args.push_back(tensorOf(e));
    if (!call.outputs.empty()) prepared.device = graph_.entries[call.outputs[0]].device;
    calls_.push_back(std::move(prepared));
  }
}

DLTensor* GraphExecutor::tensorOf(int entry) const {
  if (graph_.entries[entry].device == 0)
    return const_cast<DLTensor*>(&entries_[entry].dlTensor());
  return &deviceMemory_->tensors[entry];
}

std::shared_ptr<DeviceApi> GraphExecutor::device(const std::string& name) const {
  for (size_t d = 1; d < devices_.size(); ++d)
    if (graph_.devices[d].name == name) return devices_[d];
  return nullptr;
}

// One call: a kernel, whose device errors are reported after it, or a copy between the CPU and a
// device.
void GraphExecutor::runCall(PreparedCall& call) {
  if (call.fn == nullptr) {
    const auto* from = static_cast<const DLTensor*>(call.args[0]);
    const auto* to = static_cast<const DLTensor*>(call.args[1]);
    const size_t bytes = static_cast<size_t>(shapeNumel({from->shape, size_t(from->ndim)}) *
                                             DataType::fromDLPack(from->dtype).bytes());
    const bool fromCpu = from->device.device_type == kDLCPU;
    const bool toCpu = to->device.device_type == kDLCPU;
    if (fromCpu && toCpu) {
      std::memcpy(to->data, from->data, bytes);
    } else if (fromCpu) {
      devices_[call.device]->copyToDevice(from->data, to->data, bytes);
    } else if (toCpu) {
      // The source's device: the copy's output is on the CPU, so look at its input entry.
      for (size_t d = 1; d < devices_.size(); ++d)
        if (devices_[d]->deviceType() == from->device.device_type) {
          devices_[d]->copyFromDevice(from->data, to->data, bytes);
          break;
        }
    } else {
      throwDiagnostic("graph_run", "a copy between two devices is not supported", {}, call.kernel);
    }
    return;
  }
  const int status = call.fn(call.args.data(), static_cast<int32_t>(call.args.size()));
  if (call.device != 0) devices_[call.device]->checkError();
  if (status != 0) throwDiagnostic("graph_run", TesseraGetLastError(), {}, call.kernel);
}

const std::string& GraphExecutor::inputName(int index) const {
  if (index < 0 || index >= numInputs())
    throwDiagnostic("graph_input", "input index " + std::to_string(index) + " is out of range (" +
                                       std::to_string(numInputs()) + " inputs)");
  return graph_.inputs[index].name;
}

int GraphExecutor::inputIndex(const std::string& name) const {
  std::string names;
  for (int i = 0; i < numInputs(); ++i) {
    if (graph_.inputs[i].name == name) return i;
    names += (names.empty() ? "" : ", ") + graph_.inputs[i].name;
  }
  throwDiagnostic(
      "graph_input",
      "no input named '" + name + "'; the inputs are: " + (names.empty() ? "(none)" : names), {},
      "%" + name);
}

const TensorEntry& GraphExecutor::inputInfo(int index) const {
  inputName(index);  // diagnoses an index out of range
  return graph_.entries[graph_.inputs[index].entry];
}

const TensorEntry& GraphExecutor::outputInfo(int index) const {
  if (index < 0 || index >= numOutputs())
    throwDiagnostic("graph_output", "output index " + std::to_string(index) + " is out of range (" +
                                        std::to_string(numOutputs()) + " outputs)");
  return graph_.entries[graph_.outputs[index]];
}

void GraphExecutor::setInput(const std::string& name, const NDArray& value) {
  setInput(inputIndex(name), value);
}

void GraphExecutor::setInput(int index, const NDArray& value) {
  const TensorEntry& expected = inputInfo(index);
  const std::string& name = graph_.inputs[index].name;
  if (!value.defined()) throwDiagnostic("graph_input", "the value is undefined", {}, "%" + name);
  if (value.dtype() != expected.dtype)
    throwDiagnostic("graph_input",
                    "expected dtype " + expected.dtype.name() + " (" + describeEntry(expected) +
                        ") but got " + value.dtype().name(),
                    {}, "%" + name);
  if (value.shape() != expected.shape)
    throwDiagnostic("graph_input",
                    "expected shape " + shapeString(expected.shape) + " (" +
                        describeEntry(expected) + ") but got " + shapeString(value.shape()),
                    {}, "%" + name);
  const NDArray& dst = entries_[graph_.inputs[index].entry];
  if (dst.data() != value.data()) std::memcpy(dst.data(), value.data(), dst.nbytes());
}

void GraphExecutor::run() {
  for (auto& d : devices_)
    if (d) d->activate();
  for (PreparedCall& call : calls_) runCall(call);
}

std::vector<GraphExecutor::KernelTime> GraphExecutor::profile(int runs) {
  run();
  std::vector<KernelTime> kernels;
  std::map<std::string, size_t> slot;  // kernel name -> index in `kernels`
  for (const PreparedCall& call : calls_) {
    auto [it, fresh] = slot.emplace(call.kernel, kernels.size());
    if (fresh) kernels.push_back({call.kernel, 0, 0});
    ++kernels[it->second].calls;
  }
  std::vector<std::vector<double>> samples(kernels.size(), std::vector<double>(runs, 0.0));
  for (int r = 0; r < runs; ++r) {
    for (PreparedCall& call : calls_) {
      const auto start = std::chrono::steady_clock::now();
      runCall(call);
      samples[slot.at(call.kernel)][r] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  }
  for (size_t k = 0; k < kernels.size(); ++k) {
    std::sort(samples[k].begin(), samples[k].end());
    kernels[k].seconds = samples[k][samples[k].size() / 2];
  }
  return kernels;
}

NDArray GraphExecutor::getOutput(int index) const {
  outputInfo(index);  // diagnoses an index out of range
  return entries_[graph_.outputs[index]];
}

NDArray GraphExecutor::getOutput(const std::string& name) const {
  const std::string prefix = "output_";
  if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() &&
      name.find_first_not_of("0123456789", prefix.size()) == std::string::npos &&
      name.size() - prefix.size() < 9) {
    const int index = std::stoi(name.substr(prefix.size()));
    if (index < numOutputs()) return getOutput(index);
  }
  throwDiagnostic("graph_output",
                  "no output named '" + name + "'; the outputs are output_0 to output_" +
                      std::to_string(numOutputs() - 1),
                  {}, name);
}

NDArray GraphExecutor::getInput(int index) const {
  inputName(index);  // diagnoses an index out of range
  return entries_[graph_.inputs[index].entry];
}

}  // namespace tessera::runtime
