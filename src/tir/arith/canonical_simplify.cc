#include "tir/arith/canonical_simplify.h"

#include "tir/arith/const_int_bound.h"
#include "tir/arith/int_math.h"

namespace tessera::tir::arith {

namespace {

// The dividend and positive constant divisor of `atom` when it is a floordiv/floormod.
bool asDivMod(const PrimExpr& atom, BinaryOp op, PrimExpr* dividend, int64_t* divisor) {
  const auto* b = atom->as<BinaryNode>();
  if (!b || b->op != op) return false;
  const int64_t* c = asConstInt(b->b);
  if (!c || *c <= 0) return false;
  *dividend = b->a;
  *divisor = *c;
  return true;
}

// Whether x - y is a multiple of c term by term (then x % c == y % c): the simplifier may have
// reduced the remainder's dividend modulo c (`(f * 16 + i) % 12` becomes `(f * 4 + i) % 12`).
bool congruentModulo(const PrimExpr& x, const PrimExpr& y, int64_t c) {
  if (deepEqual(x, y)) return true;
  LinearSum diff = toLinear(x);
  diff.addScaled(toLinear(y), -1);
  if (diff.base % c != 0) return false;
  for (const LinearTerm& t : diff.terms)
    if (t.coeff % c != 0) return false;
  return true;
}

// x // c * (c*a) + y % c * a = x * a when y == x (mod c): recovers a fused index from its split
// parts. Also x // (k*c) * (c*a) + (x // k) % c * a = (x // k) * a (floor division by positive
// constants composes): a loop fused from three, split back into its outer two (`f // 28 * 112 +
// f // 4 % 7 * 16` is `f // 4 * 16`), which a tile's accesses must show as one box.
void mergeDivModPairs(LinearSum& sum) {
  for (size_t d = 0; d < sum.terms.size(); ++d) {
    PrimExpr x;
    int64_t c = 0;
    if (!asDivMod(sum.terms[d].atom, BinaryOp::kFloorDiv, &x, &c)) continue;
    for (size_t m = 0; m < sum.terms.size(); ++m) {
      PrimExpr y;
      int64_t c2 = 0;
      if (!asDivMod(sum.terms[m].atom, BinaryOp::kFloorMod, &y, &c2)) continue;
      int64_t a = sum.terms[m].coeff;
      PrimExpr inner;
      int64_t k = 0;
      PrimExpr merged = x;
      if (c2 != c && asDivMod(y, BinaryOp::kFloorDiv, &inner, &k) && k * c2 == c &&
          deepEqual(inner, x)) {
        merged = y;  // x // c == y // c2
      } else if (c2 != c || !congruentModulo(x, y, c)) {
        continue;
      }
      if (sum.terms[d].coeff != a * c2) continue;
      LinearTerm divTerm = sum.terms[d];
      LinearTerm modTerm = sum.terms[m];
      sum.addTerm(divTerm.atom, -divTerm.coeff);
      sum.addTerm(modTerm.atom, -modTerm.coeff);
      sum.addScaled(toLinear(merged), a);
      mergeDivModPairs(sum);  // indices moved; start over (terms only shrink)
      return;
    }
  }
}

// A deterministic order of product factors: compound factors first, then variables by name
// (`(x + 1) * n`, like a coefficient on the right); pointer values never decide, so printed
// output is stable across runs.
bool factorBefore(const PrimExpr& a, const PrimExpr& b) {
  const auto* va = a->as<VarNode>();
  const auto* vb = b->as<VarNode>();
  if (va && vb) return va->name < vb->name;
  return !va && vb;
}

}  // namespace

ConstIntBound CanonicalSimplifier::boundOf(const PrimExpr& e) {
  if (!isIndexType(e)) return computeConstIntBound(e, state_);
  return intersectBounds(boundOfLinear(toLinear(e), state_), computeConstIntBound(e, state_));
}

PrimExpr CanonicalSimplifier::simplify(const PrimExpr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kStringImm:
    case ExprKind::kReduce:  // TE-only; create_prim_func simplifies the pieces it keeps
      return e;
    case ExprKind::kVar: {
      auto it = state_.varValues.find(e->as<VarNode>());
      return it == state_.varValues.end() ? e : it->second;
    }
    case ExprKind::kCast:
      return visitCast(e->as<CastNode>(), e);
    case ExprKind::kBinary:
      return visitBinary(e->as<BinaryNode>(), e);
    case ExprKind::kNot:
      return rewriteNot(simplify(e->as<NotNode>()->a));
    case ExprKind::kSelect: {
      const auto* s = e->as<SelectNode>();
      return rewriteSelect(simplify(s->cond), simplify(s->t), simplify(s->f));
    }
    case ExprKind::kBufferLoad:
      return visitBufferLoad(e->as<BufferLoadNode>(), e);
    case ExprKind::kRamp: {
      const auto* r = e->as<RampNode>();
      PrimExpr base = simplify(r->base);
      PrimExpr stride = simplify(r->stride);
      if (isZero(stride)) return broadcast(base, r->lanes);
      if (base == r->base && stride == r->stride) return e;
      return ramp(base, stride, r->lanes);
    }
    case ExprKind::kBroadcast: {
      const auto* b = e->as<BroadcastNode>();
      PrimExpr value = simplify(b->value);
      return value == b->value ? e : broadcast(value, b->lanes);
    }
    case ExprKind::kLet:
      return visitLet(e->as<LetNode>(), e);
    case ExprKind::kCall:
      return visitCall(e->as<CallNode>(), e);
  }
  return e;
}

PrimExpr CanonicalSimplifier::visitSum(const PrimExpr& self) {
  // One worklist pass over the whole chain of + and - (and products with constants): a sum of n
  // terms costs O(n) and no stack depth, where simplifying it operand by operand would re-read
  // every partial sum (O(n^2)) and recurse n deep.
  struct Pending {
    PrimExpr expr;
    int64_t scale;
  };
  LinearSum out;
  out.dtype = self->dtype;
  std::vector<Pending> work{{self, 1}};
  while (!work.empty()) {
    Pending p = work.back();
    work.pop_back();
    if (p.expr->dtype != out.dtype) return nullptr;  // mixed widths: the caller goes node by node
    const auto* b = p.expr->as<BinaryNode>();
    if (b && (b->op == BinaryOp::kAdd || b->op == BinaryOp::kSub)) {
      work.push_back({b->b, b->op == BinaryOp::kAdd ? p.scale : wrapMul(p.scale, -1)});
      work.push_back({b->a, p.scale});
      continue;
    }
    if (b && b->op == BinaryOp::kMul) {
      const auto* cb = b->b->as<IntImmNode>();
      const auto* ca = b->a->as<IntImmNode>();
      if (cb || ca) {
        work.push_back({cb ? b->a : b->b, wrapMul(p.scale, cb ? cb->value : ca->value)});
        continue;
      }
    }
    out.addScaled(toLinear(simplify(p.expr)), p.scale);
  }
  mergeDivModPairs(out);
  return out.toExpr();
}

PrimExpr CanonicalSimplifier::visitBinary(const BinaryNode* op, const PrimExpr& self) {
  if ((op->op == BinaryOp::kAdd || op->op == BinaryOp::kSub) && isIndexType(self)) {
    if (PrimExpr sum = visitSum(self)) return sum;
  }
  PrimExpr a = simplify(op->a);
  PrimExpr b = simplify(op->b);
  if (a->dtype.lanes() > 1 || b->dtype.lanes() > 1) return rewriteVector(op->op, a, b);
  switch (op->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul:
      return rewriteArith(op->op, a, b);
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      return rewriteDivMod(op->op, a, b);
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return rewriteMinMax(op->op, a, b);
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return rewriteCompare(op->op, a, b);
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
      return rewriteLogic(op->op, a, b);
  }
  return self;
}

PrimExpr CanonicalSimplifier::rewriteArith(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  if (!isIndexType(a) || !isIndexType(b) || a->dtype != b->dtype) return binary(op, a, b);
  LinearSum la = toLinear(a);
  LinearSum lb = toLinear(b);
  if (op == BinaryOp::kAdd || op == BinaryOp::kSub) {
    la.addScaled(lb, op == BinaryOp::kAdd ? 1 : -1);
    mergeDivModPairs(la);
    return la.toExpr();
  }
  // Multiplication distributes a constant over a sum; a product of two non-constant sums stays
  // one atom (with its factors in canonical form).
  if (lb.isConst()) {
    LinearSum out;
    out.dtype = a->dtype;
    out.addScaled(la, lb.base);
    return out.toExpr();
  }
  if (la.isConst()) {
    LinearSum out;
    out.dtype = a->dtype;
    out.addScaled(lb, la.base);
    return out.toExpr();
  }
  // Commutative factors in a fixed order, so that x * y and y * x merge as one atom.
  if (factorBefore(b, a)) return mul(b, a);
  return mul(a, b);
}

PrimExpr CanonicalSimplifier::visitCast(const CastNode* op, const PrimExpr& self) {
  PrimExpr value = simplify(op->value);
  if (value->dtype == op->dtype) return value;
  if (const auto* i = value->as<IntImmNode>()) {
    if (op->dtype.isBool()) return intImm(i->value != 0, op->dtype);
    if (op->dtype.isInteger() && op->dtype.lanes() == 1) {
      // Wrap to the target width, as the generated code would.
      int bits = op->dtype.bits();
      if (bits >= 64) return intImm(i->value, op->dtype);
      uint64_t mask = (uint64_t{1} << bits) - 1;
      uint64_t u = static_cast<uint64_t>(i->value) & mask;
      int64_t v = static_cast<int64_t>(u);
      if (op->dtype.isInt() && (u >> (bits - 1)) != 0) v = static_cast<int64_t>(u | ~mask);
      return intImm(v, op->dtype);
    }
  }
  if (value == op->value) return self;
  return cast(op->dtype, value);
}

PrimExpr CanonicalSimplifier::visitLet(const LetNode* op, const PrimExpr& self) {
  PrimExpr value = simplify(op->value);
  // A constant or a variable is cheaper to substitute than to bind.
  if (value->as<IntImmNode>() || value->as<VarNode>() || value->as<FloatImmNode>()) {
    state_.varValues[op->var.get()] = value;
    PrimExpr body = simplify(op->body);
    state_.varValues.erase(op->var.get());
    return body;
  }
  bool hadBound = state_.varBounds.count(op->var.get()) != 0;
  ConstIntBound saved = hadBound ? state_.varBounds[op->var.get()] : ConstIntBound{};
  state_.varBounds[op->var.get()] = boundOf(value);
  PrimExpr body = simplify(op->body);
  if (hadBound)
    state_.varBounds[op->var.get()] = saved;
  else
    state_.varBounds.erase(op->var.get());
  if (!usesVar(body, op->var.get())) return body;
  if (value == op->value && body == op->body) return self;
  return let(op->var, value, body);
}

PrimExpr CanonicalSimplifier::visitCall(const CallNode* op, const PrimExpr& self) {
  bool changed = false;
  std::vector<PrimExpr> args;
  args.reserve(op->args.size());
  for (const PrimExpr& a : op->args) {
    args.push_back(simplify(a));
    changed |= args.back() != a;
  }
  if (op->op == "tir.if_then_else" && args.size() == 3) {
    int known = lookupCondition(args[0]);
    if (const auto* c = args[0]->as<IntImmNode>()) known = c->value != 0;
    if (known == 1) return args[1];
    if (known == 0) return args[2];
  }
  if (!changed) return self;
  return call(op->dtype, op->op, std::move(args));
}

PrimExpr CanonicalSimplifier::visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) {
  bool changed = false;
  std::vector<PrimExpr> indices;
  indices.reserve(op->indices.size());
  for (const PrimExpr& i : op->indices) {
    indices.push_back(simplify(i));
    changed |= indices.back() != i;
  }
  if (!changed) return self;
  return std::make_shared<BufferLoadNode>(op->dtype, op->buffer, std::move(indices));
}

}  // namespace tessera::tir::arith
