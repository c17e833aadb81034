// The virtual machine (Relax's VM, also the target of Relay modules with control flow): runs an
// Executable's functions on NDArrays, with jumps for `if` and calls between functions (a tail call
// reuses the frame, so loops written as recursion run in place). Symbolic
// dimensions are bound from the inputs' shapes at entry (and checked where they repeat); outputs
// of call_tir / call_dps_packed are allocated by the VM and filled by the callee. Part of the
// runtime: an executable runs without the compiler.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_time.h"
#include "runtime/module.h"
#include "runtime/packed_func.h"
#include "runtime/vm/vm_executable.h"

namespace tessera::runtime::vm {

/// A VM value: a tensor or a tuple of values.
struct VMValue {
  NDArray tensor;
  std::shared_ptr<std::vector<VMValue>> tuple;  ///< set for a tuple
  bool isTuple() const { return tuple != nullptr; }
};

/// A builtin of the VM (runtime/vm/builtins.h): the call's tensors in, its result (a tensor or a
/// tuple) out. The last argument is an int64 tensor of the op's attributes, encoded by the VM
/// compiler. Throws DiagnosticError for arguments it cannot take.
using Builtin = std::function<VMValue(const std::vector<NDArray>& args)>;

class VirtualMachine {
 public:
  /// Resolves every call_dps_packed name, first among the compiled kernels, then in the packed
  /// registry; DiagnosticError (code "vm_missing_function") naming the function and the caller
  /// when one is found in neither.
  explicit VirtualMachine(Executable exec);

  /// Runs `func`. DiagnosticError (code "vm_input") for a wrong argument count, rank, dtype or
  /// shape, naming the parameter and what its annotation expects.
  VMValue invoke(const std::string& func, const std::vector<NDArray>& args) const;
  /// invoke() for a function returning one tensor.
  NDArray run(const std::string& func, const std::vector<NDArray>& args) const;
  /// Runs `func` `runs` times (after one warm-up run) timing every compiled-kernel call; kernels
  /// in order of their first call, with their calls in the last run (control flow may change
  /// them between inputs) and the median over the runs of their summed time. Same errors as
  /// invoke(); not to be called from two threads at once.
  std::vector<KernelTime> profile(const std::string& func, const std::vector<NDArray>& args,
                                  int runs) const;

  const Executable& executable() const { return exec_; }

 private:
  VMValue execute(const VMFunction& fn, std::vector<VMValue> args, ShapeEnv env) const;
  const VMFunction& callee(const VMFunction& caller, const std::string& name) const;
  ShapeEnv bindCall(const VMFunction& fn, const std::vector<VMValue>& args) const;

  Executable exec_;
  std::map<std::string, PackedFunc> packed_;  ///< call_packed targets resolved at load time
  /// What the VM works out per function at load time, per instruction.
  struct FunctionPlan {
    std::vector<KernelFunction> kernels;      ///< call_kernel's compiled kernel (null elsewhere)
    std::vector<const Builtin*> builtins;     ///< call_builtin's builtin (null elsewhere)
    std::vector<std::vector<int>> freeAfter;  ///< registers read for the last time
  };
  std::map<std::string, FunctionPlan> plans_;
  /// While profile() runs: the seconds and calls of each kernel in the current run.
  struct ProfileRun {
    std::vector<std::string> order;
    std::map<std::string, std::pair<double, int>> kernels;
  };
  mutable ProfileRun* profiling_ = nullptr;
};

}  // namespace tessera::runtime::vm
