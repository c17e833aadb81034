// Parses the Python subset TVMScript is written in into a syntax tree (py_ast.h): decorated
// classes and functions, assignments (with annotations and tuple targets), for, with, if/else,
// return, assert, pass, and expressions with Python's precedence, calls with keyword arguments,
// subscripts with slices, tuples, lists and dicts. Errors are DiagnosticErrors (code "tvmscript")
// with line:column; nesting is capped so no input can exhaust the stack.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tir/script/py_ast.h"

namespace tessera::tir::script {

/// Nesting deeper than this (brackets, operators, indented blocks) is a diagnostic.
constexpr int kMaxNestingDepth = 200;

/// The statements of `text`; `sourceName` names it in spans ("<tvmscript>", a file path).
std::vector<PyStmtPtr> parsePython(std::string_view text, const std::string& sourceName);

}  // namespace tessera::tir::script
