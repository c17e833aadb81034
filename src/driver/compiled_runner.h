// Running a graph-level module compiled for the host, as a function of named inputs: what
// relay.quantize's calibration and error report call for every calibration sample (TVM runs its
// profile graph through relay.build and the graph executor too). The reference interpreter is
// the other runner (relay/quantize/calibrate.h): exact, and minutes instead of seconds on
// ResNet-sized profile graphs.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "relay/module.h"
#include "runtime/ndarray.h"

namespace tessera::driver {

/// Runs a module on named inputs and returns its outputs, flattened (relay::quantize's
/// ModuleRunner).
using ModuleRunner = std::function<std::vector<NDArray>(const relay::IRModule&,
                                                        const std::map<std::string, NDArray>&)>;

/// A runner that builds each module it is given for the host (once: the last module and its
/// executor are kept, so the samples of one calibration pass compile it once) and runs it with
/// the graph executor. Outputs are copies. Errors of build() and of the executor propagate.
ModuleRunner compiledRunner();

}  // namespace tessera::driver
