// Pooling. Window taps outside the input read the dtype's lowest value (max) or 0 (average)
// through a lazy if_then_else; average pooling divides by the count of taps the reference counts
// (inside the padding with count_include_pad, else inside the data), computed by its own stage.
#include "ir/layout.h"
#include "support/diagnostic.h"
#include "topi/nn.h"

namespace tessera::topi {
namespace {

struct PoolGeometry {
  int hAxis = 2, wAxis = 3;
  int64_t h = 0, w = 0, oh = 0, ow = 0;
  std::vector<PrimExpr> outShape;
};

PoolGeometry geometry(const Tensor& data, const Pool2DParams& p, const std::string& op) {
  std::optional<Layout> layout = Layout::parse(p.layout);
  if (!layout || layout->indexOf('H') < 0 || layout->indexOf('W') < 0 ||
      layout->ndim() != data.ndim())
    throwDiagnostic("topi_pool", op + ": layout " + p.layout + " does not fit the data");
  PoolGeometry g;
  g.hAxis = layout->indexOf('H');
  g.wAxis = layout->indexOf('W');
  g.h = constDim(data.shape()[static_cast<size_t>(g.hAxis)], op);
  g.w = constDim(data.shape()[static_cast<size_t>(g.wAxis)], op);
  auto extent = [&](int64_t in, int64_t padTotal, int64_t k, int64_t s, int64_t d) {
    const int64_t span = (k - 1) * d + 1;
    const int64_t num = in + padTotal - span + (p.ceilMode ? s - 1 : 0);
    if (num < 0) throwDiagnostic("topi_pool", op + ": the window exceeds the padded input");
    return num / s + 1;
  };
  g.oh = extent(g.h, p.padding[0] + p.padding[2], p.poolSize[0], p.strides[0], p.dilation[0]);
  g.ow = extent(g.w, p.padding[1] + p.padding[3], p.poolSize[1], p.strides[1], p.dilation[1]);
  g.outShape = data.shape();
  g.outShape[static_cast<size_t>(g.hAxis)] = tir::intImm(g.oh);
  g.outShape[static_cast<size_t>(g.wAxis)] = tir::intImm(g.ow);
  return g;
}

// The input row/column of a tap and whether it lies inside the data; `inside` is null when no
// tap of the pool can fall outside.
struct Tap {
  std::vector<PrimExpr> idx;
  PrimExpr inside;
};

Tap tapOf(const std::vector<Var>& o, const IterVar& ry, const IterVar& rx, const Pool2DParams& p,
          const PoolGeometry& g) {
  Tap t;
  t.idx = std::vector<PrimExpr>(o.begin(), o.end());
  PrimExpr row = addIdx(
      addIdx(mulIdx(o[static_cast<size_t>(g.hAxis)], p.strides[0]), mulIdx(ry.var, p.dilation[0])),
      -p.padding[0]);
  PrimExpr col = addIdx(
      addIdx(mulIdx(o[static_cast<size_t>(g.wAxis)], p.strides[1]), mulIdx(rx.var, p.dilation[1])),
      -p.padding[1]);
  t.idx[static_cast<size_t>(g.hAxis)] = row;
  t.idx[static_cast<size_t>(g.wAxis)] = col;
  auto require = [&](PrimExpr c) { t.inside = t.inside ? tir::logicalAnd(t.inside, c) : c; };
  const int64_t lastRow =
      (g.oh - 1) * p.strides[0] + (p.poolSize[0] - 1) * p.dilation[0] - p.padding[0];
  const int64_t lastCol =
      (g.ow - 1) * p.strides[1] + (p.poolSize[1] - 1) * p.dilation[1] - p.padding[1];
  if (p.padding[0] > 0) require(tir::ge(row, tir::intImm(0)));
  if (lastRow >= g.h) require(tir::lt(row, tir::intImm(g.h)));
  if (p.padding[1] > 0) require(tir::ge(col, tir::intImm(0)));
  if (lastCol >= g.w) require(tir::lt(col, tir::intImm(g.w)));
  return t;
}

}  // namespace

Tensor maxPool2d(const Tensor& data, const Pool2DParams& p) {
  const PoolGeometry g = geometry(data, p, "max_pool2d");
  IterVar ry = te::reduceAxis(0, p.poolSize[0], "rv0");
  IterVar rx = te::reduceAxis(0, p.poolSize[1], "rv1");
  return te::compute(
      g.outShape,
      [&](const std::vector<Var>& o) {
        Tap t = tapOf(o, ry, rx, p, g);
        PrimExpr v = data(t.idx);
        if (t.inside) v = tir::ifThenElse(t.inside, v, tir::minValue(data.dtype()));
        return te::max(v, {ry, rx});
      },
      te::ComputeOptions{
          .name = "pool_max", .tag = "pool_max", .indexNames = axisNames(g.outShape.size())});
}

Tensor avgPool2d(const Tensor& data, const Pool2DParams& p) {
  const PoolGeometry g = geometry(data, p, "avg_pool2d");
  IterVar ry = te::reduceAxis(0, p.poolSize[0], "rv0");
  IterVar rx = te::reduceAxis(0, p.poolSize[1], "rv1");
  const DataType t = data.dtype();
  Tensor sum = te::compute(
      g.outShape,
      [&](const std::vector<Var>& o) {
        Tap tap = tapOf(o, ry, rx, p, g);
        PrimExpr v = data(tap.idx);
        if (tap.inside) v = tir::ifThenElse(tap.inside, v, constOf(t, 0));
        return te::sum(v, {ry, rx});
      },
      te::ComputeOptions{
          .name = "pool_sum", .tag = "pool_sum", .indexNames = axisNames(g.outShape.size())});
  // Per output position (oh, ow): the number of taps the divisor counts.
  IterVar cy = te::reduceAxis(0, p.poolSize[0], "rv0");
  IterVar cx = te::reduceAxis(0, p.poolSize[1], "rv1");
  Tensor count = te::compute(
      shapeOf({g.oh, g.ow}),
      [&](Var y, Var x) {
        PrimExpr row =
            addIdx(addIdx(mulIdx(y, p.strides[0]), mulIdx(cy.var, p.dilation[0])), -p.padding[0]);
        PrimExpr col =
            addIdx(addIdx(mulIdx(x, p.strides[1]), mulIdx(cx.var, p.dilation[1])), -p.padding[1]);
        PrimExpr counted = p.countIncludePad
                               ? tir::logicalAnd(tir::lt(row, tir::intImm(g.h + p.padding[2])),
                                                 tir::lt(col, tir::intImm(g.w + p.padding[3])))
                               : tir::logicalAnd(tir::logicalAnd(tir::ge(row, tir::intImm(0)),
                                                                 tir::lt(row, tir::intImm(g.h))),
                                                 tir::logicalAnd(tir::ge(col, tir::intImm(0)),
                                                                 tir::lt(col, tir::intImm(g.w))));
        return te::sum(tir::select(counted, tir::intImm(1), tir::intImm(0)), {cy, cx});
      },
      te::ComputeOptions{.name = "pool_count", .tag = "pool_count", .indexNames = {"ax0", "ax1"}});
  return te::compute(
      g.outShape,
      [&](const std::vector<Var>& o) {
        PrimExpr n = count(o[static_cast<size_t>(g.hAxis)], o[static_cast<size_t>(g.wAxis)]);
        n = tir::max(n, tir::intImm(1));
        return tir::truncdiv(sum(std::vector<PrimExpr>(o.begin(), o.end())), tir::cast(t, n));
      },
      te::ComputeOptions{
          .name = "pool_avg", .tag = "elemwise", .indexNames = axisNames(g.outShape.size())});
}

Tensor globalPool2d(const Tensor& data, bool isMax, const std::string& layout) {
  Pool2DParams p;
  p.layout = layout;
  std::optional<Layout> l = Layout::parse(layout);
  if (!l || l->indexOf('H') < 0 || l->indexOf('W') < 0)
    throwDiagnostic("topi_pool", "global_pool2d: layout " + layout + " has no H and W");
  p.poolSize = {constDim(data.shape()[static_cast<size_t>(l->indexOf('H'))], "global_pool2d"),
                constDim(data.shape()[static_cast<size_t>(l->indexOf('W'))], "global_pool2d")};
  return isMax ? maxPool2d(data, p) : avgPool2d(data, p);
}

namespace {

// Adaptive average pooling over the given spatial axes of `data` (any rank, any layout): the
// window of output cell i along an axis is [floor(i*In/Out), ceil((i+1)*In/Out)), and the widest
// window bounds that axis's reduction.
Tensor adaptiveAvgPool(const Tensor& data, const std::vector<size_t>& axes,
                       const std::vector<int64_t>& outSize, const std::string& op) {
  std::vector<int64_t> in;
  for (size_t a : axes) in.push_back(constDim(data.shape()[a], op));
  auto widest = [](int64_t extent, int64_t out) {
    int64_t best = 0;
    for (int64_t y = 0; y < out; ++y)
      best = std::max(best, ((y + 1) * extent + out - 1) / out - y * extent / out);
    return best;
  };
  std::vector<IterVar> reduce;
  for (size_t k = 0; k < axes.size(); ++k)
    reduce.push_back(te::reduceAxis(0, widest(in[k], outSize[k]), "rv" + std::to_string(k)));
  std::vector<PrimExpr> shape = data.shape();
  for (size_t k = 0; k < axes.size(); ++k) shape[axes[k]] = tir::intImm(outSize[k]);
  auto begin = [&](const PrimExpr& y, size_t k) {
    return tir::floordiv(mulIdx(y, in[k]), tir::intImm(outSize[k]));
  };
  auto end = [&](const PrimExpr& y, size_t k) {
    return tir::floordiv(addIdx(mulIdx(addIdx(y, 1), in[k]), outSize[k] - 1),
                         tir::intImm(outSize[k]));
  };
  const DataType t = data.dtype();
  Tensor sum = te::compute(
      shape,
      [&](const std::vector<Var>& o) {
        std::vector<PrimExpr> idx(o.begin(), o.end());
        PrimExpr cond;
        for (size_t k = 0; k < axes.size(); ++k) {
          idx[axes[k]] = addIdx(begin(o[axes[k]], k), PrimExpr(reduce[k].var));
          const PrimExpr inside = tir::lt(idx[axes[k]], end(o[axes[k]], k));
          cond = cond ? tir::logicalAnd(cond, inside) : inside;
        }
        return te::sum(data(idx), reduce, te::ReduceOptions{.where = cond});
      },
      te::ComputeOptions{.name = "adaptive_pool_sum",
                         .tag = "adaptive_pool_sum",
                         .indexNames = axisNames(shape.size())});
  return te::compute(
      shape,
      [&](const std::vector<Var>& o) {
        PrimExpr count;
        for (size_t k = 0; k < axes.size(); ++k) {
          const PrimExpr extent = tir::sub(end(o[axes[k]], k), begin(o[axes[k]], k));
          count = count ? tir::mul(count, extent) : extent;
        }
        return tir::truncdiv(sum(std::vector<PrimExpr>(o.begin(), o.end())), tir::cast(t, count));
      },
      te::ComputeOptions{
          .name = "adaptive_pool_avg", .tag = "elemwise", .indexNames = axisNames(shape.size())});
}

// The positions of `letters` in a layout where none of them is split; a diagnostic otherwise.
std::vector<size_t> spatialAxes(const std::string& layoutName, const std::string& letters,
                                const std::string& op) {
  std::optional<Layout> layout = Layout::parse(layoutName);
  std::vector<size_t> axes;
  for (char c : letters) {
    if (!layout || layout->indexOf(c) < 0 || layout->subFactor(c) != 0)
      throwDiagnostic("topi_pool", op + ": layout " + layoutName + " has no unsplit " + letters);
    axes.push_back(static_cast<size_t>(layout->indexOf(c)));
  }
  return axes;
}

}  // namespace

Tensor adaptiveAvgPool2d(const Tensor& data, std::array<int64_t, 2> outSize,
                         const std::string& layout) {
  const std::string op = "adaptive_avg_pool2d";
  return adaptiveAvgPool(data, spatialAxes(layout, "HW", op), {outSize[0], outSize[1]}, op);
}

Tensor adaptiveAvgPool3d(const Tensor& data, std::array<int64_t, 3> outSize,
                         const std::string& layout) {
  const std::string op = "adaptive_avg_pool3d";
  return adaptiveAvgPool(data, spatialAxes(layout, "DHW", op), {outSize[0], outSize[1], outSize[2]},
                         op);
}

}  // namespace tessera::topi
