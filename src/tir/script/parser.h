// Reads the TVMScript Tessera prints for TensorIR (tir/printer/printer.h) back into PrimFuncs:
// `@I.ir_module class Module:` of `@T.prim_func` definitions, or bare `@T.prim_func`
// definitions, with buffers, loops, blocks, `T.axis.*`, regions, init, allocations and the flat
// statements of lowered code. Printing the parsed functions gives the text back. What is accepted:
// docs/user/tvmscript.md. Errors are DiagnosticErrors (code "tvmscript") at line:column.
#pragma once

#include <string>
#include <string_view>

#include "tir/function.h"
#include "tir/script/py_ast.h"

namespace tessera::tir {

/// Every PrimFunc of the script, in order. Relax functions are the Relax parser's
/// (relax/script_parser.h): here they are a diagnostic.
TirModule parseScript(std::string_view text, const std::string& sourceName = "<tvmscript>");
/// The one PrimFunc of `text` (a module holding exactly one is accepted too).
PrimFunc parsePrimFunc(std::string_view text, const std::string& sourceName = "<tvmscript>");

namespace script {
/// One parsed `@T.prim_func` definition as a PrimFunc (the Relax parser's entry for the
/// PrimFuncs of a mixed module).
PrimFunc buildPrimFunc(const PyStmt& def);
}  // namespace script

}  // namespace tessera::tir
