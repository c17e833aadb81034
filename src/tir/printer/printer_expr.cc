// TVMScript spelling of expressions, literals and attribute values, with Python operator
// precedence so that only the parentheses Python needs are printed.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "tir/printer/script_printer.h"

namespace tessera::tir::script {

namespace {

// Python precedence levels (higher binds tighter).
constexpr int kPrecOr = 1;
constexpr int kPrecAnd = 2;
constexpr int kPrecNot = 3;
constexpr int kPrecCompare = 4;
constexpr int kPrecAdd = 9;
constexpr int kPrecMul = 10;
constexpr int kPrecAtom = 100;

int precedence(BinaryOp op, DataType dtype) {
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return kPrecAdd;
    case BinaryOp::kMul:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      return kPrecMul;
    case BinaryOp::kDiv:
      return dtype.isFloat() ? kPrecMul : kPrecAtom;
    case BinaryOp::kMod:
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return kPrecAtom;
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return kPrecCompare;
    case BinaryOp::kAnd:
      return kPrecAnd;
    case BinaryOp::kOr:
      return kPrecOr;
  }
  return kPrecAtom;
}

const char* infixSymbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return " + ";
    case BinaryOp::kSub:
      return " - ";
    case BinaryOp::kMul:
      return " * ";
    case BinaryOp::kDiv:
      return " / ";
    case BinaryOp::kFloorDiv:
      return " // ";
    case BinaryOp::kFloorMod:
      return " % ";
    case BinaryOp::kEQ:
      return " == ";
    case BinaryOp::kNE:
      return " != ";
    case BinaryOp::kLT:
      return " < ";
    case BinaryOp::kLE:
      return " <= ";
    case BinaryOp::kGT:
      return " > ";
    case BinaryOp::kGE:
      return " >= ";
    case BinaryOp::kAnd:
      return " and ";
    case BinaryOp::kOr:
      return " or ";
    default:
      return nullptr;
  }
}

const char* functionName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kDiv:
      return "T.truncdiv";
    case BinaryOp::kMod:
      return "T.truncmod";
    case BinaryOp::kMin:
      return "T.min";
    case BinaryOp::kMax:
      return "T.max";
    default:
      return nullptr;
  }
}

std::string paren(std::string s, bool wrap) {
  return wrap ? "(" + s + ")" : s;
}

// Intrinsics whose first printed argument is the result dtype.
bool takesDtypeFirst(const std::string& name) {
  return name == "call_extern" || name == "call_pure_extern" || name == "call_llvm_intrin" ||
         name == "call_llvm_pure_intrin" || name == "reinterpret";
}

}  // namespace

std::string pythonFloat(double value) {
  if (std::isnan(value)) return "\"nan\"";
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[64];
  // Shortest round-trip digits in scientific form: "d.ddde+XX".
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t ePos = sci.find('e');
  std::string mantissa = sci.substr(0, ePos);
  int exponent = std::atoi(sci.c_str() + ePos + 1);
  bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  std::string sign = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    std::string intPart, fracPart;
    if (exponent >= 0) {
      if (static_cast<int>(digits.size()) <= exponent + 1) {
        intPart = digits + std::string(exponent + 1 - digits.size(), '0');
      } else {
        intPart = digits.substr(0, exponent + 1);
        fracPart = digits.substr(exponent + 1);
      }
    } else {
      intPart = "0";
      fracPart = std::string(-exponent - 1, '0') + digits;
    }
    if (fracPart.empty()) fracPart = "0";
    return sign + intPart + "." + fracPart;
  }
  std::string m = digits.substr(0, 1);
  if (digits.size() > 1) m += "." + digits.substr(1);
  char expBuf[16];
  std::snprintf(expBuf, sizeof expBuf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return sign + m + expBuf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string attrValueScript(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNone:
      return "None";
    case AttrValue::Kind::kInt:
      if (value.numberType() == DataType::int32() || value.numberType().isVoid())
        return std::to_string(value.asInt());
      return "T." + value.numberType().name() + "(" + std::to_string(value.asInt()) + ")";
    case AttrValue::Kind::kFloat: {
      DataType t = value.numberType().isVoid() ? DataType::float32() : value.numberType();
      return "T." + t.name() + "(" + pythonFloat(value.asFloat()) + ")";
    }
    case AttrValue::Kind::kBool:
      return value.asBool() ? "T.bool(True)" : "T.bool(False)";
    case AttrValue::Kind::kString:
      return quoted(value.asString());
    case AttrValue::Kind::kArray: {
      std::string s = "[";
      const auto& items = value.asArray();
      for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + attrValueScript(items[i]);
      return s + "]";
    }
    case AttrValue::Kind::kAttrs:
      return value.str();
  }
  return value.str();
}

std::string dictScript(const DictAttrs& dict) {
  std::vector<const std::pair<std::string, AttrValue>*> entries;
  for (const auto& e : dict.entries()) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string s = "{";
  for (size_t i = 0; i < entries.size(); ++i)
    s += (i ? ", " : "") + quoted(entries[i]->first) + ": " + attrValueScript(entries[i]->second);
  return s + "}";
}

std::string Printer::literal(const PrimExpr& e) {
  if (const auto* imm = e->as<IntImmNode>()) {
    if (e->dtype.isBool()) return imm->value ? "T.bool(True)" : "T.bool(False)";
    // int32 is Python's default integer type, so it prints bare.
    if (e->dtype == DataType::int32()) return std::to_string(imm->value);
    return "T." + e->dtype.name() + "(" + std::to_string(imm->value) + ")";
  }
  const auto* f = e->as<FloatImmNode>();
  return "T." + e->dtype.name() + "(" + pythonFloat(f->value) + ")";
}

std::string Printer::exprList(const std::vector<PrimExpr>& es) {
  std::string s;
  for (size_t i = 0; i < es.size(); ++i) s += (i ? ", " : "") + expr(es[i]);
  return s;
}

std::string Printer::shapeTuple(const std::vector<PrimExpr>& shape) {
  if (shape.size() == 1) return "(" + expr(shape[0]) + ",)";
  return "(" + exprList(shape) + ")";
}

std::string Printer::indices(const std::vector<PrimExpr>& idx) {
  if (idx.empty()) return "[()]";
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i) s += ", ";
    // A ramp index is a vector access printed as a slice.
    if (const auto* r = idx[i]->as<RampNode>()) {
      PrimExpr end = add(r->base, mul(r->stride, intImm(r->lanes, r->stride->dtype)));
      s += expr(r->base) + ":" + expr(end);
      if (!isOne(r->stride)) s += ":" + expr(r->stride);
      continue;
    }
    s += expr(idx[i]);
  }
  return s + "]";
}

std::string Printer::region(const BufferRegion& r) {
  std::string s = nameOf(r.buffer.get()) + "[";
  for (size_t i = 0; i < r.region.size(); ++i) {
    const Range& range = r.region[i];
    if (i) s += ", ";
    if (isOne(range.extent)) {
      s += expr(range.min);
      continue;
    }
    s += expr(range.min) + ":" + expr(add(range.min, range.extent));
  }
  return s + "]";
}

std::string Printer::bufferDeclArgs(const BufferNode* b, bool withDtype) {
  std::string s = shapeTuple(b->shape);
  if (withDtype || b->dtype != DataType::float32()) s += ", " + quoted(b->dtype.name());
  if (!b->strides.empty()) s += ", strides=" + shapeTuple(b->strides);
  if (b->elemOffset && !isZero(b->elemOffset)) s += ", elem_offset=" + expr(b->elemOffset);
  if (b->scope != "global") s += ", scope=" + quoted(b->scope);
  if (b->dataAlignment != 64) s += ", align=" + std::to_string(b->dataAlignment);
  if (b->offsetFactor != 1) s += ", offset_factor=" + std::to_string(b->offsetFactor);
  return s;
}

std::string Printer::binaryExpr(const BinaryNode* op, int parentPrec) {
  int prec = precedence(op->op, op->a->dtype);
  if (prec == kPrecAtom) {
    return std::string(functionName(op->op)) + "(" + expr(op->a) + ", " + expr(op->b) + ")";
  }
  // Left-associative: the right operand needs parentheses at equal precedence too. Python chains
  // comparisons, so a comparison operand of a comparison is always parenthesised.
  bool compare = prec == kPrecCompare;
  std::string lhs = exprPrec(op->a, compare ? prec + 1 : prec);
  std::string rhs = exprPrec(op->b, prec + 1);
  return paren(lhs + infixSymbol(op->op) + rhs, prec < parentPrec);
}

std::string Printer::callExpr(const CallNode* op) {
  std::string name = op->op;
  std::string callee;
  // "tir.exp" prints as T.exp; namespaced ops keep their full name (T.tir.vta.uop_push).
  if (name.rfind("tir.", 0) == 0 && name.find('.', 4) == std::string::npos) {
    name = name.substr(4);
    callee = "T." + name;
  } else {
    callee = "T." + name;
  }
  std::string s = callee + "(";
  bool first = true;
  if (takesDtypeFirst(name)) {
    s += quoted(op->dtype.name());
    first = false;
  }
  for (const PrimExpr& a : op->args) {
    s += (first ? "" : ", ") + expr(a);
    first = false;
  }
  return s + ")";
}

std::string Printer::exprPrec(const PrimExpr& e, int parentPrec) {
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return literal(e);
    case ExprKind::kStringImm:
      return quoted(e->as<StringImmNode>()->value);
    case ExprKind::kVar:
      return nameOf(e->as<VarNode>());
    case ExprKind::kCast: {
      const auto* c = e->as<CastNode>();
      return "T.Cast(" + quoted(e->dtype.name()) + ", " + expr(c->value) + ")";
    }
    case ExprKind::kBinary:
      return binaryExpr(e->as<BinaryNode>(), parentPrec);
    case ExprKind::kNot:
      return paren("not " + exprPrec(e->as<NotNode>()->a, kPrecNot), kPrecNot < parentPrec);
    case ExprKind::kSelect: {
      const auto* s = e->as<SelectNode>();
      return "T.Select(" + expr(s->cond) + ", " + expr(s->t) + ", " + expr(s->f) + ")";
    }
    case ExprKind::kBufferLoad: {
      const auto* l = e->as<BufferLoadNode>();
      return nameOf(l->buffer.get()) + indices(l->indices);
    }
    case ExprKind::kRamp: {
      const auto* r = e->as<RampNode>();
      return "T.Ramp(" + expr(r->base) + ", " + expr(r->stride) + ", " + std::to_string(r->lanes) +
             ")";
    }
    case ExprKind::kBroadcast: {
      const auto* b = e->as<BroadcastNode>();
      return "T.Broadcast(" + expr(b->value) + ", " + std::to_string(b->lanes) + ")";
    }
    case ExprKind::kLet: {
      const auto* l = e->as<LetNode>();
      std::string value = expr(l->value);
      pushScope();
      std::string var = define(l->var.get(), l->var->name);
      std::string body = expr(l->body);
      popScope();
      return "T.Let(" + body + ", where={" + var + ": " + value + "})";
    }
    case ExprKind::kCall:
      return callExpr(e->as<CallNode>());
    case ExprKind::kReduce: {
      const auto* r = e->as<ReduceNode>();
      std::string axes;
      for (size_t i = 0; i < r->axis.size(); ++i)
        axes += (i ? ", " : "") + nameOf(r->axis[i].var.get());
      return "T.reduce(" + quoted(r->combiner->name) + ", [" + exprList(r->source) + "], axis=[" +
             axes + "], where=" + expr(r->condition) +
             ", value_index=" + std::to_string(r->valueIndex) + ")";
    }
  }
  return "?";
}

}  // namespace tessera::tir::script
