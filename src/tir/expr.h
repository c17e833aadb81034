// TensorIR scalar expressions (PrimExpr): immediates, variables, arithmetic, comparisons, buffer
// loads, vector ramps/broadcasts, intrinsic calls, and the TE-only Reduce. Nodes are immutable and
// shared by reference; a variable's identity is its node, not its name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/data_type.h"

namespace tessera::tir {

enum class ExprKind : uint8_t {
  kIntImm,
  kFloatImm,
  kStringImm,
  kVar,
  kCast,
  kBinary,
  kNot,
  kSelect,
  kBufferLoad,
  kRamp,
  kBroadcast,
  kLet,
  kCall,
  kReduce,
};

/// Binary operators. Division and modulo come in two flavours: truncating (`Div`, `Mod`, C
/// semantics; float division for floats) and flooring (`FloorDiv`, `FloorMod`, Python's `//`/`%`,
/// used for all index arithmetic).
enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kFloorDiv,
  kFloorMod,
  kMin,
  kMax,
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  kAnd,
  kOr,
};
const char* binaryOpName(BinaryOp op);  ///< "add", "floordiv", "lt", ...
bool isComparison(BinaryOp op);

class PrimExprNode;
using PrimExpr = std::shared_ptr<const PrimExprNode>;

class PrimExprNode {
 public:
  PrimExprNode(ExprKind kind, DataType dtype) : kind(kind), dtype(dtype) {}
  virtual ~PrimExprNode() = default;
  PrimExprNode(const PrimExprNode&) = default;
  PrimExprNode& operator=(const PrimExprNode&) = delete;

  const ExprKind kind;
  DataType dtype;

  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

class IntImmNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kIntImm;
  IntImmNode(DataType dtype, int64_t value) : PrimExprNode(kKind, dtype), value(value) {}
  int64_t value;  ///< also used for bool (0/1)
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.value, "integer immediate");
  }
};

class FloatImmNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kFloatImm;
  FloatImmNode(DataType dtype, double value) : PrimExprNode(kKind, dtype), value(value) {}
  double value;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.value, "float immediate");
  }
};

class StringImmNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kStringImm;
  explicit StringImmNode(std::string value)
      : PrimExprNode(kKind, DataType::handle()), value(std::move(value)) {}
  std::string value;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.value, "string");
  }
};

/// A scalar variable (loop variable, block iter var, symbolic shape, let-bound value) or a handle
/// (a buffer's data pointer). `sizeVar` marks variables known to be non-negative (shape variables).
class VarNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kVar;
  VarNode(std::string name, DataType dtype, bool sizeVar = false)
      : PrimExprNode(kKind, dtype), name(std::move(name)), sizeVar(sizeVar) {}
  std::string name;
  bool sizeVar;
  /// A variable is its identity: readers handle it before its fields (name and dtype are not
  /// structure, and variables are numbered where they are bound).
  template <typename Self, typename V>
  static void fields(Self&, V&) {}
};
using Var = std::shared_ptr<const VarNode>;

class CastNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kCast;
  CastNode(DataType dtype, PrimExpr value) : PrimExprNode(kKind, dtype), value(std::move(value)) {}
  PrimExpr value;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.value);
  }
};

class BinaryNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kBinary;
  BinaryNode(BinaryOp op, DataType dtype, PrimExpr a, PrimExpr b)
      : PrimExprNode(kKind, dtype), op(op), a(std::move(a)), b(std::move(b)) {}
  BinaryOp op;
  PrimExpr a;
  PrimExpr b;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.op, "binary operator");
    v.expr(n.a);
    v.expr(n.b);
  }
};

class NotNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kNot;
  explicit NotNode(PrimExpr a) : PrimExprNode(kKind, {}), a(std::move(a)) {
    dtype = derivedDType(*this);
  }
  PrimExpr a;
  static DataType derivedDType(const NotNode& n) { return n.a->dtype; }
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.a);
  }
};

/// Both branches are evaluated (use the `tir.if_then_else` call for a lazy choice).
class SelectNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kSelect;
  SelectNode(PrimExpr cond, PrimExpr t, PrimExpr f)
      : PrimExprNode(kKind, {}), cond(std::move(cond)), t(std::move(t)), f(std::move(f)) {
    dtype = derivedDType(*this);
  }
  PrimExpr cond;
  PrimExpr t;
  PrimExpr f;
  static DataType derivedDType(const SelectNode& n) { return n.t->dtype; }
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.cond);
    v.expr(n.t);
    v.expr(n.f);
  }
};

class BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

/// A read of `buffer` at `indices` (one index per dimension; after flattening, one index). A Ramp
/// index makes it a vector load.
class BufferLoadNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kBufferLoad;
  BufferLoadNode(DataType dtype, Buffer buffer, std::vector<PrimExpr> indices)
      : PrimExprNode(kKind, dtype), buffer(std::move(buffer)), indices(std::move(indices)) {}
  Buffer buffer;
  std::vector<PrimExpr> indices;
  /// The buffer's element type, widened by the widest index (a Ramp index loads a vector).
  static DataType derivedDType(const BufferLoadNode& n);
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.bufferUse(n.buffer);
    v.exprs(n.indices, "index count");
  }
};

/// The vector (base, base + stride, ..., base + (lanes-1) * stride).
class RampNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kRamp;
  RampNode(PrimExpr base, PrimExpr stride, int lanes)
      : PrimExprNode(kKind, {}), base(std::move(base)), stride(std::move(stride)), lanes(lanes) {
    dtype = derivedDType(*this);
  }
  PrimExpr base;
  PrimExpr stride;
  int lanes;
  static DataType derivedDType(const RampNode& n) { return n.base->dtype.withLanes(n.lanes); }
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.base);
    v.expr(n.stride);
    v.value(n.lanes, "lanes");
  }
};

class BroadcastNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kBroadcast;
  BroadcastNode(PrimExpr value, int lanes)
      : PrimExprNode(kKind, {}), value(std::move(value)), lanes(lanes) {
    dtype = derivedDType(*this);
  }
  PrimExpr value;
  int lanes;
  static DataType derivedDType(const BroadcastNode& n) { return n.value->dtype.withLanes(n.lanes); }
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.value);
    v.value(n.lanes, "lanes");
  }
};

class LetNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kLet;
  LetNode(Var var, PrimExpr value, PrimExpr body)
      : PrimExprNode(kKind, {}),
        var(std::move(var)),
        value(std::move(value)),
        body(std::move(body)) {
    dtype = derivedDType(*this);
  }
  Var var;
  PrimExpr value;
  PrimExpr body;
  static DataType derivedDType(const LetNode& n) { return n.body->dtype; }
  /// The value is outside the variable's scope, so it comes before the definition.
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.expr(n.value);
    v.varDef(n.var);
    v.expr(n.body);
  }
};

/// An intrinsic or external call. `op` names it: "tir.exp", "tir.tanh", "tir.erf", "tir.sigmoid",
/// "tir.sqrt", "tir.log", "tir.fabs", "tir.pow", "tir.floor", "tir.ceil", "tir.round",
/// "tir.if_then_else" (lazy select), "tir.likely", "tir.shift_left", "tir.shift_right",
/// "tir.bitwise_and/or/xor/not", "tir.call_extern" (first arg: StringImm function name),
/// "tir.isnan", "tir.fma", "tir.clz", "tir.popcount", "tir.nearbyint", "tir.trunc", ...
/// "tir.pow" of integers is exact and wraps; a negative signed exponent gives 0 except for bases
/// 1 and -1.
class CallNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kCall;
  CallNode(DataType dtype, std::string op, std::vector<PrimExpr> args)
      : PrimExprNode(kKind, dtype), op(std::move(op)), args(std::move(args)) {}
  std::string op;
  std::vector<PrimExpr> args;
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.value(n.op, "call target");
    v.exprs(n.args, "argument count");
  }
};

/// [min, min + extent).
struct Range {
  PrimExpr min;
  PrimExpr extent;
};

/// Kinds of iteration variables (TVM's IterVarType numbering).
enum class IterVarType : uint8_t {
  kDataPar = 0,
  kThreadIndex = 1,
  kCommReduce = 2,
  kOrdered = 3,
  kOpaque = 4,
  kUnrolled = 5,
  kVectorized = 6,
  kParallelized = 7,
  kTensorized = 8,
};

/// A variable with a domain and a kind: TE compute axes, reduce axes, TensorIR block iter vars.
struct IterVar {
  Range dom;
  Var var;
  IterVarType type = IterVarType::kDataPar;
  std::string threadTag;  ///< "threadIdx.x" for thread indices
};

/// A commutative reducer: result(lhs, rhs) with identity elements (one entry per tuple field).
struct CommReducer {
  std::vector<Var> lhs;
  std::vector<Var> rhs;
  std::vector<PrimExpr> result;
  std::vector<PrimExpr> identity;
  std::string name;  ///< "sum", "max", "min", or the user's name
};
using CommReducerRef = std::shared_ptr<const CommReducer>;

/// A reduction (TE only; create_prim_func turns it into a reduction block). Value `valueIndex` of
/// fold(combiner, init or identity, source over axis where condition).
class ReduceNode : public PrimExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kReduce;
  ReduceNode(DataType dtype, CommReducerRef combiner, std::vector<PrimExpr> source,
             std::vector<IterVar> axis, PrimExpr condition, int valueIndex,
             std::vector<PrimExpr> init)
      : PrimExprNode(kKind, dtype),
        combiner(std::move(combiner)),
        source(std::move(source)),
        axis(std::move(axis)),
        condition(std::move(condition)),
        valueIndex(valueIndex),
        init(std::move(init)) {}
  CommReducerRef combiner;
  std::vector<PrimExpr> source;
  std::vector<IterVar> axis;
  PrimExpr condition;  ///< bool; `true` when there is none
  int valueIndex;
  std::vector<PrimExpr> init;  ///< empty: start from the identity
  template <typename Self, typename V>
  static void fields(Self& n, V& v) {
    v.reducer(n.combiner);
    v.iterVars(n.axis, "reduce axis count");
    v.exprs(n.source, "reduce sources");
    v.expr(n.condition);
    v.value(n.valueIndex, "reduce value index");
    v.exprs(n.init, "reduce init values");
  }
};

// --- construction --------------------------------------------------------------------------------
// These fold operations on two integer (or two float) immediates and otherwise build the node;
// full simplification is arith::Analyzer's job.

PrimExpr intImm(int64_t value, DataType dtype = DataType::int32());
PrimExpr floatImm(double value, DataType dtype = DataType::float32());
PrimExpr boolImm(bool value);
PrimExpr stringImm(std::string value);
/// The constant `value` in `dtype` (an IntImm or FloatImm; a Broadcast for vector types).
PrimExpr makeConst(DataType dtype, double value);
Var makeVar(std::string name, DataType dtype = DataType::int32());
Var makeSizeVar(std::string name, DataType dtype = DataType::int32());
PrimExpr cast(DataType dtype, PrimExpr value);  ///< no node when the dtype already matches
PrimExpr binary(BinaryOp op, PrimExpr a,
                PrimExpr b);  ///< promotes int immediates to the other side
PrimExpr add(PrimExpr a, PrimExpr b);
PrimExpr sub(PrimExpr a, PrimExpr b);
PrimExpr mul(PrimExpr a, PrimExpr b);
PrimExpr truncdiv(PrimExpr a, PrimExpr b);  ///< float division for floats
PrimExpr truncmod(PrimExpr a, PrimExpr b);
PrimExpr floordiv(PrimExpr a, PrimExpr b);
PrimExpr floormod(PrimExpr a, PrimExpr b);
PrimExpr min(PrimExpr a, PrimExpr b);
PrimExpr max(PrimExpr a, PrimExpr b);
PrimExpr eq(PrimExpr a, PrimExpr b);
PrimExpr ne(PrimExpr a, PrimExpr b);
PrimExpr lt(PrimExpr a, PrimExpr b);
PrimExpr le(PrimExpr a, PrimExpr b);
PrimExpr gt(PrimExpr a, PrimExpr b);
PrimExpr ge(PrimExpr a, PrimExpr b);
PrimExpr logicalAnd(PrimExpr a, PrimExpr b);
PrimExpr logicalOr(PrimExpr a, PrimExpr b);
PrimExpr logicalNot(PrimExpr a);
PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f);
PrimExpr ifThenElse(PrimExpr cond, PrimExpr t, PrimExpr f);  ///< lazy: "tir.if_then_else"
PrimExpr call(DataType dtype, std::string op, std::vector<PrimExpr> args);
PrimExpr bufferLoad(Buffer buffer, std::vector<PrimExpr> indices);
PrimExpr ramp(PrimExpr base, PrimExpr stride, int lanes);
PrimExpr broadcast(PrimExpr value, int lanes);
PrimExpr let(Var var, PrimExpr value, PrimExpr body);

/// Lowest/highest finite value of a scalar type (reducer identities for max/min).
PrimExpr minValue(DataType dtype);
PrimExpr maxValue(DataType dtype);

inline PrimExpr operator+(PrimExpr a, PrimExpr b) {
  return add(std::move(a), std::move(b));
}
inline PrimExpr operator-(PrimExpr a, PrimExpr b) {
  return sub(std::move(a), std::move(b));
}
inline PrimExpr operator*(PrimExpr a, PrimExpr b) {
  return mul(std::move(a), std::move(b));
}
inline PrimExpr operator+(PrimExpr a, int64_t b) {
  return add(a, intImm(b, a->dtype));
}
inline PrimExpr operator-(PrimExpr a, int64_t b) {
  return sub(a, intImm(b, a->dtype));
}
inline PrimExpr operator*(PrimExpr a, int64_t b) {
  return mul(a, intImm(b, a->dtype));
}
inline PrimExpr operator+(int64_t a, PrimExpr b) {
  return add(intImm(a, b->dtype), b);
}
inline PrimExpr operator*(int64_t a, PrimExpr b) {
  return mul(intImm(a, b->dtype), b);
}
// Var converts to PrimExpr through shared_ptr's converting constructor; these avoid ambiguity.
inline PrimExpr operator+(const Var& a, int64_t b) {
  return PrimExpr(a) + b;
}
inline PrimExpr operator*(const Var& a, int64_t b) {
  return PrimExpr(a) * b;
}
// With two Var arguments an unqualified min/max would otherwise pick std::min<shared_ptr> (found
// by argument-dependent lookup) and compare pointers; these exact-match overloads win instead.
inline PrimExpr min(const Var& a, const Var& b) {
  return min(PrimExpr(a), PrimExpr(b));
}
inline PrimExpr max(const Var& a, const Var& b) {
  return max(PrimExpr(a), PrimExpr(b));
}

// --- queries -------------------------------------------------------------------------------------

/// The integer value of an IntImm (also through a Cast of one); nullptr otherwise.
const int64_t* asConstInt(const PrimExpr& e);
bool isConstInt(const PrimExpr& e, int64_t value);
bool isOne(const PrimExpr& e);
bool isZero(const PrimExpr& e);
/// Whether `a` and `b` are the same tree over the same variables and buffers: nodes compared field
/// by field, variables (free or bound) and buffers by identity, reductions only by identity (TVM's
/// ExprDeepEqual). Cheap enough for simplifiers. For equality up to the renaming of bound variables
/// (and buffers compared by their fields), use structuralEqual (`tir/structural_equal.h`).
bool deepEqual(const PrimExpr& a, const PrimExpr& b);
/// Whether `e` mentions variable `v`.
bool usesVar(const PrimExpr& e, const VarNode* v);

}  // namespace tessera::tir
