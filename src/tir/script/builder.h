// Gives TVMScript syntax trees their TensorIR meaning: the PrimFunc builder behind
// tir::parseScript, also used by the Relax parser for the symbolic shape expressions of its
// functions. Names resolve through a stack of scopes (a loop, a block, a let is one scope); every
// error is a DiagnosticError (code "tvmscript") at the span of the offending node.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tir/function.h"
#include "tir/script/py_ast.h"

namespace tessera::tir::script {

class Builder {
 public:
  Builder();

  // --- names ----------------------------------------------------------------------------------
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  void defineVar(const std::string& name, Var var) { scopes_.back()[name] = Symbol{var, nullptr}; }
  void defineBuffer(const std::string& name, Buffer buffer) {
    scopes_.back()[name] = Symbol{nullptr, std::move(buffer)};
  }
  /// A new variable `name` of `dtype`, or the one a buffer view named as its data before this
  /// definition (`A_1 = T.Buffer(..., data=p)` ahead of the T.Let or allocation binding `p`).
  Var bindVar(const std::string& name, DataType dtype);
  /// Fails at the first buffer view whose data variable was never bound.
  void checkNoPendingData() const;
  /// The variable named by `e` (a name, or `A.data`); a diagnostic when it is something else.
  Var lookupVar(const PyExpr& e) const;
  /// The buffer named by `e`; a diagnostic when it is something else.
  Buffer lookupBuffer(const PyExpr& e) const;

  /// `n = T.int64()` (or `m, n = T.int64(), T.int32()`): defines the variables and returns
  /// true; false when `stmt` is not such a declaration.
  bool declareVars(const PyStmt& stmt);

  // --- expressions (build_expr.cc) ------------------------------------------------------------
  PrimExpr expr(const PyExpr& e);
  /// `a:b` in an index or region: the range [a, b).
  Range sliceRange(const PyExpr& slice);
  /// The dtype a `T.<dtype>` callee or annotation names, or nullopt.
  static std::optional<DataType> dtypeOfCallee(const PyExpr& callee);
  /// The string literal `e`, or a diagnostic saying `what` it should be.
  static std::string stringArg(const PyExpr& e, const char* what);
  /// A shape: a tuple or list of expressions (or one expression).
  std::vector<PrimExpr> shape(const PyExpr& e);
  /// An annotation dictionary `{"key": value}` as attributes.
  DictAttrs dict(const PyExpr& e);
  AttrValue attrValue(const PyExpr& e);

  // --- statements (build_stmt.cc, build_block.cc) ---------------------------------------------
  /// The statements of a suite as one statement (a sequence; lets, asserts and declarations
  /// scope the statements after them). An empty suite is `T.evaluate(0)`.
  Stmt body(const std::vector<PyStmtPtr>& stmts, size_t from = 0);
  /// `name = T.Buffer(...)`, `T.alloc_buffer(...)`, `T.match_buffer(handle or region, ...)` or
  /// `T.decl_buffer(...)`: a buffer named `name` from the call's shape, dtype and keywords.
  /// `firstArg` skips the leading argument of match_buffer. With `definesVars` (match_buffer),
  /// an undefined name standing for a whole dimension, stride or elem_offset defines an int32
  /// variable, as TVM's match_buffer does (the printer declares no `out_offset = T.int32()`).
  Buffer bufferFromCall(const std::string& name, const PyExpr& call, size_t firstArg,
                        bool definesVars = false);

  // --- functions (build_func.cc) --------------------------------------------------------------
  PrimFunc primFunc(const PyStmt& def);

  /// Fails with a located diagnostic.
  [[noreturn]] static void fail(const Span& span, const std::string& message);

 private:
  struct Symbol {
    Var var;
    Buffer buffer;
  };
  const Symbol* find(const std::string& name) const;

  PrimExpr callExpr(const PyExpr& e);
  PrimExpr intrinsicCall(const PyExpr& e, const std::string& name);
  PrimExpr binaryExpr(const PyExpr& e);
  PrimExpr loadExpr(const PyExpr& e);
  std::vector<PrimExpr> indices(const PyExpr& subscript, const Buffer& buffer);

  Stmt statement(const PyStmt& s, std::function<Stmt(Stmt)>* scoping);
  Stmt assignment(const PyStmt& s, std::function<Stmt(Stmt)>* scoping);
  Stmt forLoop(const PyStmt& s);
  Stmt withStmt(const PyStmt& s);
  /// `with T.LetStmt(v) as x:`, `with T.Assert(c, "msg"):`, `with T.decl_buffer(...) as B:`,
  /// `with T.allocate(...) as p:`: the explicitly scoped forms.
  Stmt scopedWith(const PyStmt& s, const std::string& callee);
  /// `name = T.decl_buffer(...)` or `name = T.allocate(...)`: defines `name` and returns the
  /// wrapper that makes the statement around its body.
  std::function<Stmt(Stmt)> declaration(const std::string& name, const PyExpr& value);
  Stmt block(const PyStmt& s);
  /// `vi = T.axis.spatial(dom, binding)` or `vi, vj = T.axis.remap("SS", [i, j])`: appends the
  /// iter vars and their bindings; false when `s` is not an axis definition.
  bool blockAxes(const PyStmt& s, BlockNode& block, std::vector<PrimExpr>& bindings,
                 std::vector<bool>& remapped);
  /// Marks the loops of runs of explicit axes that the printer would have written as one
  /// `T.axis.remap` had the loop's zero had the domain's type.
  void noteExplicitRuns(const BlockNode& block, const std::vector<PrimExpr>& bindings,
                        const std::vector<bool>& remapped);
  BufferRegion region(const PyExpr& e);
  std::vector<BufferRegion> regions(const PyExpr& call);

  std::vector<std::unordered_map<std::string, Symbol>> scopes_;
  /// Domains of the loop variables in scope, for `T.axis.remap`.
  std::unordered_map<const VarNode*, Range> loopDoms_;
  /// Data variables named by buffer views before their definition, with the place of the view.
  std::unordered_map<std::string, std::pair<Var, Span>> pendingData_;
  /// Loops whose zero is an int32 while their extent is not (see build_block.cc).
  std::unordered_set<const VarNode*> int32ZeroLoops_;
};

/// The binary node `a op b` as written (no folding), after TVM's operand type matching: a
/// literal takes the other operand's type, scalars broadcast to vectors, integer widths widen.
/// Operands of other differing types are a diagnostic at `span`.
PrimExpr makeBinaryNode(BinaryOp op, PrimExpr a, PrimExpr b, const Span& span);

/// `a - b`, written without the subtraction when `a` is `b + c` (the printer's `range(b, b + c)`)
/// or both are constants, so that printing the parsed text gives the same text.
PrimExpr difference(const PrimExpr& end, const PrimExpr& begin);

/// The kind of definition a decorator list marks: "prim_func", "function" (Relax), "ir_module",
/// or "" when none of them. Accepts any module prefix (`T.prim_func`, `tvm.script.ir_module`).
std::string definitionKind(const PyStmt& def);
/// Whether `@...(private=True)` is among the decorators.
bool isPrivate(const PyStmt& def);

}  // namespace tessera::tir::script
