#include "tir/expr.h"

#include <cmath>
#include <limits>

#include "support/check.h"
#include "tir/buffer.h"
#include "tir/functor.h"

namespace tessera::tir {

const char* binaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "add";
    case BinaryOp::kSub:
      return "sub";
    case BinaryOp::kMul:
      return "mul";
    case BinaryOp::kDiv:
      return "div";
    case BinaryOp::kMod:
      return "mod";
    case BinaryOp::kFloorDiv:
      return "floordiv";
    case BinaryOp::kFloorMod:
      return "floormod";
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
    case BinaryOp::kEQ:
      return "eq";
    case BinaryOp::kNE:
      return "ne";
    case BinaryOp::kLT:
      return "lt";
    case BinaryOp::kLE:
      return "le";
    case BinaryOp::kGT:
      return "gt";
    case BinaryOp::kGE:
      return "ge";
    case BinaryOp::kAnd:
      return "and";
    case BinaryOp::kOr:
      return "or";
  }
  return "?";
}

bool isComparison(BinaryOp op) {
  return op == BinaryOp::kEQ || op == BinaryOp::kNE || op == BinaryOp::kLT || op == BinaryOp::kLE ||
         op == BinaryOp::kGT || op == BinaryOp::kGE;
}

PrimExpr intImm(int64_t value, DataType dtype) {
  if (dtype.isBool()) value = value != 0;
  return std::make_shared<IntImmNode>(dtype, value);
}
PrimExpr floatImm(double value, DataType dtype) {
  return std::make_shared<FloatImmNode>(dtype, value);
}
PrimExpr boolImm(bool value) {
  return intImm(value ? 1 : 0, DataType::boolType());
}
PrimExpr stringImm(std::string value) {
  return std::make_shared<StringImmNode>(std::move(value));
}

PrimExpr makeConst(DataType dtype, double value) {
  DataType elem = dtype.element();
  PrimExpr scalar =
      elem.isFloat() ? floatImm(value, elem) : intImm(static_cast<int64_t>(value), elem);
  return dtype.lanes() > 1 ? broadcast(scalar, dtype.lanes()) : scalar;
}

Var makeVar(std::string name, DataType dtype) {
  return std::make_shared<VarNode>(std::move(name), dtype);
}
Var makeSizeVar(std::string name, DataType dtype) {
  return std::make_shared<VarNode>(std::move(name), dtype, true);
}

PrimExpr cast(DataType dtype, PrimExpr value) {
  if (value->dtype == dtype) return value;
  if (dtype.lanes() == 1) {
    if (const auto* i = value->as<IntImmNode>()) {
      if (dtype.isFloat()) return floatImm(static_cast<double>(i->value), dtype);
      if (dtype.isInteger() || dtype.isBool()) return intImm(i->value, dtype);
    }
    if (const auto* f = value->as<FloatImmNode>()) {
      if (dtype.isFloat()) return floatImm(f->value, dtype);
    }
  }
  return std::make_shared<CastNode>(dtype, std::move(value));
}

namespace {

int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorModInt(int64_t a, int64_t b) {
  return a - floorDivInt(a, b) * b;
}

// Folds an operation on two immediates of the same type; nullptr when it does not apply.
PrimExpr foldConstants(BinaryOp op, DataType dtype, const PrimExpr& a, const PrimExpr& b) {
  const auto* ia = a->as<IntImmNode>();
  const auto* ib = b->as<IntImmNode>();
  DataType outType = isComparison(op) ? DataType::boolType() : dtype;
  if (ia && ib) {
    int64_t x = ia->value, y = ib->value;
    switch (op) {
      case BinaryOp::kAdd:
        return intImm(x + y, dtype);
      case BinaryOp::kSub:
        return intImm(x - y, dtype);
      case BinaryOp::kMul:
        return intImm(x * y, dtype);
      case BinaryOp::kDiv:
        return y == 0 ? nullptr : intImm(x / y, dtype);
      case BinaryOp::kMod:
        return y == 0 ? nullptr : intImm(x % y, dtype);
      case BinaryOp::kFloorDiv:
        return y == 0 ? nullptr : intImm(floorDivInt(x, y), dtype);
      case BinaryOp::kFloorMod:
        return y == 0 ? nullptr : intImm(floorModInt(x, y), dtype);
      case BinaryOp::kMin:
        return intImm(std::min(x, y), dtype);
      case BinaryOp::kMax:
        return intImm(std::max(x, y), dtype);
      case BinaryOp::kEQ:
        return intImm(x == y, outType);
      case BinaryOp::kNE:
        return intImm(x != y, outType);
      case BinaryOp::kLT:
        return intImm(x < y, outType);
      case BinaryOp::kLE:
        return intImm(x <= y, outType);
      case BinaryOp::kGT:
        return intImm(x > y, outType);
      case BinaryOp::kGE:
        return intImm(x >= y, outType);
      case BinaryOp::kAnd:
        return intImm(x && y, outType);
      case BinaryOp::kOr:
        return intImm(x || y, outType);
    }
  }
  const auto* fa = a->as<FloatImmNode>();
  const auto* fb = b->as<FloatImmNode>();
  if (fa && fb) {
    double x = fa->value, y = fb->value;
    switch (op) {
      case BinaryOp::kAdd:
        return floatImm(x + y, dtype);
      case BinaryOp::kSub:
        return floatImm(x - y, dtype);
      case BinaryOp::kMul:
        return floatImm(x * y, dtype);
      case BinaryOp::kDiv:
        return floatImm(x / y, dtype);
      case BinaryOp::kMin:
        return floatImm(std::min(x, y), dtype);
      case BinaryOp::kMax:
        return floatImm(std::max(x, y), dtype);
      case BinaryOp::kEQ:
        return intImm(x == y, outType);
      case BinaryOp::kNE:
        return intImm(x != y, outType);
      case BinaryOp::kLT:
        return intImm(x < y, outType);
      case BinaryOp::kLE:
        return intImm(x <= y, outType);
      case BinaryOp::kGT:
        return intImm(x > y, outType);
      case BinaryOp::kGE:
        return intImm(x >= y, outType);
      default:
        return nullptr;
    }
  }
  return nullptr;
}

// Identities that keep index expressions readable as they are built (x + 0, x * 1, x * 0 for ints).
PrimExpr foldIdentity(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  bool intType = a->dtype.isInteger();
  switch (op) {
    case BinaryOp::kAdd:
      if (isZero(b)) return a;
      if (isZero(a)) return b;
      break;
    case BinaryOp::kSub:
      if (isZero(b)) return a;
      break;
    case BinaryOp::kMul:
      if (isOne(b)) return a;
      if (isOne(a)) return b;
      if (intType && isZero(b)) return b;
      if (intType && isZero(a)) return a;
      break;
    case BinaryOp::kFloorDiv:
    case BinaryOp::kDiv:
      if (intType && isOne(b)) return a;
      break;
    case BinaryOp::kFloorMod:
    case BinaryOp::kMod:
      if (intType && isOne(b)) return intImm(0, a->dtype);
      break;
    default:
      break;
  }
  return nullptr;
}

}  // namespace

PrimExpr binary(BinaryOp op, PrimExpr a, PrimExpr b) {
  TS_CHECK(a && b) << "binary " << binaryOpName(op) << " on a null expression";
  // An integer immediate takes the type of the other operand (x + 1 where x is int64).
  if (a->dtype != b->dtype) {
    if (a->as<IntImmNode>() && !b->as<IntImmNode>())
      a = b->dtype.isFloat() ? floatImm(static_cast<double>(a->as<IntImmNode>()->value), b->dtype)
                             : intImm(a->as<IntImmNode>()->value, b->dtype);
    else if (b->as<IntImmNode>() && !a->as<IntImmNode>())
      b = a->dtype.isFloat() ? floatImm(static_cast<double>(b->as<IntImmNode>()->value), a->dtype)
                             : intImm(b->as<IntImmNode>()->value, a->dtype);
    else if (a->as<FloatImmNode>() && !b->as<FloatImmNode>())
      a = floatImm(a->as<FloatImmNode>()->value, b->dtype);
    else if (b->as<FloatImmNode>() && !a->as<FloatImmNode>())
      b = floatImm(b->as<FloatImmNode>()->value, a->dtype);
    else if (a->dtype.lanes() == 1 && b->dtype.lanes() > 1)
      a = broadcast(a, b->dtype.lanes());
    else if (b->dtype.lanes() == 1 && a->dtype.lanes() > 1)
      b = broadcast(b, a->dtype.lanes());
  }
  if (a->dtype != b->dtype && a->dtype.isInteger() && b->dtype.isInteger() &&
      a->dtype.lanes() == b->dtype.lanes()) {
    // Mixed index widths: widen to the larger one (int32 loop var times int64 extent).
    if (a->dtype.bits() < b->dtype.bits())
      a = cast(b->dtype, a);
    else
      b = cast(a->dtype, b);
  }
  TS_CHECK(a->dtype == b->dtype) << "binary " << binaryOpName(op) << " on " << a->dtype.name()
                                 << " and " << b->dtype.name();
  DataType dtype = a->dtype;
  if (PrimExpr folded = foldConstants(op, dtype, a, b)) return folded;
  if (PrimExpr folded = foldIdentity(op, a, b)) return folded;
  DataType outType = (isComparison(op) || op == BinaryOp::kAnd || op == BinaryOp::kOr)
                         ? DataType::boolType().withLanes(dtype.lanes())
                         : dtype;
  return std::make_shared<BinaryNode>(op, outType, std::move(a), std::move(b));
}

PrimExpr add(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kAdd, std::move(a), std::move(b));
}
PrimExpr sub(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kSub, std::move(a), std::move(b));
}
PrimExpr mul(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kMul, std::move(a), std::move(b));
}
PrimExpr truncdiv(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kDiv, std::move(a), std::move(b));
}
PrimExpr truncmod(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kMod, std::move(a), std::move(b));
}
PrimExpr floordiv(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kFloorDiv, std::move(a), std::move(b));
}
PrimExpr floormod(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kFloorMod, std::move(a), std::move(b));
}
PrimExpr min(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kMin, std::move(a), std::move(b));
}
PrimExpr max(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kMax, std::move(a), std::move(b));
}
PrimExpr eq(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kEQ, std::move(a), std::move(b));
}
PrimExpr ne(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kNE, std::move(a), std::move(b));
}
PrimExpr lt(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kLT, std::move(a), std::move(b));
}
PrimExpr le(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kLE, std::move(a), std::move(b));
}
PrimExpr gt(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kGT, std::move(a), std::move(b));
}
PrimExpr ge(PrimExpr a, PrimExpr b) {
  return binary(BinaryOp::kGE, std::move(a), std::move(b));
}

PrimExpr logicalAnd(PrimExpr a, PrimExpr b) {
  if (isConstInt(a, 1)) return b;
  if (isConstInt(b, 1)) return a;
  return binary(BinaryOp::kAnd, std::move(a), std::move(b));
}
PrimExpr logicalOr(PrimExpr a, PrimExpr b) {
  if (isConstInt(a, 0)) return b;
  if (isConstInt(b, 0)) return a;
  return binary(BinaryOp::kOr, std::move(a), std::move(b));
}
PrimExpr logicalNot(PrimExpr a) {
  if (const auto* i = a->as<IntImmNode>()) return boolImm(i->value == 0);
  return std::make_shared<NotNode>(std::move(a));
}

PrimExpr select(PrimExpr cond, PrimExpr t, PrimExpr f) {
  if (const auto* c = cond->as<IntImmNode>()) return c->value ? t : f;
  return std::make_shared<SelectNode>(std::move(cond), std::move(t), std::move(f));
}

PrimExpr ifThenElse(PrimExpr cond, PrimExpr t, PrimExpr f) {
  if (const auto* c = cond->as<IntImmNode>()) return c->value ? t : f;
  DataType dtype = t->dtype;
  return call(dtype, "tir.if_then_else", {std::move(cond), std::move(t), std::move(f)});
}

PrimExpr call(DataType dtype, std::string op, std::vector<PrimExpr> args) {
  return std::make_shared<CallNode>(dtype, std::move(op), std::move(args));
}

PrimExpr bufferLoad(Buffer buffer, std::vector<PrimExpr> indices) {
  auto load = std::make_shared<BufferLoadNode>(DataType(), std::move(buffer), std::move(indices));
  load->dtype = BufferLoadNode::derivedDType(*load);
  return load;
}

DataType BufferLoadNode::derivedDType(const BufferLoadNode& n) {
  int lanes = 1;
  for (const PrimExpr& i : n.indices) lanes = std::max(lanes, i->dtype.lanes());
  return n.buffer->dtype.withLanes(lanes * n.buffer->dtype.lanes());
}

PrimExpr ramp(PrimExpr base, PrimExpr stride, int lanes) {
  return std::make_shared<RampNode>(std::move(base), std::move(stride), lanes);
}
PrimExpr broadcast(PrimExpr value, int lanes) {
  return std::make_shared<BroadcastNode>(std::move(value), lanes);
}
PrimExpr let(Var var, PrimExpr value, PrimExpr body) {
  return std::make_shared<LetNode>(std::move(var), std::move(value), std::move(body));
}

PrimExpr minValue(DataType dtype) {
  if (dtype.isFloat()) {
    if (dtype.bits() == 64) return floatImm(std::numeric_limits<double>::lowest(), dtype);
    if (dtype.bits() == 16 && dtype.code() == DataType::Code::kFloat)
      return floatImm(-65504.0, dtype);
    return floatImm(std::numeric_limits<float>::lowest(), dtype);
  }
  if (dtype.isBool()) return intImm(0, dtype);
  if (dtype.isUInt()) return intImm(0, dtype);
  if (dtype.bits() == 64) return intImm(std::numeric_limits<int64_t>::min(), dtype);
  return intImm(-(int64_t{1} << (dtype.bits() - 1)), dtype);
}

PrimExpr maxValue(DataType dtype) {
  if (dtype.isFloat()) {
    if (dtype.bits() == 64) return floatImm(std::numeric_limits<double>::max(), dtype);
    if (dtype.bits() == 16 && dtype.code() == DataType::Code::kFloat)
      return floatImm(65504.0, dtype);
    return floatImm(std::numeric_limits<float>::max(), dtype);
  }
  if (dtype.isBool()) return intImm(1, dtype);
  if (dtype.bits() == 64)
    return intImm(dtype.isUInt() ? -1 : std::numeric_limits<int64_t>::max(), dtype);
  if (dtype.isUInt()) return intImm((int64_t{1} << dtype.bits()) - 1, dtype);
  return intImm((int64_t{1} << (dtype.bits() - 1)) - 1, dtype);
}

const int64_t* asConstInt(const PrimExpr& e) {
  if (!e) return nullptr;
  if (const auto* i = e->as<IntImmNode>()) return &i->value;
  if (const auto* c = e->as<CastNode>())
    if (c->dtype.isInteger()) return asConstInt(c->value);
  return nullptr;
}
bool isConstInt(const PrimExpr& e, int64_t value) {
  const int64_t* v = asConstInt(e);
  return v && *v == value;
}
bool isOne(const PrimExpr& e) {
  if (const auto* f = e->as<FloatImmNode>()) return f->value == 1.0;
  return isConstInt(e, 1);
}
bool isZero(const PrimExpr& e) {
  if (const auto* f = e->as<FloatImmNode>()) return f->value == 0.0;
  return isConstInt(e, 0);
}

bool usesVar(const PrimExpr& e, const VarNode* v) {
  bool found = false;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    if (x.get() == v) found = true;
  });
  return found;
}

}  // namespace tessera::tir
