// Static memory planning for the graph executor: intermediate tensors share buffers when their
// lifetimes (from the producing call to the last reading call) do not overlap.
#include <algorithm>
#include <set>

#include "runtime/graph_executor/graph_description.h"
#include "runtime/ndarray.h"
#include "support/check.h"

namespace tessera::runtime {

int64_t TensorEntry::bytes() const {
  return shapeNumel(shape) * dtype.bytes();
}

namespace {

// Buffers not in use right now, by index; a new tensor takes the best fit.
class FreeList {
 public:
  explicit FreeList(std::vector<int64_t>& sizes) : sizes_(sizes) {}

  // The smallest free buffer of at least `bytes`; otherwise the largest free one, grown to
  // `bytes` (growing a buffer that is already big beats opening a new one); otherwise a new one.
  int take(int64_t bytes) {
    int best = -1;
    int largest = -1;
    for (int id : free_) {
      if (sizes_[id] >= bytes && (best < 0 || sizes_[id] < sizes_[best])) best = id;
      if (largest < 0 || sizes_[id] > sizes_[largest]) largest = id;
    }
    int chosen = best >= 0 ? best : largest;
    if (chosen < 0) {
      sizes_.push_back(bytes);
      return static_cast<int>(sizes_.size()) - 1;
    }
    free_.erase(chosen);
    sizes_[chosen] = std::max(sizes_[chosen], bytes);
    return chosen;
  }
  void release(int id) { free_.insert(id); }

 private:
  std::vector<int64_t>& sizes_;
  std::set<int> free_;  // ordered, so ties resolve the same way every time
};

}  // namespace

void planMemory(GraphDescription& graph) {
  const int numEntries = static_cast<int>(graph.entries.size());
  std::vector<int64_t>& sizes = graph.storageBytes;
  sizes.clear();
  std::vector<int>& devices = graph.storageDevices;
  devices.clear();
  for (TensorEntry& e : graph.entries) e.storage = -1;

  // Entries whose contents outlive one run(): they never share.
  std::vector<bool> pinned(numEntries, false);
  for (const NamedEntry& n : graph.inputs) pinned[n.entry] = true;
  for (const NamedEntry& n : graph.params) pinned[n.entry] = true;
  for (int e : graph.outputs) pinned[e] = true;
  for (int e = 0; e < numEntries; ++e) {
    if (!pinned[e]) continue;
    graph.entries[e].storage = static_cast<int>(sizes.size());
    sizes.push_back(graph.entries[e].bytes());
    devices.push_back(graph.entries[e].device);
  }

  // The last call that touches each intermediate; an unread output dies at its producer.
  std::vector<int> lastUse(numEntries, -1);
  for (int i = 0; i < static_cast<int>(graph.calls.size()); ++i) {
    for (int e : graph.calls[i].inputs) lastUse[e] = i;
    for (int e : graph.calls[i].outputs) lastUse[e] = std::max(lastUse[e], i);
  }

  // One free list per device: a buffer never moves between devices.
  std::vector<FreeList> freeLists;
  for (size_t d = 0; d < graph.devices.size(); ++d) freeLists.emplace_back(sizes);
  for (int i = 0; i < static_cast<int>(graph.calls.size()); ++i) {
    const KernelCall& call = graph.calls[i];
    // Outputs are placed before this call's dead inputs are released: a kernel never writes
    // into a buffer it reads.
    for (int e : call.outputs) {
      TS_CHECK(graph.entries[e].storage < 0 || pinned[e]) << "entry " << e << " written twice";
      if (pinned[e]) continue;
      const int device = graph.entries[e].device;
      TS_CHECK(device >= 0 && device < static_cast<int>(freeLists.size())) << "entry " << e;
      const size_t before = sizes.size();
      graph.entries[e].storage = freeLists[device].take(graph.entries[e].bytes());
      if (sizes.size() > before) devices.push_back(device);
    }
    std::set<int> dying;
    for (int e : call.inputs)
      if (!pinned[e] && lastUse[e] == i) dying.insert(e);
    for (int e : call.outputs)
      if (!pinned[e] && lastUse[e] == i) dying.insert(e);
    for (int e : dying) freeLists[graph.entries[e].device].release(graph.entries[e].storage);
  }

  graph.naiveBytes = 0;
  graph.plannedBytes = 0;
  for (const TensorEntry& e : graph.entries) {
    TS_CHECK(e.storage >= 0) << "an entry is neither an input, a parameter nor a kernel output";
    graph.naiveBytes += e.bytes();
  }
  for (int64_t s : sizes) graph.plannedBytes += s;
}

}  // namespace tessera::runtime
