// Internal to the TensorIR evaluator (eval.cc, eval_compile.cc, eval_expr.cc): the compiled form of
// a PrimFunc. Variables and buffers are resolved to slot numbers once, so the interpreter's inner
// loop indexes arrays instead of hashing names or pointers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tir/function.h"

namespace tessera::tir::evalimpl {

/// One lane of a value. Integers (signed, unsigned, bool) are kept in `i`, already wrapped to their
/// width (unsigned values zero-extended, so uint64 uses the full bit pattern); floats in `f`,
/// already rounded to their type.
union Scalar {
  int64_t i;
  double f;
};

enum class Intrinsic : uint8_t {
  kIfThenElse,
  kLikely,
  kExp,
  kExp2,
  kExp10,
  kLog,
  kLog2,
  kLog10,
  kLog1p,
  kTanh,
  kSin,
  kCos,
  kTan,
  kSinh,
  kCosh,
  kAsin,
  kAcos,
  kAtan,
  kAtan2,
  kErf,
  kSigmoid,
  kSqrt,
  kRsqrt,
  kPow,
  kFabs,
  kAbs,
  kFloor,
  kCeil,
  kRound,
  kNearbyint,
  kTrunc,
  kFmod,
  kCopysign,
  kHypot,
  kShiftLeft,
  kShiftRight,
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
  kBitwiseNot,
  kIsnan,
  kIsinf,
  kIsfinite,
  kFma,
  kClz,
  kPopcount,
  kReinterpret,
};

/// Looks up an intrinsic by its op name ("tir.exp"); false when the evaluator has no meaning for
/// it.
bool lookupIntrinsic(const std::string& op, Intrinsic* out);

enum class Op : uint8_t {
  kConst,
  kVar,
  kCast,
  kBinary,
  kNot,
  kSelect,
  kLoad,
  kRamp,
  kBroadcast,
  kLet,
  kCall,
};

/// A compiled expression node; children are indices into Program::exprs.
struct ExprCode {
  Op op;
  DataType dtype;    ///< element type of the result (lanes are handled by evaluating lane by lane)
  DataType argType;  ///< element type of the first operand (binary, cast, call)
  int lanes = 1;
  BinaryOp binop = BinaryOp::kAdd;
  Intrinsic intrinsic = Intrinsic::kExp;
  Scalar imm{0};
  int slot = -1;  ///< variable slot (kVar, kLet) or buffer slot (kLoad)
  std::vector<int> kids;
};

/// Where a buffer's memory lives and how it is laid out, fixed when the buffer is declared.
struct BufferState {
  bool ready = false;
  uint8_t* base = nullptr;   ///< start of the underlying storage
  int64_t storageBytes = 0;  ///< bytes available from `base`
  int64_t elemOffset = 0;    ///< in elements
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  ///< in elements
};

struct BufferInfo {
  Buffer buffer;
  int dataSlot = -1;         ///< slot of the data (handle) variable
  std::vector<int> shape;    ///< expression ids
  std::vector<int> strides;  ///< expression ids (empty: row-major)
  int elemOffset = -1;       ///< expression id or -1
};

/// Storage bound to a handle variable (a parameter's NDArray or an allocation).
struct Storage {
  uint8_t* base = nullptr;
  int64_t bytes = 0;
  std::shared_ptr<std::vector<uint8_t>> owned;  ///< set for memory the evaluator allocated
};

enum class SOp : uint8_t {
  kStore,
  kEvaluate,
  kLet,
  kAssert,
  kIf,
  kFor,
  kSeq,
  kBlock,
  kAllocate,
  kDeclBuffer,
  kNop,
};

struct IterCode {
  int slot;
  int value;  ///< binding expression
  int min;    ///< domain
  int extent;
  bool reduce;
  bool constDomain = false;  ///< min and extent are constants (folded below)
  int64_t lo = 0;
  int64_t hi = 0;
};

struct MatchCode {
  int viewBuffer;
  int sourceBuffer;
  std::vector<int> regionMins;
  // Variables standing for the view's strides / element offset, bound when the view is made.
  std::vector<int> strideSlots;
  int elemOffsetSlot = -1;
};

/// A compiled statement; children are indices into Program::stmts.
struct StmtCode {
  SOp op;
  int buffer = -1;         ///< kStore, kDeclBuffer
  int slot = -1;           ///< kLet, kFor loop var, kAllocate data var
  std::vector<int> exprs;  ///< indices, value, condition, min/extent, extents
  std::vector<int> kids;   ///< bodies
  std::string text;        ///< assert message, block name
  DataType dtype;          ///< kAllocate element type
  // Blocks.
  std::vector<IterCode> iters;
  int predicate = -1;  ///< blocks: the predicate; kStore: a masked store's lane mask
  int init = -1;
  std::vector<int> allocBuffers;
  std::vector<MatchCode> matches;
};

struct Program {
  std::vector<ExprCode> exprs;
  std::vector<StmtCode> stmts;
  std::vector<BufferInfo> buffers;
  std::vector<std::string> slotNames;
  std::vector<DataType> slotTypes;
  int root = -1;
  /// Parameters: (param buffer slot) per tensor parameter, in order.
  std::vector<int> paramBuffers;
};

/// Compiles `func` into slot form (eval_compile.cc).
Program compile(const PrimFuncNode& func);

}  // namespace tessera::tir::evalimpl

namespace tessera::tir::evalimpl {

// --- scalar semantics (eval_arith.cc) ------------------------------------------------------------

/// `v` wrapped to the integer type `t` (two's complement; unsigned zero-extended; bool 0/1).
int64_t wrapInt(int64_t v, DataType t);
/// `v` rounded to the float type `t` (float32 results are rounded at every operation, as compiled
/// code does).
double roundFloat(double v, DataType t);
/// `a op b` on operands of type `t`. Comparisons and and/or give 0/1 in `i`. `what` names the
/// place for the division-by-zero diagnostic.
Scalar binary(BinaryOp op, DataType t, Scalar a, Scalar b, const char* what);
/// C conversion of `v` from `from` to `to` (float->int truncates, ints wrap).
Scalar castScalar(DataType from, DataType to, Scalar v);
/// An eager intrinsic (everything except if_then_else) on arguments of type `argType`.
Scalar intrinsic(Intrinsic fn, DataType resultType, DataType argType, const Scalar* args,
                 size_t nargs);
/// Memory access for one element of type `t`.
Scalar readElement(const uint8_t* p, DataType t);
void writeElement(uint8_t* p, DataType t, Scalar v);

}  // namespace tessera::tir::evalimpl
