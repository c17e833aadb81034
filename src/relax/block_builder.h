// BlockBuilder: builds Relax functions binding by binding (spec tir_relax.md §5.6), the C++ form
// of seed 002's `with bb.function("main"): with bb.dataflow(): lv = bb.emit_te(...)`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "relax/expr.h"
#include "te/tensor.h"

namespace tessera::relax {

/// A TE function as emitTe takes it: placeholders for the Relax arguments in, the output out.
using TeFunction = std::function<te::Tensor(const std::vector<te::Tensor>&)>;

/// Turns `f` into a private PrimFunc added to `module` (named `primFuncName`, or a numbered
/// variant; a structurally identical PrimFunc already there is reused) and returns the call_tir
/// calling it on `args` (not emitted). Placeholders are named after the Relax variables passed
/// (`x`, `lv`), or by position (`A`, `B`, ...) for other expressions; symbolic dimensions become
/// fresh variables of the same name, mapped back to the caller's in out_sinfo.
Expr callTe(IRModule& module, const std::string& primFuncName, const TeFunction& f,
            const std::vector<Expr>& args);
/// Adds `func` under a fresh variant of `nameHint`, reusing an identical PrimFunc; returns its
/// name.
std::string addPrimFunc(IRModule& module, const tir::PrimFunc& func, const std::string& nameHint);

class BlockBuilder {
 public:
  BlockBuilder() = default;
  explicit BlockBuilder(IRModule module) : module_(std::move(module)) {}

  /// Ends a dataflow scope when it goes out of scope (Python's `with bb.dataflow():`).
  class DataflowScope {
   public:
    explicit DataflowScope(BlockBuilder* bb) : bb_(bb) {}
    DataflowScope(const DataflowScope&) = delete;
    DataflowScope& operator=(const DataflowScope&) = delete;
    ~DataflowScope();

   private:
    BlockBuilder* bb_;
  };

  /// Opens a function scope. Parameters go here or to emitFuncOutput, exactly once. Unless
  /// `isPrivate`, the function gets global_symbol = name.
  void function(const std::string& name, std::optional<std::vector<Var>> params = std::nullopt,
                bool isPrivate = false);
  /// Starts a dataflow block that ends with the returned scope.
  [[nodiscard]] DataflowScope dataflow();
  void beginDataflow();
  void endDataflow();

  /// Binds `expr` (normalised: nested calls are bound first) to a new variable: a DataflowVar
  /// `lv`, `lv1`, ... inside a dataflow block, a Var `gv`, ... outside, or a unique `nameHint`.
  Var emit(const Expr& expr, const std::string& nameHint = "");
  /// Binds `expr` to an ordinary Var visible after the dataflow block (only inside one).
  Var emitOutput(const Expr& expr, const std::string& nameHint = "");
  /// emit(callTe(...)).
  Var emitTe(const std::string& primFuncName, const TeFunction& f, const std::vector<Expr>& args);
  /// Finishes the open function with `output` as its result, adds it to the module, and returns
  /// its name.
  std::string emitFuncOutput(const Expr& output,
                             std::optional<std::vector<Var>> params = std::nullopt);

  /// The module built so far; DiagnosticError when a function is still open.
  const IRModule& get() const;
  IRModule& module() { return module_; }

 private:
  struct FunctionFrame {
    std::string name;
    std::optional<std::vector<Var>> params;
    bool isPrivate = false;
    std::vector<BindingBlock> blocks;
  };
  FunctionFrame& frame(const char* what);
  Expr normalize(const Expr& expr);
  std::string freshName(const std::string& hint);
  Var bind(const Expr& expr, const std::string& nameHint, bool dataflowVar);

  IRModule module_;
  std::optional<FunctionFrame> frame_;
  std::map<std::string, int> nameCounts_;
};

}  // namespace tessera::relax
