// A VM executable as files: vm.json (the functions, format "tessera-vm-1"), constants.npz (the
// constant pool, arrays c0, c1, ...) and kernels.so — what `tessera compile` writes for a module
// with control flow, and what a program linking only the runtime loads back.
#pragma once

#include <string>

#include "runtime/vm/vm_executable.h"

namespace tessera::runtime::vm {

inline constexpr const char* kProgramFile = "vm.json";
inline constexpr const char* kConstantsFile = "constants.npz";

/// vm.json's text for `exec`'s functions (the constants and kernels are stored beside it).
std::string programToJson(const Executable& exec);
/// The functions of a vm.json text; DiagnosticError (code "vm_json") naming `where` and what is
/// malformed.
std::map<std::string, VMFunction> programFromJson(const std::string& text,
                                                  const std::string& where);

/// Writes `dir`/vm.json and `dir`/constants.npz (each whole or not at all); the caller writes
/// kernels.so. Removes a graph model's graph.json and params.npz from `dir`, so the directory
/// holds one kind of module.
void writeProgram(const Executable& exec, const std::string& dir);
/// Opens a directory written by writeProgram (and kernels.so when the program calls kernels).
/// DiagnosticError (codes "export", "vm_json", "codegen_load") naming the file at fault.
Executable loadExecutable(const std::string& dir);
/// Whether `path` is a directory holding a vm.json.
bool isExecutableDirectory(const std::string& path);

}  // namespace tessera::runtime::vm
