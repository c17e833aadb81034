// The canonical token stream of a TensorIR program, shared by structural equality and hashing
// (internal to tir/): variables and buffers appear as numbers in order of first occurrence, so
// alpha-equivalent programs have equal streams. The fields come from each node's field list.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/attr_value.h"
#include "tir/function.h"

namespace tessera::tir::structural {

/// What a token holds; part of the stream (compared and hashed).
enum class Tag : uint8_t {
  kExprKind,        ///< value: ExprKind
  kStmtKind,        ///< value: StmtKind
  kFunc,            ///< a PrimFunc
  kDType,           ///< value: code | bits << 8 | lanes << 16
  kInt,             ///< value: an integer field
  kCount,           ///< value: the length of the list that follows
  kFloat,           ///< value: IEEE bit pattern
  kString,          ///< text
  kBinaryOp,        ///< value: BinaryOp
  kForKind,         ///< value: ForKind
  kAbsent,          ///< an optional field that is null
  kVarDef,          ///< value: the variable's number
  kVarUse,          ///< value: the number given at its definition or first free use
  kFreeVar,         ///< value: the variable's number (first use of a variable defined nowhere)
  kBufferDef,       ///< value: the buffer's number; its fields follow
  kBufferFirstUse,  ///< value: the number of a buffer used before any declaration; fields follow
  kBufferUse,       ///< value: the number given at its declaration or first use
  kAttr,            ///< text: key; attr: value
};

/// One element of the stream.
struct Token {
  Tag tag;
  uint64_t value = 0;
  std::string_view text;  ///< points into the IR, which outlives the stream
  const AttrValue* attr = nullptr;
  const char* what = "";  ///< for explanations only: never compared or hashed
};

/// Two tokens are the same when tag, value, text and attribute value agree (`what` is ignored).
bool sameToken(const Token& a, const Token& b);

/// A program as tokens, plus the variables its kFreeVar tokens stand for, in order (checked by
/// identity unless mapFreeVars).
struct Stream {
  std::vector<Token> tokens;
  std::vector<const VarNode*> freeVars;
};

/// The stream of an expression or a statement (variables without a definition inside are free),
/// of a buffer as a declaration, and of a function.
Stream streamOf(const PrimExpr& e);
Stream streamOf(const Stmt& s);
Stream streamOf(const Buffer& b);
Stream streamOf(const PrimFunc& f);

/// The DataType packed into a kDType token's value, and back.
uint64_t packDType(DataType t);
DataType unpackDType(uint64_t value);

}  // namespace tessera::tir::structural
