// Relax-style expressions, bindings, functions and the module that holds them next to PrimFuncs
// (spec tir_relax.md §5.2). Nodes are immutable and shared; a variable's identity is its node.
// Every expression carries its StructInfo, deduced when the node is built (ops.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/attr_value.h"
#include "relax/struct_info.h"
#include "runtime/ndarray.h"
#include "tir/function.h"

namespace tessera::relax {

enum class ExprKind : uint8_t {
  kVar,
  kConstant,
  kCall,
  kTuple,
  kTupleGetItem,
  kShapeExpr,
  kGlobalVar,
  kExternFunc,
};

class ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

class ExprNode {
 public:
  ExprNode(ExprKind kind, StructInfo sinfo) : kind(kind), sinfo(std::move(sinfo)) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  StructInfo sinfo;

  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

/// A variable; `dataflow` marks a DataflowVar (visible only inside its dataflow block).
class VarNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kVar;
  VarNode(std::string name, StructInfo sinfo, bool dataflow)
      : ExprNode(kKind, std::move(sinfo)), name(std::move(name)), dataflow(dataflow) {}
  std::string name;
  bool dataflow;
};
using Var = std::shared_ptr<const VarNode>;

class ConstantNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kConstant;
  ConstantNode(NDArray data, StructInfo sinfo)
      : ExprNode(kKind, std::move(sinfo)), data(std::move(data)) {}
  NDArray data;
};

/// An operator call. `op` is the operator's name ("relax.call_tir", "relax.add", ...); `sinfoArgs`
/// holds call_tir/call_dps_packed's out_sinfo; `axes` is permute_dims' attribute.
class CallNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kCall;
  CallNode(std::string op, std::vector<Expr> args, std::vector<StructInfo> sinfoArgs,
           StructInfo sinfo)
      : ExprNode(kKind, std::move(sinfo)),
        op(std::move(op)),
        args(std::move(args)),
        sinfoArgs(std::move(sinfoArgs)) {}
  std::string op;
  std::vector<Expr> args;
  std::vector<StructInfo> sinfoArgs;
  std::vector<int64_t> axes;
};

class TupleNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kTuple;
  TupleNode(std::vector<Expr> fields, StructInfo sinfo)
      : ExprNode(kKind, std::move(sinfo)), fields(std::move(fields)) {}
  std::vector<Expr> fields;
};

class TupleGetItemNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kTupleGetItem;
  TupleGetItemNode(Expr tuple, int index, StructInfo sinfo)
      : ExprNode(kKind, std::move(sinfo)), tuple(std::move(tuple)), index(index) {}
  Expr tuple;
  int index;
};

class ShapeExprNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kShapeExpr;
  explicit ShapeExprNode(std::vector<tir::PrimExpr> values)
      : ExprNode(kKind, shapeSInfo(values)), values(std::move(values)) {}
  std::vector<tir::PrimExpr> values;
};

/// A reference to a function of the module (printed `cls.name`).
class GlobalVarNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kGlobalVar;
  explicit GlobalVarNode(std::string name)
      : ExprNode(kKind, objectSInfo()), name(std::move(name)) {}
  std::string name;
};

/// A function looked up by name when the program runs (a registered packed function or a
/// compiled PrimFunc exported under that name).
class ExternFuncNode : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kExternFunc;
  explicit ExternFuncNode(std::string name)
      : ExprNode(kKind, objectSInfo()), name(std::move(name)) {}
  std::string name;
};

Var makeVar(std::string name, StructInfo sinfo);
Var makeDataflowVar(std::string name, StructInfo sinfo);
/// A constant tensor; its struct info is its concrete shape and dtype.
Expr makeConstant(NDArray data);
Expr makeTuple(std::vector<Expr> fields);
Expr makeTupleGetItem(Expr tuple, int index);
Expr makeShapeExpr(std::vector<tir::PrimExpr> values);
Expr makeGlobalVar(std::string name);
Expr makeExternFunc(std::string name);
/// Whether `e` is a leaf of the normal form (not a Call, Tuple or TupleGetItem).
bool isLeaf(const Expr& e);

struct Binding {
  Var var;
  Expr value;
};

struct BindingBlock {
  bool dataflow = false;
  std::vector<Binding> bindings;
};

/// A Relax function: parameters, a body of binding blocks ending in `body`, the return struct info
/// and attributes (`global_symbol`; absent means private).
class FunctionNode {
 public:
  std::vector<Var> params;
  std::vector<BindingBlock> blocks;
  Expr body;
  StructInfo ret;
  DictAttrs attrs;
};
using Function = std::shared_ptr<const FunctionNode>;

/// A module: named Relax functions and PrimFuncs in insertion order.
class IRModule {
 public:
  using Func = std::variant<Function, tir::PrimFunc>;
  struct Entry {
    std::string name;
    Func func;
  };

  /// Adds a function; DiagnosticError (code "relax_module") when the name is taken.
  void add(const std::string& name, Func func);
  /// Replaces the function named `name` in place (TVM's update_func); DiagnosticError when absent.
  void update(const std::string& name, Func func);
  bool contains(const std::string& name) const;
  const Func* find(const std::string& name) const;
  /// The Relax function named `name`; DiagnosticError naming it otherwise.
  Function relaxFunction(const std::string& name) const;
  /// The PrimFunc named `name`; DiagnosticError naming it otherwise.
  tir::PrimFunc primFunc(const std::string& name) const;
  /// `name` when free, else `name1`, `name2`, ... (BlockBuilder's naming).
  std::string uniqueName(const std::string& name) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

/// A copy of `func` with attribute `key` set (TVM's with_attr); a PrimFunc's global_symbol also
/// renames it.
tir::PrimFunc withAttr(const tir::PrimFunc& func, const std::string& key, AttrValue value);

}  // namespace tessera::relax
