// The int8 batch_matmul compute (topi/batch_matmul_int8.h): B packed at compile time or inside the
// kernel, A repacked to uint8 groups of 4, the 16 x 4 byte products and the compensated output.
#include "topi/batch_matmul_int8.h"

#include <cstring>

#include "support/check.h"
#include "support/diagnostic.h"
#include "topi/nn_int8.h"

namespace tessera::topi {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Rows of the accumulators: M, or M rounded up to whole tiles of 8 when it has no divisor from 4
// to 8 (197 tokens: a prime), which would leave the schedule tiles of too few rows.
int64_t accumulatorRows(int64_t m) {
  if (m <= kInt8BatchRows) return m;
  for (int64_t d = kInt8BatchRows; d >= kInt8BatchRows / 2; --d)
    if (m % d == 0) return m;
  return ceilDiv(m, kInt8BatchRows) * kInt8BatchRows;
}

// A batch index into an operand of `extent` batches: 0 when it is broadcast.
PrimExpr batchOf(const PrimExpr& b, int64_t extent) {
  return extent == 1 ? tir::intImm(0, b->dtype) : b;
}

// The compensation of lane `lane` of block `block` in a packed constant: the int32 in row `row`,
// as packInt8Weight writes it.
PrimExpr packedCompensation(const Tensor& packed, const PrimExpr& batch, const PrimExpr& block,
                            const PrimExpr& lane, int64_t row) {
  return int32FromBytes(
      [&](int64_t k) { return packed(batch, block, tir::intImm(row), lane, tir::intImm(k)); });
}

}  // namespace

NDArray packInt8BatchWeight(const NDArray& b, bool transposed) {
  const std::vector<int64_t>& s = b.shape();
  TS_CHECK(b.dtype() == DataType::int8() && s.size() == 3 && s[1] > 0 && s[2] > 0)
      << "packInt8BatchWeight: needs an int8 (batch, K, N) or (batch, N, K) operand";
  const int64_t n = transposed ? s[1] : s[2], k = transposed ? s[2] : s[1];
  const auto* src = static_cast<const int8_t*>(b.data());
  NDArray packed = NDArray::empty(
      {s[0], ceilDiv(n, kInt8Lanes), ceilDiv(k, kInt8Depth) + 1, kInt8Lanes, kInt8Depth},
      b.dtype());
  const size_t perBatch = packed.nbytes() / static_cast<size_t>(s[0]);
  NDArray matrix = NDArray::empty({n, k}, b.dtype());  // B[batch] as (N, K)
  auto* m = static_cast<int8_t*>(matrix.data());
  for (int64_t batch = 0; batch < s[0]; ++batch) {
    const int8_t* from = src + batch * n * k;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t t = 0; t < k; ++t) m[j * k + t] = transposed ? from[j * k + t] : from[t * n + j];
    // (N/16, K/4 + 1, 1, 1, 16, 4) is the same bytes as one batch of (N/16, K/4 + 1, 16, 4).
    const NDArray one = packInt8Weight(matrix);
    TS_CHECK(one.nbytes() == perBatch) << "packInt8BatchWeight: unexpected packing";
    std::memcpy(static_cast<int8_t*>(packed.data()) + batch * perBatch, one.data(), perBatch);
  }
  return packed;
}

Tensor batchMatmulInt8(const Tensor& a, const Tensor& b, bool transposeA, bool transposeB,
                       int64_t columns) {
  const std::string op = "batch_matmul_int8";
  if ((a.dtype() != DataType::int8() && a.dtype() != DataType::uint8()) ||
      b.dtype() != DataType::int8())
    throwDiagnostic("topi_int8", op + ": needs int8 or uint8 x int8 operands, found " +
                                     a.dtype().name() + " and " + b.dtype().name());
  const bool prepacked = b.ndim() == 5;
  const std::vector<int64_t> as = constShape(a, op), bs = constShape(b, op);
  if (as.size() != 3 || (bs.size() != 3 && !prepacked))
    throwDiagnostic("topi_int8", op + ": needs 3-D operands or a packed B");
  const int64_t m = transposeA ? as[2] : as[1], k = transposeA ? as[1] : as[2];
  const int64_t groups = ceilDiv(k, kInt8Depth);
  const int64_t n = prepacked ? columns : (transposeB ? bs[1] : bs[2]);
  const int64_t blocks = ceilDiv(n, kInt8Lanes);
  if (prepacked
          ? (bs[1] != blocks || bs[2] != groups + 1 || bs[3] != kInt8Lanes || bs[4] != kInt8Depth)
          : (transposeB ? bs[2] : bs[1]) != k)
    throwDiagnostic("topi_int8", op + ": the operands' reduction extents differ");
  if (as[0] != bs[0] && as[0] != 1 && bs[0] != 1)
    throwDiagnostic("topi_int8", op + ": the batch extents differ and neither is 1");
  const int64_t batch = std::max(as[0], bs[0]);
  const int64_t mp = accumulatorRows(m);
  const int64_t shift = a.dtype() == DataType::int8() ? 128 : 0;
  const DataType i32 = DataType::int32();

  // Reduction elements past K read 0 from B, A's value there does not matter; rows past M (of
  // accumulators no output reads) read 0.
  Tensor aU8 = te::compute(
      shapeOf({as[0], mp, groups, kInt8Depth}),
      [&](Var bi, Var i, Var c, Var kk) -> PrimExpr {
        PrimExpr t = addIdx(mulIdx(c, kInt8Depth), kk);
        PrimExpr v = transposeA ? a(bi, t, i) : a(bi, i, t);
        if (shift != 0) v = tir::cast(DataType::uint8(), tir::cast(i32, v) + shift);
        PrimExpr inside;
        if (k % kInt8Depth != 0) inside = tir::lt(t, tir::intImm(k));
        if (mp != m) {
          PrimExpr row = tir::lt(i, tir::intImm(m));
          inside = inside ? tir::logicalAnd(inside, row) : row;
        }
        if (!inside) return v;
        return tir::ifThenElse(inside, v, tir::intImm(0, DataType::uint8()));
      },
      te::ComputeOptions{.name = "a_u8", .tag = "injective,pad"});

  Tensor packed = b;
  std::optional<Tensor> sums;  // the run-time B's column sums (int8 A only)
  if (!prepacked) {
    packed = te::compute(
        shapeOf({bs[0], blocks, groups, kInt8Lanes, kInt8Depth}),
        [&](Var bi, Var j, Var c, Var lane, Var kk) -> PrimExpr {
          PrimExpr col = addIdx(mulIdx(j, kInt8Lanes), lane);
          PrimExpr t = addIdx(mulIdx(c, kInt8Depth), kk);
          PrimExpr v = transposeB ? b(bi, col, t) : b(bi, t, col);
          PrimExpr inside;
          if (n % kInt8Lanes != 0) inside = tir::lt(col, tir::intImm(n));
          if (k % kInt8Depth != 0) {
            PrimExpr inK = tir::lt(t, tir::intImm(k));
            inside = inside ? tir::logicalAnd(inside, inK) : inK;
          }
          if (!inside) return v;
          return tir::ifThenElse(inside, v, tir::intImm(0, DataType::int8()));
        },
        te::ComputeOptions{.name = "b_s8", .tag = "injective,pad"});
    if (shift != 0) {
      IterVar sc = te::reduceAxis(0, groups, "sc");
      IterVar sk = te::reduceAxis(0, kInt8Depth, "sk");
      sums = te::compute(
          shapeOf({bs[0], blocks, kInt8Lanes}),
          [&](Var bi, Var j, Var lane) {
            return te::sum(tir::cast(i32, packed(bi, j, sc.var, lane, sk.var)), {sc, sk});
          },
          te::ComputeOptions{.name = "b_compensation", .tag = "b_compensation"});
    }
  }

  IterVar rc = te::reduceAxis(0, groups, "rc");
  IterVar rk = te::reduceAxis(0, kInt8Depth, "rk");
  Tensor acc = te::compute(
      shapeOf({batch, mp, blocks, kInt8Lanes}),
      [&](Var bi, Var i, Var j, Var lane) {
        return te::sum(tir::cast(i32, aU8(batchOf(bi, as[0]), i, rc.var, rk.var)) *
                           tir::cast(i32, packed(batchOf(bi, bs[0]), j, rc.var, lane, rk.var)),
                       {rc, rk});
      },
      te::ComputeOptions{.name = op, .tag = op, .indexNames = {"b", "i", "jo", "lane"}});
  return te::compute(
      shapeOf({batch, m, n}),
      [&](Var bi, Var i, Var j) -> PrimExpr {
        PrimExpr block = tir::floordiv(j, tir::intImm(kInt8Lanes, j->dtype));
        PrimExpr lane = tir::floormod(j, tir::intImm(kInt8Lanes, j->dtype));
        PrimExpr v = acc(bi, i, block, lane);
        if (shift == 0) return v;
        PrimExpr bb = batchOf(bi, bs[0]);
        if (prepacked) return v + packedCompensation(b, bb, block, lane, groups);
        return v - (*sums)(bb, block, lane) * shift;
      },
      te::ComputeOptions{
          .name = "T_batch_matmul_int8", .tag = "injective", .indexNames = {"b", "i", "j"}});
}

}  // namespace tessera::topi
