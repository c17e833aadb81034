// The time spent in one kernel over a profile, as the graph executor's and the VM's profilers
// report it (TVM's debug executor and VM profiler).
#pragma once

#include <string>

namespace tessera::runtime {

/// Calls of the kernel per run and the median over the runs of their summed time.
struct KernelTime {
  std::string kernel;
  int calls = 0;
  double seconds = 0;
};

}  // namespace tessera::runtime
