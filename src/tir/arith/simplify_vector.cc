// Vector rules: arithmetic on Ramp and Broadcast stays a Ramp or Broadcast (what VectorizeLoop
// produces and codegen turns into contiguous loads), and a Ramp divided by a constant whose
// lanes all fall in one block becomes a Broadcast (`ramp(x*8, 1, 8) // 8 -> x8(x)`).
#include "tir/arith/canonical_simplify.h"
#include "tir/arith/const_int_bound.h"
#include "tir/arith/int_math.h"

namespace tessera::tir::arith {

PrimExpr CanonicalSimplifier::rewriteVector(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  const auto* ba = a->as<BroadcastNode>();
  const auto* bb = b->as<BroadcastNode>();
  const auto* ra = a->as<RampNode>();
  const auto* rb = b->as<RampNode>();
  auto scalar = [&](BinaryOp o, const PrimExpr& x, const PrimExpr& y) {
    return simplify(binary(o, x, y));
  };
  if (ba && bb && ba->lanes == bb->lanes)
    return broadcast(scalar(op, ba->value, bb->value), ba->lanes);
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub: {
      if (ra && rb && ra->lanes == rb->lanes) {
        PrimExpr stride = scalar(op, ra->stride, rb->stride);
        PrimExpr base = scalar(op, ra->base, rb->base);
        return isZero(stride) ? broadcast(base, ra->lanes) : ramp(base, stride, ra->lanes);
      }
      if (ra && bb && ra->lanes == bb->lanes)
        return ramp(scalar(op, ra->base, bb->value), ra->stride, ra->lanes);
      if (ba && rb && ba->lanes == rb->lanes) {
        PrimExpr stride = op == BinaryOp::kAdd
                              ? rb->stride
                              : scalar(BinaryOp::kSub, intImm(0, rb->stride->dtype), rb->stride);
        return ramp(scalar(op, ba->value, rb->base), stride, rb->lanes);
      }
      break;
    }
    case BinaryOp::kMul: {
      if (ra && bb && ra->lanes == bb->lanes)
        return ramp(scalar(op, ra->base, bb->value), scalar(op, ra->stride, bb->value), ra->lanes);
      if (ba && rb && ba->lanes == rb->lanes)
        return ramp(scalar(op, ba->value, rb->base), scalar(op, ba->value, rb->stride), rb->lanes);
      break;
    }
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      if (!ra || !bb || ra->lanes != bb->lanes) break;
      const int64_t* c = asConstInt(bb->value);
      const int64_t* s = asConstInt(ra->stride);
      if (!c || *c <= 0 || !s || *s < 0 || !isIndexType(ra->base)) break;
      // Lanes base .. base + s*(lanes-1) share one block of c when base % c + s*(lanes-1) < c.
      PrimExpr offset = scalar(BinaryOp::kFloorMod, ra->base, bb->value);
      if (boundAdd(boundOf(offset).max, *s * (ra->lanes - 1)) >= *c) break;
      if (op == BinaryOp::kFloorDiv)
        return broadcast(scalar(BinaryOp::kFloorDiv, ra->base, bb->value), ra->lanes);
      return ramp(offset, ra->stride, ra->lanes);
    }
    default:
      break;
  }
  return binary(op, a, b);
}

}  // namespace tessera::tir::arith
