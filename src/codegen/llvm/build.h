// Compiling a lowered TirModule to machine code: in-process through ORC JIT (a runtime::Module),
// exportable as a shared library, which runtime::loadModule reopens without LLVM. Functions follow
// the C calling convention of runtime/module.h. Input must be lowered TensorIR (no blocks; see
// tir/transform/lower.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/llvm/target.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "tir/function.h"

namespace tessera::codegen {

/// Compiled functions, callable by name. Copies share the loaded code, which stays loaded while
/// any copy lives.
/// A compiled module as bytes: its object files and what binding them needs. What a child
/// process that compiled a module hands its parent (tune/measure.h).
struct CompiledObjects {
  std::vector<std::string> objects;  ///< one object file per part
  std::vector<std::string> names;    ///< the functions, in module order
  std::string entry;
  std::string triple;
};

class CompiledModule {
 public:
  CompiledModule() = default;

  /// The function named `name` (its global_symbol), or null when there is none.
  runtime::KernelFunction getFunction(const std::string& name) const;
  /// The loaded code (not loaded for another target's module, which can only be exported).
  const runtime::Module& module() const;
  /// Calls `name` with one NDArray per parameter (rank-0 arrays for scalar parameters). Throws
  /// DiagnosticError (code "codegen_call") for an unknown name or with the function's own error
  /// message when it fails.
  void call(const std::string& name, const std::vector<NDArray>& args) const;
  /// The names of the compiled functions, in module order.
  const std::vector<std::string>& functionNames() const;
  /// The name of the module's entry function ("" unless the module has exactly one function).
  std::string entryName() const;
  /// The optimized LLVM IR (empty for a module loaded from a library or compiled without keepIR).
  const std::string& llvmIR() const;
  /// Writes a shared library that loadLibrary reopens (in this or another process). Throws
  /// DiagnosticError (code "codegen_export") when linking fails.
  void exportLibrary(const std::string& path) const;

  /// Code loaded by the runtime (runtime::loadModule), with this class's interface.
  static CompiledModule fromLoaded(runtime::Module module);
  /// The object files and names of a module built by compile() (empty for a loaded library).
  CompiledObjects objects() const;
  /// A module from objects() of another (or the same) process, linked in-process when its
  /// triple is host-compatible. Throws DiagnosticError (code "codegen") when linking fails.
  static CompiledModule fromObjects(CompiledObjects objects);

  struct Impl;
  explicit CompiledModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

struct CompileOptions {
  /// Keep the optimized LLVM IR for llvmIR() (printing it costs a few percent of the time).
  bool keepIR = true;
  /// Threads compiling parts of the module concurrently (0: runtime::numThreads()).
  int threads = 0;
  /// Link the code in-process so that it can be called (false: objects only, for
  /// exportLibrary and objects(), as for another target's module).
  bool link = true;
};

/// Compiles every function of `module` for `target` with LLVM's O3 pipeline; the functions are
/// split into parts compiled concurrently (one object file each, linked together). The module can
/// be called in-process only when the target is host-compatible; otherwise only exported. Throws
/// DiagnosticError (code "codegen") for IR it cannot compile (blocks, nested parallel loops,
/// unknown intrinsics).
CompiledModule compile(const tir::TirModule& module,
                       const target::Target& target = target::Target::llvm(),
                       const CompileOptions& options = {});
/// Opens a library written by exportLibrary (runtime::loadModule, wrapped). Throws
/// DiagnosticError (code "codegen_load").
CompiledModule loadLibrary(const std::string& path);

}  // namespace tessera::codegen
