// The int8 depthwise conv2d compute (topi/depthwise_conv2d_int8.h): the padded input split into
// column phases, the int32 products, and the output stage.
#include "topi/depthwise_conv2d_int8.h"

#include "support/diagnostic.h"

namespace tessera::topi {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct DepthwiseShape {
  int64_t oh, ow;  // output rows, columns
  int64_t hp, wq;  // padded rows, columns per phase
};

DepthwiseShape depthwiseShape(const std::vector<int64_t>& d, const std::vector<int64_t>& w,
                              const Conv2DParams& p) {
  DepthwiseShape s;
  s.oh = (d[2] + p.padding[0] + p.padding[2] - w[2]) / p.strides[0] + 1;
  s.ow = (d[3] + p.padding[1] + p.padding[3] - w[3]) / p.strides[1] + 1;
  s.hp = (s.oh - 1) * p.strides[0] + w[2];
  s.wq = ceilDiv((s.ow - 1) * p.strides[1] + w[3], p.strides[1]);
  return s;
}

}  // namespace

bool depthwiseConv2dInt8Applies(const std::vector<int64_t>& d, const std::vector<int64_t>& w,
                                const Conv2DParams& p) {
  if (d.size() != 4 || w.size() != 4 || d[1] != p.groups || w[0] != d[1] || w[1] != 1) return false;
  if (p.dilation != std::array<int64_t, 2>{1, 1} || p.strides[0] < 1 || p.strides[1] < 1)
    return false;
  return d[2] + p.padding[0] + p.padding[2] >= w[2] && d[3] + p.padding[1] + p.padding[3] >= w[3];
}

Tensor depthwiseConv2dNchwInt8(const Tensor& data, const Tensor& weight, const Conv2DParams& p) {
  const std::string op = "depthwise_conv2d_int8";
  if ((data.dtype() != DataType::int8() && data.dtype() != DataType::uint8()) ||
      weight.dtype() != DataType::int8() || p.outDtype != DataType::int32())
    throwDiagnostic("topi_int8", op + ": needs int8 or uint8 data, an int8 weight, int32 out");
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (!depthwiseConv2dInt8Applies(ds, ws, p))
    throwDiagnostic("topi_int8", op + ": needs a depthwise NCHW conv2d, multiplier 1, dilation 1");
  const DepthwiseShape s = depthwiseShape(ds, ws, p);
  const int64_t sw = p.strides[1];

  // Rows and columns outside the input read 0.
  Tensor pad = te::compute(
      shapeOf({ds[0], ds[1], s.hp, sw, s.wq}),
      [&](Var n, Var c, Var y, Var phase, Var xq) -> PrimExpr {
        PrimExpr x = addIdx(addIdx(mulIdx(xq, sw), phase), -p.padding[1]);
        PrimExpr row = addIdx(y, -p.padding[0]);
        PrimExpr inside =
            tir::logicalAnd(tir::ge(x, tir::intImm(0)), tir::lt(x, tir::intImm(ds[3])));
        if (p.padding[0] != 0) inside = tir::logicalAnd(inside, tir::ge(row, tir::intImm(0)));
        if (s.hp > ds[2] + p.padding[0])
          inside = tir::logicalAnd(inside, tir::lt(row, tir::intImm(ds[2])));
        return tir::ifThenElse(inside, data(n, c, row, x), tir::intImm(0, data.dtype()));
      },
      te::ComputeOptions{.name = "pad_temp", .tag = "injective,pad"});

  IterVar ry = te::reduceAxis(0, ws[2], "ry");
  IterVar rx = te::reduceAxis(0, ws[3], "rx");
  const DataType i32 = DataType::int32();
  Tensor acc = te::compute(
      shapeOf({ds[0], ds[1], s.oh, s.ow}),
      [&](Var n, Var c, Var y, Var x) {
        PrimExpr row = addIdx(mulIdx(y, p.strides[0]), ry.var);
        PrimExpr phase = tir::floormod(rx.var, tir::intImm(sw, rx.var->dtype));
        PrimExpr col = addIdx(x, tir::floordiv(rx.var, tir::intImm(sw, rx.var->dtype)));
        return te::sum(tir::cast(i32, pad(n, c, row, phase, col)) *
                           tir::cast(i32, weight(c, tir::intImm(0), ry.var, rx.var)),
                       {ry, rx});
      },
      te::ComputeOptions{.name = op, .tag = op, .indexNames = {"n", "c", "oh", "ow"}});
  return te::compute(
      shapeOf({ds[0], ds[1], s.oh, s.ow}),
      [&](Var n, Var c, Var y, Var x) { return acc(n, c, y, x); },
      te::ComputeOptions{.name = "T_depthwise_conv2d_int8",
                         .tag = "injective",
                         .indexNames = {"n", "c", "h", "w"}});
}

}  // namespace tessera::topi
