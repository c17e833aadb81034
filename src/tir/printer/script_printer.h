// Internal to the TVMScript printer (printer.cc, printer_expr.cc, printer_defs.cc): the printer
// state shared by the statement, expression and definition-placement parts.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tir/function.h"

namespace tessera::tir::script {

/// Python's repr() of a float: shortest round-trip digits, fixed notation for exponents in
/// [-4, 16), always with a decimal point or an exponent ("0.0", "1e+16",
/// "-3.4028234663852886e+38").
std::string pythonFloat(double value);
/// A Python string literal in double quotes.
std::string quoted(const std::string& s);
/// The TVMScript spelling of an attribute value (annotations, function attributes).
std::string attrValueScript(const AttrValue& value);
/// `{"a": 1, "b": T.bool(True)}` with keys sorted, as TVM prints string-keyed maps.
std::string dictScript(const DictAttrs& dict);

/// Something the printer must declare where the IR does not: a buffer used without a definition
/// (a flattened view `A_1 = T.Buffer((4096,), data=A.data)`) or a free variable (`n = T.int32()`).
struct ImplicitDef {
  const BufferNode* buffer = nullptr;  ///< set for a buffer
  const VarNode* var = nullptr;        ///< set for a variable
};

/// For each statement, the implicit definitions to print right before it: the innermost statement
/// enclosing every use, in order of first use.
using ImplicitDefMap = std::unordered_map<const StmtNode*, std::vector<ImplicitDef>>;
/// Finds the buffers and variables of `func` that are used but never defined.
ImplicitDefMap placeImplicitDefs(const PrimFuncNode& func);

class Printer {
 public:
  /// Prints `func` as `def <name>(...)` at indentation `indent` (in units of 4 spaces).
  void printFunction(const PrimFuncNode& func, int indent);
  /// Prints a statement at the current indentation (no implicit definitions are computed).
  void printLooseStmt(const Stmt& s) { printStmt(s); }

  std::string expr(const PrimExpr& e) { return exprPrec(e, 0); }
  std::string take() { return std::move(out_); }

 private:
  // --- names (printer.cc) ---
  /// Gives `node` a name unique among the names in scope (`x`, `x_1`, ...) and returns it.
  std::string define(const void* node, const std::string& hint);
  /// The name of a defined node; the node's own hint when it was never defined.
  std::string nameOf(const VarNode* v) const;
  std::string nameOf(const BufferNode* b) const;
  void pushScope() { scopes_.emplace_back(); }
  void popScope();

  // --- statements (printer.cc) ---
  void line(const std::string& text);
  void printStmt(const Stmt& s);
  void printBody(const Stmt& s);  ///< one level deeper, in its own scope
  void printImplicitDefs(const StmtNode* s);
  void printFor(const ForNode* op);
  void printBlockRealize(const BlockRealizeNode* op);
  void printBlockHeader(const BlockRealizeNode* realize);
  void printIterVars(const BlockRealizeNode* realize);
  void printAllocate(const AllocateNode* op);
  void printBufferDecl(const BufferNode* b, const std::string& head, bool withDtype);

  // --- expressions (printer_expr.cc) ---
  std::string exprPrec(const PrimExpr& e, int parentPrec);
  std::string binaryExpr(const BinaryNode* op, int parentPrec);
  std::string callExpr(const CallNode* op);
  std::string literal(const PrimExpr& e);
  std::string indices(const std::vector<PrimExpr>& idx);
  std::string region(const BufferRegion& r);
  std::string shapeTuple(const std::vector<PrimExpr>& shape);
  std::string exprList(const std::vector<PrimExpr>& es);
  std::string bufferDeclArgs(const BufferNode* b, bool withDtype);

  std::string out_;
  int indent_ = 0;
  std::unordered_map<const void*, std::string> names_;
  /// Names given ahead of a definition: the data variable of a buffer view declared before the
  /// `T.Let` (or allocation) that binds it. The definition takes the reserved name.
  std::unordered_set<const void*> reserved_;
  std::unordered_map<std::string, int> inUse_;
  std::vector<std::vector<const void*>> scopes_;
  ImplicitDefMap implicitDefs_;
  /// Whether the statement being printed ends its sequence. Only then may a let, an assert or
  /// a declaration print in the concise form (`x: T.int32 = v` followed by its body at the same
  /// indentation); elsewhere it scopes its body explicitly (`with T.LetStmt(v) as x:`), or the
  /// statements after it would read as part of its body.
  bool concise_ = true;
  /// Prints `s` as the last statement of a new sequence (a loop, block or branch body).
  void printLast(const Stmt& s);
  /// The explicitly scoped form `with HEAD as name:` (no ` as` when name is empty) of `body`.
  void printScoped(const std::string& head, const void* node, const std::string& hint,
                   const Stmt& body);
  /// Loop variables of the enclosing loops (for the `T.axis.remap` shorthand).
  std::unordered_map<const VarNode*, const ForNode*> enclosingLoops_;
};

}  // namespace tessera::tir::script
