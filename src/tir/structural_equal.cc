// Structural equality and hashing of TensorIR: both read the canonical token stream
// (structural_stream.h), so equal programs cannot hash differently.
#include "tir/structural_equal.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <sstream>

#include "support/hash.h"
#include "tir/structural_stream.h"

namespace tessera::tir {

namespace {

using structural::Stream;
using structural::Tag;
using structural::Token;

const char* exprKindName(uint64_t kind) {
  static constexpr const char* kNames[] = {
      "IntImm", "FloatImm",   "StringImm", "Var",       "Cast", "Binary", "Not",
      "Select", "BufferLoad", "Ramp",      "Broadcast", "Let",  "Call",   "Reduce"};
  return kind < std::size(kNames) ? kNames[kind] : "?";
}

const char* stmtKindName(uint64_t kind) {
  static constexpr const char* kNames[] = {"BufferStore", "Evaluate",     "LetStmt",  "AttrStmt",
                                           "AssertStmt",  "IfThenElse",   "For",      "SeqStmt",
                                           "Block",       "BlockRealize", "Allocate", "DeclBuffer"};
  return kind < std::size(kNames) ? kNames[kind] : "?";
}

std::string describe(const Token& t) {
  std::ostringstream os;
  const auto number = static_cast<int64_t>(t.value);
  switch (t.tag) {
    case Tag::kExprKind:
      os << exprKindName(t.value);
      break;
    case Tag::kStmtKind:
      os << stmtKindName(t.value);
      break;
    case Tag::kFunc:
      os << "a function";
      break;
    case Tag::kDType: {
      DataType d = structural::unpackDType(t.value);
      os << (d.isVoid() ? "void" : d.isHandle() ? "handle" : d.name());
      break;
    }
    case Tag::kInt:
    case Tag::kCount:
      os << number;
      break;
    case Tag::kFloat:
      os << std::bit_cast<double>(t.value);
      break;
    case Tag::kString:
      os << '"' << t.text << '"';
      break;
    case Tag::kBinaryOp:
      os << binaryOpName(static_cast<BinaryOp>(t.value));
      break;
    case Tag::kForKind:
      os << forKindName(static_cast<ForKind>(t.value));
      break;
    case Tag::kAbsent:
      os << "nothing";
      break;
    case Tag::kVarDef:
      os << "definition of variable #" << number;
      break;
    case Tag::kVarUse:
      os << "variable #" << number;
      break;
    case Tag::kFreeVar:
      os << "free variable #" << number;
      break;
    case Tag::kBufferDef:
      os << "declaration of buffer #" << number;
      break;
    case Tag::kBufferUse:
      os << "buffer #" << number;
      break;
    case Tag::kBufferFirstUse:
      os << "undeclared buffer #" << number;
      break;
    case Tag::kAttr:
      os << t.text << '=' << t.attr->str();
      break;
  }
  return os.str();
}

// The statement kind nearest before token `i`, to say where a difference lies.
std::string enclosingStmt(const std::vector<Token>& tokens, size_t i) {
  for (size_t j = i + 1; j-- > 0;)
    if (tokens[j].tag == Tag::kStmtKind)
      return std::string(" (in ") + stmtKindName(tokens[j].value) + ")";
  return {};
}

// Compares two streams; returns the first difference, or "" when they are equal.
std::string compare(const Stream& a, const Stream& b, bool mapFreeVars) {
  const std::vector<Token>& x = a.tokens;
  const std::vector<Token>& y = b.tokens;
  const size_t n = std::min(x.size(), y.size());
  for (size_t i = 0; i < n; ++i) {
    if (structural::sameToken(x[i], y[i])) continue;
    return std::string(x[i].what) + " differs: " + describe(x[i]) + " vs " + describe(y[i]) +
           enclosingStmt(x, i);
  }
  if (x.size() != y.size()) return "one program is a prefix of the other";
  if (mapFreeVars) return {};
  // Equal streams number free variables alike, so the lists line up one to one.
  for (size_t i = 0; i < a.freeVars.size(); ++i) {
    if (a.freeVars[i] == b.freeVars[i]) continue;
    return "free variables '" + a.freeVars[i]->name + "' and '" + b.freeVars[i]->name +
           "' are different objects";
  }
  return {};
}

uint64_t hashStream(const std::vector<Token>& tokens) {
  uint64_t h = hashCombine(0x7469722d73686173ull, static_cast<uint64_t>(kStructuralHashVersion));
  for (const Token& t : tokens) {
    h = hashCombine(h, static_cast<uint64_t>(t.tag));
    h = hashCombine(h, t.value);
    if (!t.text.empty()) h = hashCombine(h, hashString(t.text));
    if (t.attr) h = hashCombine(h, t.attr->hash());
  }
  return h;
}

template <typename T>
std::string difference(const T& a, const T& b, bool mapFreeVars) {
  if (a == b) return {};
  return compare(structural::streamOf(a), structural::streamOf(b), mapFreeVars);
}

}  // namespace

bool structuralEqual(const PrimExpr& a, const PrimExpr& b, bool mapFreeVars) {
  return difference(a, b, mapFreeVars).empty();
}
bool structuralEqual(const Stmt& a, const Stmt& b, bool mapFreeVars) {
  return difference(a, b, mapFreeVars).empty();
}
bool structuralEqual(const PrimFunc& a, const PrimFunc& b, bool mapFreeVars) {
  return difference(a, b, mapFreeVars).empty();
}
bool structuralEqual(const Buffer& a, const Buffer& b) {
  return difference(a, b, false).empty();
}

uint64_t structuralHash(const PrimExpr& e) {
  return hashStream(structural::streamOf(e).tokens);
}
uint64_t structuralHash(const Stmt& s) {
  return hashStream(structural::streamOf(s).tokens);
}
uint64_t structuralHash(const PrimFunc& f) {
  return hashStream(structural::streamOf(f).tokens);
}
uint64_t structuralHash(const Buffer& b) {
  return hashStream(structural::streamOf(b).tokens);
}

std::string explainDifference(const Stmt& a, const Stmt& b, bool mapFreeVars) {
  return difference(a, b, mapFreeVars);
}
std::string explainDifference(const PrimFunc& a, const PrimFunc& b, bool mapFreeVars) {
  return difference(a, b, mapFreeVars);
}

}  // namespace tessera::tir
