// The int8 depthwise conv2d computes (topi/depthwise_conv2d_int8.h): the plain form (the padded
// input split into column phases, the int32 products, the output stage) and the window form for
// VNNI (the padded input as unsigned bytes, the kernel rows in groups of 4, the accumulators in
// whole blocks of rows and vectors).
#include "topi/depthwise_conv2d_int8.h"

#include "support/diagnostic.h"
#include "topi/nn_int8.h"

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

bool depthwiseConv2dInt8WindowApplies(const std::vector<int64_t>& d, const std::vector<int64_t>& w,
                                      const Conv2DParams& p) {
  if (!depthwiseConv2dInt8Applies(d, w, p) || (p.strides[1] != 1 && p.strides[1] != 2))
    return false;
  return true;
}

Tensor depthwiseConv2dNchwInt8Window(const Tensor& data, const Tensor& weight,
                                     const Conv2DParams& p, bool shiftData,
                                     const std::optional<Tensor>& bias) {
  const std::string op = "depthwise_conv2d_int8_window";
  if ((data.dtype() != DataType::int8() && data.dtype() != DataType::uint8()) ||
      weight.dtype() != DataType::int8() || p.outDtype != DataType::int32())
    throwDiagnostic("topi_int8", op + ": needs int8 or uint8 data, an int8 weight, int32 out");
  if (shiftData && data.dtype() != DataType::int8())
    throwDiagnostic("topi_int8", op + ": only int8 data is shifted");
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (!depthwiseConv2dInt8WindowApplies(ds, ws, p))
    throwDiagnostic("topi_int8", op + ": needs a depthwise NCHW conv2d, multiplier 1, dilation 1, "
                                      "horizontal stride 1 or 2, at least 16 output columns");
  const DepthwiseShape s = depthwiseShape(ds, ws, p);
  const int64_t sh = p.strides[0], sw = p.strides[1];
  const int64_t rows = ceilDiv(s.oh, kWindowRows) * kWindowRows;
  const int64_t vectors = ceilDiv(s.ow, kWindowLanes);
  const int64_t taps = ceilDiv(ws[3], 4) * 4;
  // Every row of every block, and every lane's 4 taps of every vector, lie inside the plane.
  const int64_t hp = (rows - 1) * sh + ws[2];
  const int64_t wp = sw * (vectors * kWindowLanes - 1) + taps;
  const DataType u8 = DataType::uint8(), i32 = DataType::int32();

  Tensor pad = te::compute(
      shapeOf({ds[0], ds[1], hp, wp}),
      [&](Var n, Var c, Var y, Var x) -> PrimExpr {
        PrimExpr row = addIdx(y, -p.padding[0]), col = addIdx(x, -p.padding[1]);
        PrimExpr inside =
            tir::logicalAnd(tir::ge(col, tir::intImm(0)), tir::lt(col, tir::intImm(ds[3])));
        if (p.padding[0] != 0) inside = tir::logicalAnd(inside, tir::ge(row, tir::intImm(0)));
        if (hp > ds[2] + p.padding[0])
          inside = tir::logicalAnd(inside, tir::lt(row, tir::intImm(ds[2])));
        // The select of the loaded value itself (a masked load once vectorized), then the shift.
        PrimExpr value =
            tir::ifThenElse(inside, data(n, c, row, col), tir::intImm(0, data.dtype()));
        return shiftData ? tir::cast(u8, tir::cast(i32, value) + tir::intImm(128))
                         : tir::cast(u8, value);
      },
      te::ComputeOptions{.name = "pad_temp", .tag = "injective,pad"});
  Tensor taps4 = te::compute(
      shapeOf({ds[1], ws[2], taps}),
      [&](Var c, Var ky, Var kx) -> PrimExpr {
        if (taps == ws[3]) return weight(c, tir::intImm(0), ky, kx);
        return tir::ifThenElse(tir::lt(kx, tir::intImm(ws[3])), weight(c, tir::intImm(0), ky, kx),
                               tir::intImm(0, DataType::int8()));
      },
      te::ComputeOptions{.name = "weight_window", .tag = "weight_window"});

  IterVar ry = te::reduceAxis(0, ws[2], "ry");
  IterVar rx = te::reduceAxis(0, taps, "rx");
  Tensor acc = te::compute(
      shapeOf({ds[0], ds[1], rows, vectors * kWindowLanes}),
      [&](Var n, Var c, Var y, Var x) {
        PrimExpr row = addIdx(mulIdx(y, sh), ry.var);
        PrimExpr col = addIdx(mulIdx(x, sw), rx.var);
        te::ReduceOptions start;
        if (bias) start.init = channelAddend(*bias, c);
        return te::sum(
            tir::cast(i32, pad(n, c, row, col)) * tir::cast(i32, taps4(c, ry.var, rx.var)),
            {ry, rx}, start);
      },
      te::ComputeOptions{.name = op, .tag = op, .indexNames = {"n", "c", "oh", "ow"}});

  std::optional<Tensor> compensation;
  if (shiftData) {
    IterVar cy = te::reduceAxis(0, ws[2], "cy");
    IterVar cx = te::reduceAxis(0, ws[3], "cx");
    compensation = te::compute(
        shapeOf({ds[1]}),
        [&](Var c) {
          return te::sum(
              tir::cast(i32, weight(c, tir::intImm(0), cy.var, cx.var)) * tir::intImm(128),
              {cy, cx});
        },
        te::ComputeOptions{.name = "compensation", .tag = "compensation"});
  }
  return te::compute(
      shapeOf({ds[0], ds[1], s.oh, s.ow}),
      [&](Var n, Var c, Var y, Var x) {
        PrimExpr sum = acc(n, c, y, x);
        return compensation ? sum - (*compensation)(c) : sum;
      },
      te::ComputeOptions{.name = "T_depthwise_conv2d_int8",
                         .tag = "injective",
                         .indexNames = {"n", "c", "h", "w"}});
}

}  // namespace tessera::topi
