// The syntax tree of the Python subset TVMScript is written in: what the lexer and parser
// (py_parser.h) make of a script before the TIR and Relax builders give it meaning. Every node
// carries the span of its first token, so the builders report errors at line:column.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "support/span.h"

namespace tessera::tir::script {

enum class PyExprKind : uint8_t {
  kName,       ///< `x`; text = the name
  kInt,        ///< intValue
  kFloat,      ///< floatValue
  kString,     ///< text
  kBool,       ///< intValue 0/1
  kNone,       ///< `None`
  kAttribute,  ///< `base.text`
  kCall,       ///< `base(items..., kwargs...)`
  kSubscript,  ///< `base[items...]`; several items when the index is a bare tuple `A[i, j]`
  kSlice,      ///< `items[0]:items[1]` or `items[0]:items[1]:items[2]` (null for an omitted part)
  kTuple,      ///< `(a, b)`; `parenthesized` says whether it was written in parentheses
  kList,       ///< `[a, b]`
  kDict,       ///< `{k: v}`: items are keys and values alternately
  kBinary,     ///< `items[0] text items[1]`: + - * / // % ** < <= > >= == != and or
  kUnary,      ///< `text items[0]`: - + not
};

struct PyExpr;
using PyExprPtr = std::shared_ptr<const PyExpr>;

struct PyExpr {
  PyExprKind kind = PyExprKind::kNone;
  Span span;
  std::string text;
  int64_t intValue = 0;
  double floatValue = 0;
  PyExprPtr base;
  std::vector<PyExprPtr> items;
  std::vector<std::pair<std::string, PyExprPtr>> kwargs;
  bool parenthesized = false;

  /// `T.grid` for the attribute chain `T.grid` (and `x` for a name); empty for anything else.
  std::string dottedName() const;
  /// The keyword argument `name` of a call, or null.
  PyExprPtr kwarg(const std::string& name) const;
};

enum class PyStmtKind : uint8_t {
  kExpr,       ///< value
  kAssign,     ///< targets = value; targets has one entry per comma-separated target
  kAnnAssign,  ///< targets[0]: annotation = value (value may be null)
  kFor,        ///< for targets in value: body
  kWith,       ///< with value as targets: body (targets empty without `as`)
  kIf,         ///< if value: body else: orelse
  kReturn,     ///< return value (may be null)
  kAssert,     ///< assert value, message
  kPass,
  kFunctionDef,  ///< decorators, def name(params) -> returns: body
  kClassDef,     ///< decorators, class name: body
};

struct PyStmt;
using PyStmtPtr = std::shared_ptr<const PyStmt>;

/// One parameter of a function definition: `name: annotation` (annotation may be null).
struct PyParam {
  std::string name;
  PyExprPtr annotation;
  Span span;
};

struct PyStmt {
  PyStmtKind kind = PyStmtKind::kPass;
  Span span;
  std::vector<PyExprPtr> targets;
  PyExprPtr value;
  PyExprPtr annotation;
  PyExprPtr message;
  std::vector<PyStmtPtr> body;
  std::vector<PyStmtPtr> orelse;
  std::vector<PyExprPtr> decorators;
  std::string name;
  std::vector<PyParam> params;
  PyExprPtr returns;
};

}  // namespace tessera::tir::script
