// Reductions. Integer mean divides the wrapped sum with truncation; argmax/argmin use a
// tuple-valued reducer (index, value) whose identity index -1 makes the first element win.
#include "topi/reduction.h"

#include "support/diagnostic.h"

namespace tessera::topi {

std::vector<bool> reducedAxes(const ReduceSpec& spec, int rank, const std::string& op) {
  if (!spec.axis || spec.axis->empty()) return std::vector<bool>(static_cast<size_t>(rank), true);
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  for (int64_t a : *spec.axis) {
    const int k = normalizeAxis(a, rank, op);
    if (mask[static_cast<size_t>(k)])
      throwDiagnostic("topi_axis", op + ": axis " + std::to_string(a) + " is listed twice");
    mask[static_cast<size_t>(k)] = true;
  }
  if (spec.exclude) mask.flip();
  return mask;
}

namespace {

// (index, value) argmax/argmin reducer. `last` prefers the later element on ties.
te::CommReducerFn argReducer(bool isMax, bool last) {
  return te::commReducer(
      [isMax, last](const std::vector<Var>& x, const std::vector<Var>& y) {
        PrimExpr better = isMax ? tir::gt(y[1], x[1]) : tir::lt(y[1], x[1]);
        if (last) better = tir::logicalOr(better, tir::eq(y[1], x[1]));
        PrimExpr take = tir::logicalOr(tir::lt(x[0], tir::intImm(0)), better);
        return std::vector<PrimExpr>{tir::select(take, y[0], x[0]), tir::select(take, y[1], x[1])};
      },
      [isMax](const std::vector<DataType>& t) {
        return std::vector<PrimExpr>{tir::intImm(-1),
                                     isMax ? tir::minValue(t[1]) : tir::maxValue(t[1])};
      },
      isMax ? "argmax" : "argmin");
}

}  // namespace

Tensor reduce(ReduceKind kind, const Tensor& x, const ReduceSpec& spec) {
  const std::string op = x.name() + "_red";
  const int rank = x.ndim();
  const std::vector<bool> mask = reducedAxes(spec, rank, op);
  std::vector<PrimExpr> outShape;
  std::vector<IterVar> raxes;
  for (int k = 0; k < rank; ++k) {
    if (!mask[static_cast<size_t>(k)]) {
      outShape.push_back(x.shape()[static_cast<size_t>(k)]);
      continue;
    }
    if (spec.keepdims) outShape.push_back(tir::intImm(1));
    raxes.push_back(te::reduceAxis(tir::Range{tir::intImm(0), x.shape()[static_cast<size_t>(k)]},
                                   "k" + std::to_string(raxes.size())));
  }
  // Input index from output indices and reduce vars.
  auto inputIndex = [&](const std::vector<Var>& out) {
    std::vector<PrimExpr> idx;
    size_t o = 0, r = 0;
    for (int k = 0; k < rank; ++k) {
      if (mask[static_cast<size_t>(k)]) {
        idx.push_back(raxes[r++].var);
        if (spec.keepdims) ++o;
      } else {
        idx.push_back(out[o++]);
      }
    }
    return idx;
  };
  const DataType t = x.dtype();
  te::ComputeOptions options{
      .name = op, .tag = "comm_reduce", .indexNames = axisNames(outShape.size())};
  if (kind == ReduceKind::kArgMax || kind == ReduceKind::kArgMin) {
    // The flat position among the reduced elements, row-major over the reduced axes.
    auto reducer = argReducer(kind == ReduceKind::kArgMax, spec.selectLastIndex);
    std::vector<Tensor> outs = te::computeMulti(
        outShape,
        [&](const std::vector<Var>& out) {
          PrimExpr flat = tir::intImm(0);
          for (size_t r = 0; r < raxes.size(); ++r) {
            const PrimExpr& extent = raxes[r].dom.extent;
            const int64_t* known = tir::asConstInt(extent);
            flat = addIdx(known ? mulIdx(flat, *known) : flat * tir::cast(flat->dtype, extent),
                          raxes[r].var);
          }
          return reducer({flat, x(inputIndex(out))}, raxes);
        },
        options);
    return outs[0];
  }
  Tensor red = te::compute(
      outShape,
      [&](const std::vector<Var>& out) {
        PrimExpr v = x(inputIndex(out));
        switch (kind) {
          case ReduceKind::kMax:
            return te::max(v, raxes);
          case ReduceKind::kMin:
            return te::min(v, raxes);
          case ReduceKind::kProd:
            return te::prod(v, raxes);
          default:
            return te::sum(v, raxes);
        }
      },
      options);
  if (kind != ReduceKind::kMean) return red;
  // The element count: a constant, or (over `?` extents, known when the kernel runs) their product.
  int64_t count = 1;
  PrimExpr symbolicCount;
  for (const IterVar& r : raxes) {
    if (const int64_t* known = tir::asConstInt(r.dom.extent)) {
      count *= *known;
      continue;
    }
    const PrimExpr extent = tir::cast(DataType::int32(), r.dom.extent);
    symbolicCount = symbolicCount ? symbolicCount * extent : extent;
  }
  return te::compute(
      outShape,
      [&](const std::vector<Var>& out) {
        PrimExpr s = red(std::vector<PrimExpr>(out.begin(), out.end()));
        if (symbolicCount) {
          const PrimExpr n = tir::cast(t, symbolicCount * tir::intImm(count));
          return tir::truncdiv(s, n);
        }
        if (count == 0) return t.isFloat() ? tir::truncdiv(s, constOf(t, 0)) : constOf(t, 0);
        return tir::truncdiv(s, constOf(t, static_cast<double>(count)));
      },
      te::ComputeOptions{
          .name = "T_divide", .tag = "elemwise", .indexNames = axisNames(outShape.size())});
}

}  // namespace tessera::topi
