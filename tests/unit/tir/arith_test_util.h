// Helpers for the arithmetic tests: a small expression printer in TVMScript's infix form (so
// expected results read like TVM's), and a reference integer evaluator with floor semantics.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>

#include "tir/expr.h"

namespace tessera::tir::testing {

inline int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return 1;
    case BinaryOp::kAnd:
      return 2;
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return 3;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return 4;
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      return 5;
    default:
      return 9;  // printed as calls
  }
}

inline const char* infix(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return " + ";
    case BinaryOp::kSub:
      return " - ";
    case BinaryOp::kMul:
      return " * ";
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

/// `e` as TVMScript writes it: `i_0 * 10 + i_1`, `x // 8`, `T.min(a, b)`, `T.Ramp(b, 1, 8)`.
inline std::string text(const PrimExpr& e, int parentPrec = 0, bool rightSide = false) {
  std::ostringstream os;
  switch (e->kind) {
    case ExprKind::kIntImm:
      if (e->dtype.isBool()) return e->as<IntImmNode>()->value ? "T.bool(True)" : "T.bool(False)";
      if (e->dtype != DataType::int32())
        return "T." + e->dtype.name() + "(" + std::to_string(e->as<IntImmNode>()->value) + ")";
      return std::to_string(e->as<IntImmNode>()->value);
    case ExprKind::kFloatImm:
      os << e->as<FloatImmNode>()->value;
      return os.str();
    case ExprKind::kVar:
      return e->as<VarNode>()->name;
    case ExprKind::kCast:
      return "T.Cast(\"" + e->dtype.name() + "\", " + text(e->as<CastNode>()->value) + ")";
    case ExprKind::kNot:
      return "not " + text(e->as<NotNode>()->a, 8);
    case ExprKind::kSelect: {
      const auto* s = e->as<SelectNode>();
      return "T.Select(" + text(s->cond) + ", " + text(s->t) + ", " + text(s->f) + ")";
    }
    case ExprKind::kRamp: {
      const auto* r = e->as<RampNode>();
      return "T.Ramp(" + text(r->base) + ", " + text(r->stride) + ", " + std::to_string(r->lanes) +
             ")";
    }
    case ExprKind::kBroadcast: {
      const auto* b = e->as<BroadcastNode>();
      return "T.Broadcast(" + text(b->value) + ", " + std::to_string(b->lanes) + ")";
    }
    case ExprKind::kBinary: {
      const auto* b = e->as<BinaryNode>();
      const char* op = infix(b->op);
      if (!op) {
        std::string name = b->op == BinaryOp::kDiv   ? "T.truncdiv"
                           : b->op == BinaryOp::kMod ? "T.truncmod"
                                                     : std::string("T.") + binaryOpName(b->op);
        return name + "(" + text(b->a) + ", " + text(b->b) + ")";
      }
      int prec = precedence(b->op);
      std::string body = text(b->a, prec, false) + op + text(b->b, prec, true);
      bool paren = prec < parentPrec || (prec == parentPrec && rightSide);
      return paren ? "(" + body + ")" : body;
    }
    default:
      return "<expr>";
  }
}

using Env = std::unordered_map<const VarNode*, int64_t>;

inline int64_t floorDivRef(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

/// The value of an integer/bool scalar expression; nullopt on division by zero.
inline std::optional<int64_t> evalInt(const PrimExpr& e, const Env& env) {
  switch (e->kind) {
    case ExprKind::kIntImm:
      return e->as<IntImmNode>()->value;
    case ExprKind::kVar:
      return env.at(e->as<VarNode>());
    case ExprKind::kCast:
      return evalInt(e->as<CastNode>()->value, env);
    case ExprKind::kNot: {
      auto a = evalInt(e->as<NotNode>()->a, env);
      if (!a) return std::nullopt;
      return *a == 0;
    }
    case ExprKind::kSelect: {
      const auto* s = e->as<SelectNode>();
      auto c = evalInt(s->cond, env), t = evalInt(s->t, env), f = evalInt(s->f, env);
      if (!c || !t || !f) return std::nullopt;
      return *c ? *t : *f;
    }
    case ExprKind::kBinary: {
      const auto* b = e->as<BinaryNode>();
      auto x = evalInt(b->a, env), y = evalInt(b->b, env);
      if (!x || !y) return std::nullopt;
      int64_t a = *x, c = *y;
      switch (b->op) {
        case BinaryOp::kAdd:
          return a + c;
        case BinaryOp::kSub:
          return a - c;
        case BinaryOp::kMul:
          return a * c;
        case BinaryOp::kDiv:
          return c == 0 ? std::nullopt : std::optional<int64_t>(a / c);
        case BinaryOp::kMod:
          return c == 0 ? std::nullopt : std::optional<int64_t>(a % c);
        case BinaryOp::kFloorDiv:
          return c == 0 ? std::nullopt : std::optional<int64_t>(floorDivRef(a, c));
        case BinaryOp::kFloorMod:
          return c == 0 ? std::nullopt : std::optional<int64_t>(a - floorDivRef(a, c) * c);
        case BinaryOp::kMin:
          return a < c ? a : c;
        case BinaryOp::kMax:
          return a > c ? a : c;
        case BinaryOp::kEQ:
          return a == c;
        case BinaryOp::kNE:
          return a != c;
        case BinaryOp::kLT:
          return a < c;
        case BinaryOp::kLE:
          return a <= c;
        case BinaryOp::kGT:
          return a > c;
        case BinaryOp::kGE:
          return a >= c;
        case BinaryOp::kAnd:
          return a && c;
        case BinaryOp::kOr:
          return a || c;
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace tessera::tir::testing
