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

GraphExecutor::GraphExecutor(const GraphModel& model) : graph_(model.graph), lib_(model.lib) {
  validate(graph_, "graph");
  for (int64_t bytes : graph_.storageBytes)
    storage_.push_back(NDArray::empty({std::max<int64_t>(bytes, 1)}, DataType::uint8()));
  for (const TensorEntry& e : graph_.entries)
    entries_.push_back(viewOf(storage_[e.storage], e.shape, e.dtype));
  for (const NamedEntry& p : graph_.params) {
    auto it = model.params.find(p.name);
    if (it == model.params.end())
      throwDiagnostic("graph_executor", "no value for parameter '" + p.name + "'", {}, p.name);
    const NDArray& dst = entries_[p.entry];
    TS_CHECK(it->second.nbytes() == dst.nbytes()) << "parameter " << p.name << " size";
    std::memcpy(dst.data(), it->second.data(), dst.nbytes());
  }
  for (const KernelCall& call : graph_.calls) {
    PreparedCall prepared{lib_.getKernel(call.kernel), call.kernel, {}};
    if (prepared.fn == nullptr)
      throwDiagnostic("graph_executor", "the compiled module has no kernel of this name", {},
                      call.kernel);
    for (const std::vector<int>* list : {&call.inputs, &call.outputs})
      for (int e : *list) prepared.args.push_back(const_cast<DLTensor*>(&entries_[e].dlTensor()));
    calls_.push_back(std::move(prepared));
  }
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
  for (PreparedCall& call : calls_) {
    if (call.fn(call.args.data(), static_cast<int32_t>(call.args.size())) != 0)
      throwDiagnostic("graph_run", TesseraGetLastError(), {}, call.kernel);
  }
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
      if (call.fn(call.args.data(), static_cast<int32_t>(call.args.size())) != 0)
        throwDiagnostic("graph_run", TesseraGetLastError(), {}, call.kernel);
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
