// TVMScript expressions to PrimExprs: literals, typed constructors (`T.float32(0.0)`), Python
// operators with TVM's meaning (`//` and `%` floor, `/` truncating for integers), the `T.*`
// functions the printer emits, buffer loads with slice (ramp) indices, and calls of intrinsics.
// Nodes are built as written: constant operands are not folded, so the text prints back the same.
#include <cmath>
#include <limits>

#include "support/diagnostic.h"
#include "tir/script/builder.h"

namespace tessera::tir::script {

namespace {

bool isLiteral(const PrimExpr& e) {
  return e->as<IntImmNode>() || e->as<FloatImmNode>();
}

// A literal operand takes the other operand's type, as binary() does.
PrimExpr adoptType(const PrimExpr& literal, DataType dtype) {
  if (const auto* i = literal->as<IntImmNode>())
    return dtype.isFloat() ? floatImm(static_cast<double>(i->value), dtype)
                           : intImm(i->value, dtype);
  // A float literal never becomes an integer: the operands then differ, which is reported.
  if (!dtype.isFloat()) return literal;
  return floatImm(literal->as<FloatImmNode>()->value, dtype);
}

struct OpInfo {
  const char* symbol;
  BinaryOp op;
};
constexpr OpInfo kBinaryOps[] = {
    {"+", BinaryOp::kAdd},   {"-", BinaryOp::kSub},       {"*", BinaryOp::kMul},
    {"/", BinaryOp::kDiv},   {"//", BinaryOp::kFloorDiv}, {"%", BinaryOp::kFloorMod},
    {"==", BinaryOp::kEQ},   {"!=", BinaryOp::kNE},       {"<", BinaryOp::kLT},
    {"<=", BinaryOp::kLE},   {">", BinaryOp::kGT},        {">=", BinaryOp::kGE},
    {"and", BinaryOp::kAnd}, {"or", BinaryOp::kOr}};

// Functions spelled `T.name(a, b)` that are binary nodes.
constexpr OpInfo kBinaryFunctions[] = {
    {"max", BinaryOp::kMax},           {"min", BinaryOp::kMin},
    {"truncdiv", BinaryOp::kDiv},      {"truncmod", BinaryOp::kMod},
    {"floordiv", BinaryOp::kFloorDiv}, {"floormod", BinaryOp::kFloorMod}};

// Intrinsics whose first printed argument is the result dtype (printer_expr.cc).
bool takesDtypeFirst(const std::string& name) {
  return name == "call_extern" || name == "call_pure_extern" || name == "call_llvm_intrin" ||
         name == "call_llvm_pure_intrin" || name == "reinterpret";
}

bool returnsBool(const std::string& name) {
  return name == "isnan" || name == "isinf" || name == "isfinite";
}

bool returnsHandle(const std::string& name) {
  return name == "address_of" || name == "tvm_access_ptr" || name == "tvm_stack_alloca" ||
         name == "tvm_stack_make_shape" || name == "tvm_stack_make_array" ||
         name == "type_annotation";
}

}  // namespace

PrimExpr makeBinaryNode(BinaryOp op, PrimExpr a, PrimExpr b, const Span& span) {
  if (a->dtype != b->dtype) {
    if (isLiteral(a) && !isLiteral(b)) {
      a = adoptType(a, b->dtype.withLanes(1));
    } else if (isLiteral(b) && !isLiteral(a)) {
      b = adoptType(b, a->dtype.withLanes(1));
    } else if (isLiteral(a) && isLiteral(b) && a->dtype.isFloat() != b->dtype.isFloat()) {
      // 1 + 2.5: the integer literal becomes a float.
      if (a->dtype.isFloat())
        b = adoptType(b, a->dtype);
      else
        a = adoptType(a, b->dtype);
    }
    if (a->dtype.lanes() == 1 && b->dtype.lanes() > 1) a = broadcast(a, b->dtype.lanes());
    if (b->dtype.lanes() == 1 && a->dtype.lanes() > 1) b = broadcast(b, a->dtype.lanes());
    if (a->dtype != b->dtype && a->dtype.isInteger() && b->dtype.isInteger() &&
        a->dtype.lanes() == b->dtype.lanes()) {
      // Mixed index widths widen to the larger one, as binary() does.
      if (a->dtype.bits() < b->dtype.bits())
        a = std::make_shared<CastNode>(b->dtype, a);
      else
        b = std::make_shared<CastNode>(a->dtype, b);
    }
  }
  if (a->dtype != b->dtype)
    Builder::fail(span, std::string("operands of '") + binaryOpName(op) + "' have types " +
                            a->dtype.name() + " and " + b->dtype.name() +
                            "; convert one with T.Cast");
  DataType dtype = a->dtype;
  if (isComparison(op) || op == BinaryOp::kAnd || op == BinaryOp::kOr)
    dtype = DataType::boolType().withLanes(a->dtype.lanes());
  return std::make_shared<BinaryNode>(op, dtype, std::move(a), std::move(b));
}

PrimExpr difference(const PrimExpr& end, const PrimExpr& begin) {
  const int64_t* e = asConstInt(end);
  const int64_t* b = asConstInt(begin);
  if (e && b && end->as<IntImmNode>() && begin->as<IntImmNode>())
    return intImm(*e - *b, end->dtype.bits() >= begin->dtype.bits() ? end->dtype : begin->dtype);
  if (const auto* sum = end->as<BinaryNode>())
    if (sum->op == BinaryOp::kAdd && deepEqual(sum->a, begin)) return sum->b;
  if (isZero(begin)) return end;
  return makeBinaryNode(BinaryOp::kSub, end, begin, Span{});
}

std::optional<DataType> Builder::dtypeOfCallee(const PyExpr& callee) {
  if (callee.kind != PyExprKind::kAttribute || !callee.base ||
      callee.base->kind != PyExprKind::kName || callee.base->text != "T")
    return std::nullopt;
  if (callee.text == "handle") return DataType::handle();
  if (callee.text == "bool") return DataType::boolType();
  std::optional<DataType> t = DataType::parse(callee.text);
  if (!t || t->isVoid()) return std::nullopt;
  return t;
}

std::string Builder::stringArg(const PyExpr& e, const char* what) {
  if (e.kind != PyExprKind::kString) fail(e.span, std::string("expected ") + what);
  return e.text;
}

Range Builder::sliceRange(const PyExpr& slice) {
  if (!slice.items[0] || !slice.items[1]) fail(slice.span, "a slice needs both bounds (begin:end)");
  if (slice.items[2]) fail(slice.items[2]->span, "a region slice cannot have a step");
  PrimExpr begin = expr(*slice.items[0]);
  PrimExpr end = expr(*slice.items[1]);
  return Range{begin, difference(end, begin)};
}

PrimExpr Builder::expr(const PyExpr& e) {
  switch (e.kind) {
    case PyExprKind::kInt:
      // Python ints are int32 in TIR unless they do not fit.
      if (e.intValue > std::numeric_limits<int32_t>::max())
        return intImm(e.intValue, DataType::int64());
      return intImm(e.intValue);
    case PyExprKind::kFloat:
      return floatImm(e.floatValue);
    case PyExprKind::kBool:
      return boolImm(e.intValue != 0);
    case PyExprKind::kString:
      return stringImm(e.text);
    case PyExprKind::kName:
    case PyExprKind::kAttribute:
      return lookupVar(e);
    case PyExprKind::kUnary: {
      const PyExpr& operand = *e.items[0];
      if (e.text == "not") {
        PrimExpr a = expr(operand);
        if (!a->dtype.isBool()) fail(operand.span, "'not' needs a boolean, got " + a->dtype.name());
        return std::make_shared<NotNode>(a);
      }
      PrimExpr a = expr(operand);
      if (e.text == "+") return a;
      if (const auto* i = a->as<IntImmNode>()) return intImm(-i->value, a->dtype);
      if (const auto* f = a->as<FloatImmNode>()) return floatImm(-f->value, a->dtype);
      return makeBinaryNode(BinaryOp::kSub, makeConst(a->dtype, 0), a, e.span);
    }
    case PyExprKind::kBinary:
      return binaryExpr(e);
    case PyExprKind::kCall:
      return callExpr(e);
    case PyExprKind::kSubscript:
      return loadExpr(e);
    case PyExprKind::kNone:
    case PyExprKind::kSlice:
    case PyExprKind::kTuple:
    case PyExprKind::kList:
    case PyExprKind::kDict:
      break;
  }
  fail(e.span, "expected a TIR expression here");
}

PrimExpr Builder::binaryExpr(const PyExpr& e) {
  if (e.text == "**") fail(e.span, "'**' is not supported; use T.pow");
  PrimExpr a = expr(*e.items[0]);
  PrimExpr b = expr(*e.items[1]);
  for (const OpInfo& info : kBinaryOps) {
    if (e.text != info.symbol) continue;
    if ((info.op == BinaryOp::kAnd || info.op == BinaryOp::kOr) &&
        (!a->dtype.isBool() || !b->dtype.isBool()))
      fail(e.span,
           "'" + e.text + "' needs booleans, got " + a->dtype.name() + " and " + b->dtype.name());
    return makeBinaryNode(info.op, a, b, e.span);
  }
  fail(e.span, "unsupported operator '" + e.text + "'");
}

std::vector<PrimExpr> Builder::indices(const PyExpr& subscript, const Buffer& buffer) {
  std::vector<PrimExpr> out;
  const auto& items = subscript.items;
  // `A[()]` indexes a zero-dimensional buffer.
  bool empty = items.size() == 1 && items[0]->kind == PyExprKind::kTuple && items[0]->items.empty();
  if (!empty) {
    for (const PyExprPtr& item : items) {
      if (item->kind != PyExprKind::kSlice) {
        PrimExpr index = expr(*item);
        if (!index->dtype.isInteger())
          fail(item->span, "buffer index must be an integer, got " + index->dtype.name());
        out.push_back(index);
        continue;
      }
      // A slice is a vector access: base:end(:stride) is Ramp(base, stride, lanes).
      if (!item->items[0] || !item->items[1]) fail(item->span, "a vector index needs begin:end");
      PrimExpr base = expr(*item->items[0]);
      PrimExpr end = expr(*item->items[1]);
      PrimExpr stride = item->items[2] ? expr(*item->items[2]) : intImm(1, base->dtype);
      const int64_t* s = asConstInt(stride);
      const PrimExpr length = difference(end, base);  // held: asConstInt points into it
      const int64_t* span = asConstInt(length);
      if (!s || !span || *s <= 0 || *span <= 0 || *span % *s != 0)
        fail(item->span, "a vector index needs a constant positive length and stride");
      out.push_back(ramp(base, stride, static_cast<int>(*span / *s)));
    }
  }
  if (static_cast<int>(out.size()) != buffer->ndim())
    fail(subscript.span, "buffer " + buffer->name + " has " + std::to_string(buffer->ndim()) +
                             " dimensions but is indexed with " + std::to_string(out.size()));
  return out;
}

PrimExpr Builder::loadExpr(const PyExpr& e) {
  Buffer buffer = lookupBuffer(*e.base);
  return bufferLoad(buffer, indices(e, buffer));
}

PrimExpr Builder::callExpr(const PyExpr& e) {
  const PyExpr& callee = *e.base;
  std::string name = callee.dottedName();
  if (name.rfind("T.", 0) != 0)
    fail(callee.span,
         "unknown function '" + (name.empty() ? std::string("?") : name) + "' in a TIR expression");
  std::string fn = name.substr(2);
  if (std::optional<DataType> t = dtypeOfCallee(callee)) {
    // Typed literal `T.float32(0.0)`, `T.int64(128)`, `T.bool(True)`; of an expression, a cast.
    if (e.items.size() != 1 || !e.kwargs.empty()) {
      if (e.items.empty())
        fail(e.span, name + "() declares a variable: write `n = " + name + "()` on its own line");
      fail(e.span, name + "(...) takes one value");
    }
    const PyExpr& v = *e.items[0];
    if (v.kind == PyExprKind::kString && t->isFloat()) {
      double special = v.text == "inf"    ? std::numeric_limits<double>::infinity()
                       : v.text == "-inf" ? -std::numeric_limits<double>::infinity()
                       : v.text == "nan"  ? std::numeric_limits<double>::quiet_NaN()
                                          : 0;
      if (special == 0) fail(v.span, "expected \"inf\", \"-inf\" or \"nan\"");
      return floatImm(special, *t);
    }
    PrimExpr value = expr(v);
    if (const auto* i = value->as<IntImmNode>()) {
      if (t->isFloat()) return floatImm(static_cast<double>(i->value), *t);
      return intImm(i->value, *t);
    }
    if (const auto* f = value->as<FloatImmNode>()) {
      if (t->isFloat()) return floatImm(f->value, *t);
      fail(v.span, "cannot make a " + t->name() + " from a float literal");
    }
    return std::make_shared<CastNode>(*t, value);
  }
  return intrinsicCall(e, fn);
}

PrimExpr Builder::intrinsicCall(const PyExpr& e, const std::string& fn) {
  auto arity = [&](size_t n) {
    if (e.items.size() != n || !e.kwargs.empty())
      fail(e.span, "T." + fn + " takes " + std::to_string(n) + " arguments, got " +
                       std::to_string(e.items.size()));
  };
  auto arg = [&](size_t i) { return expr(*e.items[i]); };
  auto lanesArg = [&](size_t i) {
    const PyExpr& l = *e.items[i];
    if (l.kind != PyExprKind::kInt || l.intValue < 1 || l.intValue > 65535)
      fail(l.span, "lanes must be an integer literal in [1, 65535]");
    return static_cast<int>(l.intValue);
  };
  for (const OpInfo& info : kBinaryFunctions) {
    if (fn != info.symbol) continue;
    arity(2);
    return makeBinaryNode(info.op, arg(0), arg(1), e.span);
  }
  if (fn == "Cast") {
    arity(2);
    std::optional<DataType> t = DataType::parse(stringArg(*e.items[0], "a dtype string"));
    if (!t || t->isVoid()) fail(e.items[0]->span, "unknown dtype \"" + e.items[0]->text + "\"");
    return std::make_shared<CastNode>(*t, arg(1));
  }
  if (fn == "Select" || fn == "if_then_else") {
    arity(3);
    PrimExpr c = arg(0), t = arg(1), f = arg(2);
    if (!c->dtype.isBool())
      fail(e.items[0]->span, "condition must be boolean, got " + c->dtype.name());
    if (isLiteral(t) && !isLiteral(f)) t = adoptType(t, f->dtype);
    if (isLiteral(f) && !isLiteral(t)) f = adoptType(f, t->dtype);
    if (t->dtype != f->dtype)
      fail(e.span,
           "T." + fn + " branches have types " + t->dtype.name() + " and " + f->dtype.name());
    if (fn == "Select") return std::make_shared<SelectNode>(c, t, f);
    return call(t->dtype, "tir.if_then_else", {c, t, f});
  }
  if (fn == "Ramp") {
    arity(3);
    return ramp(arg(0), arg(1), lanesArg(2));
  }
  if (fn == "Broadcast") {
    arity(2);
    return broadcast(arg(0), lanesArg(1));
  }
  if (fn == "Let") {
    // T.Let(body, where={v: value}): the variable is bound in the body only.
    PyExprPtr where = e.kwarg("where");
    if (e.items.size() != 1 || !where || where->kind != PyExprKind::kDict ||
        where->items.size() != 2 || where->items[0]->kind != PyExprKind::kName)
      fail(e.span, "expected T.Let(body, where={var: value})");
    PrimExpr value = expr(*where->items[1]);
    Var v = bindVar(where->items[0]->text, value->dtype);
    pushScope();
    defineVar(v->name, v);
    PrimExpr body = expr(*e.items[0]);
    popScope();
    return let(v, value, body);
  }
  if (fn == "reduce") fail(e.span, "T.reduce exists only in TE computes and cannot be parsed");
  if (!e.kwargs.empty()) fail(e.span, "T." + fn + " takes no keyword arguments");
  // An intrinsic: `T.exp(x)` is "tir.exp"; a namespaced one keeps its full name.
  std::string op = fn.find('.') == std::string::npos ? "tir." + fn : fn;
  size_t first = 0;
  DataType dtype = DataType::int32();
  if (takesDtypeFirst(fn)) {
    if (e.items.empty()) fail(e.span, "T." + fn + " needs the result dtype first");
    std::optional<DataType> t = DataType::parse(stringArg(*e.items[0], "a dtype string"));
    if (!t) fail(e.items[0]->span, "unknown dtype \"" + e.items[0]->text + "\"");
    dtype = *t;
    first = 1;
  }
  std::vector<PrimExpr> args;
  for (size_t i = first; i < e.items.size(); ++i) args.push_back(arg(i));
  if (!takesDtypeFirst(fn)) {
    // The printed form does not spell the result type: it follows the operands.
    for (const PrimExpr& a : args)
      if (!a->as<StringImmNode>()) {
        dtype = a->dtype;
        break;
      }
    if (fn == "if_then_else" && args.size() == 3) dtype = args[1]->dtype;
    if (returnsBool(fn)) dtype = DataType::boolType();
    if (returnsHandle(fn)) dtype = DataType::handle();
  }
  return call(dtype, op, std::move(args));
}

}  // namespace tessera::tir::script
