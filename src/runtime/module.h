// Compiled code loaded into this process, callable by name: what a shared library exported by
// Tessera (or code the JIT just linked) becomes. Needs nothing from the compiler: a program that
// runs an exported model links the runtime only.
//
// Generated code's C calling convention (one per function):
//
//   int32_t f(void** args, int32_t numArgs);
//
// `args[i]` is a `DLTensor*` for every parameter of the PrimFunc, in order (a scalar parameter
// takes a rank-0 DLTensor of exactly its dtype). The function checks its arguments (count, ndim,
// dtype, device, shape, compactness), sets a message readable with TesseraGetLastError() and
// returns -1 on failure, 0 on success. Callers outside the runtime use getFunction's PackedFunc,
// the one packed-function convention of Tessera (the VM, call_packed and the Python bindings use
// it too).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "runtime/packed_func.h"

namespace tessera::runtime {

/// The C signature of every function Tessera compiles.
using KernelFunction = int32_t (*)(void** args, int32_t numArgs);

/// Resolves a symbol of loaded code to its address (nullptr when absent).
using SymbolLookup = std::function<void*(const char* symbol)>;

/// The symbols every compiled module defines besides its functions.
inline constexpr const char* kFunctionListSymbol = "__tessera_functions__";  ///< "f,g,..."
inline constexpr const char* kEntryNameSymbol = "__tessera_main__";          ///< when one function
inline constexpr const char* kSlotListSymbol = "__tessera_slots__";  ///< C-function slots used
/// Defined when some function issues AMX tile instructions (runtime/amx_permission.h).
inline constexpr const char* kAmxTilesSymbol = "__tessera_amx_tiles__";

class Module {
 public:
  Module() = default;

  /// Binds loaded code: fills every C-function slot the code lists (kSlotListSymbol) from the
  /// registry (runtime/c_functions.h) and collects `names`. `owner` keeps the code loaded while
  /// any copy of the module lives. DiagnosticError (code `errorCode`, context `where`) for a
  /// missing function or slot, or a slot no runtime library registered. Code that uses AMX tiles
  /// (kAmxTilesSymbol) binds where the process may not use them, but its functions then refuse
  /// to run (below).
  static Module bind(const SymbolLookup& lookup, std::vector<std::string> names, std::string entry,
                     std::shared_ptr<void> owner, const std::string& errorCode,
                     const std::string& where);

  /// Whether the module holds code (a default-constructed one does not).
  bool loaded() const { return impl_ != nullptr; }
  /// The function named `name` (its global_symbol), or nullptr. DiagnosticError (code
  /// "amx_permission") when the code uses AMX tiles and this process may not: a tile
  /// instruction would fault.
  KernelFunction getKernel(const std::string& name) const;
  /// The function as a packed function: tensors in, a null result; DiagnosticError (code
  /// "codegen_call") with the function's own message when it fails. Null when there is none.
  PackedFunc getFunction(const std::string& name) const;
  /// Calls `name` with one NDArray per parameter. DiagnosticError (code "codegen_call") for an
  /// unknown name or with the function's own message.
  void call(const std::string& name, const std::vector<NDArray>& args) const;
  /// The names of the functions, in module order.
  const std::vector<std::string>& functionNames() const;
  /// The entry function's name ("" unless the module has exactly one function).
  std::string entryName() const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

/// Opens a shared library exported by Tessera. DiagnosticError (code "codegen_load", context
/// `path`) when it cannot be opened or was not written by Tessera.
Module loadModule(const std::string& path);

}  // namespace tessera::runtime
