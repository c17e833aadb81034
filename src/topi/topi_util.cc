// Shared TOPI helpers.
#include "topi/topi_util.h"

#include "support/diagnostic.h"

namespace tessera::topi {

int64_t constDim(const PrimExpr& dim, const std::string& op) {
  const int64_t* v = tir::asConstInt(dim);
  if (!v) throwDiagnostic("topi_dynamic", op + ": symbolic extents are not supported");
  return *v;
}

std::vector<int64_t> constShape(const Tensor& t, const std::string& op) {
  std::vector<int64_t> out;
  for (const PrimExpr& d : t.shape()) out.push_back(constDim(d, op));
  return out;
}

std::vector<PrimExpr> shapeOf(const std::vector<int64_t>& dims) {
  std::vector<PrimExpr> out;
  for (int64_t d : dims) out.push_back(tir::intImm(d));
  return out;
}

PrimExpr addIdx(const PrimExpr& a, int64_t b) {
  return b == 0 ? a : tir::add(a, tir::intImm(b, a->dtype));
}
PrimExpr mulIdx(const PrimExpr& a, int64_t b) {
  return b == 1 ? a : tir::mul(a, tir::intImm(b, a->dtype));
}
PrimExpr addIdx(const PrimExpr& a, const PrimExpr& b) {
  if (tir::isZero(b)) return a;
  if (tir::isZero(a)) return b;
  return tir::add(a, b);
}

int normalizeAxis(int64_t axis, int rank, const std::string& op) {
  const int64_t k = axis < 0 ? axis + rank : axis;
  if (k < 0 || k >= rank)
    throwDiagnostic("topi_axis", op + ": axis " + std::to_string(axis) +
                                     " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(k);
}

std::vector<PrimExpr> broadcastShape(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b,
                                     const std::string& op) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const PrimExpr* da = k + a.size() >= rank ? &a[k + a.size() - rank] : nullptr;
    const PrimExpr* db = k + b.size() >= rank ? &b[k + b.size() - rank] : nullptr;
    if (!da || tir::isOne(*da)) {
      out[k] = db ? *db : *da;
    } else if (!db || tir::isOne(*db) || tir::deepEqual(*da, *db)) {
      out[k] = *da;
    } else {
      const int64_t* ca = tir::asConstInt(*da);
      const int64_t* cb = tir::asConstInt(*db);
      if (ca && cb)
        throwDiagnostic("topi_broadcast", op + ": extents " + std::to_string(*ca) + " and " +
                                              std::to_string(*cb) + " do not broadcast");
      out[k] = *da;  // symbolic extents are assumed equal, as TVM does
    }
  }
  return out;
}

std::vector<PrimExpr> broadcastIndex(const Tensor& t, const std::vector<PrimExpr>& outShape,
                                     const std::vector<Var>& out) {
  const size_t rank = t.shape().size();
  std::vector<PrimExpr> idx;
  for (size_t k = 0; k < rank; ++k) {
    const Var& v = out[out.size() - rank + k];
    if (tir::isOne(t.shape()[k]) && !tir::isOne(outShape[out.size() - rank + k]))
      idx.push_back(tir::intImm(0, v->dtype));
    else
      idx.push_back(v);
  }
  return idx;
}

std::vector<std::string> axisNames(size_t rank, const std::string& prefix) {
  std::vector<std::string> out;
  for (size_t k = 0; k < rank; ++k) out.push_back(prefix + std::to_string(k));
  return out;
}

PrimExpr constOf(DataType t, double value) {
  return tir::makeConst(t, value);
}

}  // namespace tessera::topi
