// matmul, dense and batch_matmul. Products are cast to the output dtype before summing; the
// reduce axis is `k`; the right operand is a layout-free placeholder (a schedule may pre-pack it).
#include "support/diagnostic.h"
#include "topi/nn.h"

namespace tessera::topi {

Tensor matmul(const Tensor& a, const Tensor& b, bool transposeA, bool transposeB,
              DataType outDtype) {
  if (a.ndim() < 2 || b.ndim() < 2)
    throwDiagnostic("topi_matmul", "matmul: both operands need rank >= 2");
  if (outDtype.isVoid()) outDtype = a.dtype();
  const size_t ra = a.shape().size(), rb = b.shape().size();
  const PrimExpr& m = transposeA ? a.shape()[ra - 1] : a.shape()[ra - 2];
  const PrimExpr& ka = transposeA ? a.shape()[ra - 2] : a.shape()[ra - 1];
  const PrimExpr& kb = transposeB ? b.shape()[rb - 1] : b.shape()[rb - 2];
  const PrimExpr& n = transposeB ? b.shape()[rb - 2] : b.shape()[rb - 1];
  const int64_t* cka = tir::asConstInt(ka);
  const int64_t* ckb = tir::asConstInt(kb);
  if (cka && ckb && *cka != *ckb)
    throwDiagnostic("topi_matmul", "matmul: reduction extents " + std::to_string(*cka) + " and " +
                                       std::to_string(*ckb) + " differ");
  // Batch dims (all but the last two) broadcast numpy-style.
  std::vector<PrimExpr> batchA(a.shape().begin(), a.shape().end() - 2);
  std::vector<PrimExpr> batchB(b.shape().begin(), b.shape().end() - 2);
  std::vector<PrimExpr> shape = broadcastShape(batchA, batchB, "matmul");
  const size_t nb = shape.size();
  shape.push_back(m);
  shape.push_back(n);
  IterVar k = te::reduceAxis(tir::Range{tir::intImm(0, ka->dtype), ka}, "k");
  const std::string name =
      std::string("T_matmul_") + (transposeA ? "T" : "N") + (transposeB ? "T" : "N");
  // Index of an operand's batch dims from the output's (size-1 dims read 0).
  auto batchIndex = [&](const Tensor& t, const std::vector<Var>& i, size_t rank) {
    std::vector<PrimExpr> idx;
    for (size_t d = 0; d + 2 < rank; ++d) {
      const Var& v = i[nb - (rank - 2) + d];
      idx.push_back(tir::isOne(t.shape()[d]) && !tir::isOne(shape[nb - (rank - 2) + d])
                        ? tir::intImm(0)
                        : PrimExpr(v));
    }
    return idx;
  };
  std::vector<std::string> names = axisNames(shape.size(), "i");
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> ia = batchIndex(a, i, ra), ib = batchIndex(b, i, rb);
        const Var& row = i[nb];
        const Var& col = i[nb + 1];
        if (transposeA) {
          ia.push_back(k.var);
          ia.push_back(row);
        } else {
          ia.push_back(row);
          ia.push_back(k.var);
        }
        if (transposeB) {
          ib.push_back(col);
          ib.push_back(k.var);
        } else {
          ib.push_back(k.var);
          ib.push_back(col);
        }
        return te::sum(tir::cast(outDtype, a(ia)) * tir::cast(outDtype, b(ib)), {k});
      },
      te::ComputeOptions{.name = name,
                         .tag = transposeB && !transposeA ? "dense" : "matmul",
                         .layoutFreePlaceholders = {b},
                         .indexNames = names});
}

Tensor dense(const Tensor& data, const Tensor& weight, DataType outDtype) {
  if (weight.ndim() == 4 && data.ndim() == 4) return denseBlocked(data, weight, outDtype);
  if (weight.ndim() != 2) throwDiagnostic("topi_dense", "dense: the weight must be 2-D");
  if (data.ndim() >= 2) return matmul(data, weight, false, true, outDtype);
  if (data.ndim() != 1) throwDiagnostic("topi_dense", "dense: the data must have rank >= 1");
  // Rank-1 data, which the type relation accepts ((K) x (N, K) -> (N)): a vector-matrix product.
  if (outDtype.isVoid()) outDtype = data.dtype();
  const PrimExpr& kExtent = weight.shape()[1];
  IterVar k = te::reduceAxis(tir::Range{tir::intImm(0, kExtent->dtype), kExtent}, "k");
  return te::compute(
      std::vector<PrimExpr>{weight.shape()[0]},
      [&](const std::vector<Var>& i) {
        return te::sum(tir::cast(outDtype, data({PrimExpr(k.var)})) *
                           tir::cast(outDtype, weight({PrimExpr(i[0]), PrimExpr(k.var)})),
                       {k});
      },
      te::ComputeOptions{.name = "T_matmul_NT",
                         .tag = "matmul",
                         .layoutFreePlaceholders = {weight},
                         .indexNames = axisNames(1, "i")});
}

// TVM's dense_packed: the blocked operands of VTA's packed dense layers, reduced over the K blocks
// and the lanes of each block.
Tensor denseBlocked(const Tensor& data, const Tensor& weight, DataType outDtype,
                    const std::string& name) {
  if (data.ndim() != 4 || weight.ndim() != 4)
    throwDiagnostic("topi_dense", "blocked dense: data and weight must both be 4-D");
  if (outDtype.isVoid()) outDtype = data.dtype();
  const std::vector<PrimExpr>& d = data.shape();
  const std::vector<PrimExpr>& w = weight.shape();
  IterVar ko = te::reduceAxis(tir::Range{tir::intImm(0, d[1]->dtype), d[1]}, "ko");
  IterVar ki = te::reduceAxis(tir::Range{tir::intImm(0, d[3]->dtype), d[3]}, "ki");
  return te::compute(
      std::vector<PrimExpr>{d[0], w[0], d[2], w[2]},
      [&](const std::vector<Var>& i) {
        const PrimExpr x =
            data({PrimExpr(i[0]), PrimExpr(ko.var), PrimExpr(i[2]), PrimExpr(ki.var)});
        const PrimExpr y =
            weight({PrimExpr(i[1]), PrimExpr(ko.var), PrimExpr(i[3]), PrimExpr(ki.var)});
        return te::sum(tir::cast(outDtype, x) * tir::cast(outDtype, y), {ko, ki});
      },
      te::ComputeOptions{
          .name = name, .tag = "dense_pack", .indexNames = {"b_o", "c_o", "b_i", "c_i"}});
}

Tensor batchMatmul(const Tensor& a, const Tensor& b, bool transposeA, bool transposeB,
                   DataType outDtype) {
  if (a.ndim() != 3 || b.ndim() != 3)
    throwDiagnostic("topi_matmul", "batch_matmul: both operands must be 3-D");
  Tensor out = matmul(a, b, transposeA, transposeB, outDtype);
  return out;
}

}  // namespace tessera::topi
