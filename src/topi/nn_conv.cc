// pad and the conv2d computes. Operands are cast to the output dtype before multiplying, as the
// reference kernel does; padding is a separate `pad_temp` compute as in TVM's TOPI.
#include "support/diagnostic.h"
#include "topi/nn.h"

namespace tessera::topi {
namespace {

// Output extent of a sliding window: (in + padTotal - dilatedWindow) / stride + 1.
int64_t outExtent(int64_t in, int64_t padTotal, int64_t k, int64_t stride, int64_t dilation,
                  const std::string& op) {
  const int64_t span = (k - 1) * dilation + 1;
  if (in + padTotal < span)
    throwDiagnostic("topi_conv", op + ": the dilated window " + std::to_string(span) +
                                     " exceeds the padded input " + std::to_string(in + padTotal));
  return (in + padTotal - span) / stride + 1;
}

PrimExpr castTo(DataType t, const PrimExpr& e) {
  return tir::cast(t, e);
}

}  // namespace

std::array<int64_t, 4> padTuple(const std::vector<int64_t>& p) {
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  if (p.size() == 4) return {p[0], p[1], p[2], p[3]};
  throwDiagnostic("topi_pad",
                  "padding must have 1, 2 or 4 values but has " + std::to_string(p.size()));
}

Tensor pad(const Tensor& data, const std::vector<int64_t>& before,
           const std::vector<int64_t>& after, PrimExpr padValue, const std::string& name) {
  const size_t rank = data.shape().size();
  if (before.size() != rank || after.size() != rank)
    throwDiagnostic("topi_pad",
                    name + ": padding needs one entry per axis of rank " + std::to_string(rank));
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < rank; ++d) shape.push_back(addIdx(data.shape()[d], before[d] + after[d]));
  if (!padValue) padValue = constOf(data.dtype(), 0);
  padValue = tir::cast(data.dtype(), padValue);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) -> PrimExpr {
        std::vector<PrimExpr> idx;
        PrimExpr inside;
        auto require = [&](PrimExpr c) { inside = inside ? tir::logicalAnd(inside, c) : c; };
        for (size_t d = 0; d < rank; ++d) {
          idx.push_back(addIdx(i[d], -before[d]));
          if (before[d] != 0) require(tir::ge(i[d], tir::intImm(before[d], i[d]->dtype)));
          if (after[d] != 0) require(tir::lt(i[d], addIdx(data.shape()[d], before[d])));
        }
        if (!inside) return data(idx);
        return tir::ifThenElse(inside, data(idx), padValue);
      },
      te::ComputeOptions{.name = name, .tag = "injective,pad"});
}

Tensor padMode(const Tensor& data, const std::vector<std::array<int64_t, 2>>& widths,
               const Tensor& padValue, const std::string& mode) {
  std::vector<int64_t> before, after;
  for (const auto& w : widths) {
    before.push_back(w[0]);
    after.push_back(w[1]);
  }
  if (mode == "constant") return pad(data, before, after, padValue({}), "T_pad");
  if (mode != "edge" && mode != "reflect")
    throwDiagnostic("topi_pad", "nn.pad: unknown pad_mode \"" + mode + "\"");
  const std::vector<int64_t> in = constShape(data, "nn.pad");
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < in.size(); ++d) shape.push_back(tir::intImm(in[d] + before[d] + after[d]));
  const bool edge = mode == "edge";
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        for (size_t d = 0; d < in.size(); ++d) {
          PrimExpr t = addIdx(i[d], -before[d]);
          if (before[d] == 0 && after[d] == 0) {
            idx.push_back(t);
            continue;
          }
          if (edge) {
            idx.push_back(tir::min(tir::max(t, tir::intImm(0)), tir::intImm(in[d] - 1)));
          } else {
            // Reflection (pad < extent): (n-1) - |(n-1) - |t||. Written with `t` once, so that a
            // chain of fused reflect pads inlines to an expression linear in its length; a select
            // form reads `t` five times and ten fused pads grew to 5^10 nodes (graph fuzzer).
            const PrimExpr last = tir::intImm(in[d] - 1, t->dtype);
            auto absOf = [](const PrimExpr& x) { return tir::call(x->dtype, "tir.abs", {x}); };
            idx.push_back(tir::sub(last, absOf(tir::sub(last, absOf(t)))));
          }
        }
        return data(idx);
      },
      te::ComputeOptions{.name = "T_pad", .tag = "injective,pad"});
}

Tensor conv2dNchw(const Tensor& data, const Tensor& weightIn, const Conv2DParams& p) {
  const std::string op = "conv2d_nchw";
  const std::vector<int64_t> ds = constShape(data, op);
  std::vector<int64_t> ws = constShape(weightIn, op);
  Tensor weight = weightIn;
  const int64_t groups = p.groups;
  if (ds.size() != 4 || ws.size() != 4) throwDiagnostic("topi_conv", op + ": needs 4-D operands");
  if (groups > 1 && ws[1] * groups != ds[1]) {
    // Depthwise weight (C, multiplier, KH, KW) = grouped weight (C * multiplier, 1, KH, KW).
    std::vector<int64_t> grouped = {ws[0] * ws[1], 1, ws[2], ws[3]};
    weight = te::compute(
        shapeOf(grouped),
        [&](const std::vector<Var>& i) {
          return weightIn({tir::floordiv(i[0], tir::intImm(ws[1])),
                           tir::floormod(i[0], tir::intImm(ws[1])), i[2], i[3]});
        },
        te::ComputeOptions{.name = "T_reshape", .tag = "injective"});
    ws = grouped;
  }
  const DataType outDtype = p.outDtype.isVoid() ? data.dtype() : p.outDtype;
  const int64_t cinPerGroup = ws[1], cout = ws[0], coutPerGroup = cout / groups;
  const int64_t oh =
      outExtent(ds[2], p.padding[0] + p.padding[2], ws[2], p.strides[0], p.dilation[0], op);
  const int64_t ow =
      outExtent(ds[3], p.padding[1] + p.padding[3], ws[3], p.strides[1], p.dilation[1], op);
  Tensor padded = pad(data, {0, 0, p.padding[0], p.padding[1]}, {0, 0, p.padding[2], p.padding[3]},
                      nullptr, "pad_temp");
  IterVar rc = te::reduceAxis(0, cinPerGroup, "rc");
  IterVar ry = te::reduceAxis(0, ws[2], "ry");
  IterVar rx = te::reduceAxis(0, ws[3], "rx");
  return te::compute(
      shapeOf({ds[0], cout, oh, ow}),
      [&](Var nn, Var ff, Var yy, Var xx) {
        PrimExpr channel = rc.var;
        if (groups > 1)
          channel =
              addIdx(mulIdx(tir::floordiv(ff, tir::intImm(coutPerGroup)), cinPerGroup), rc.var);
        PrimExpr y = addIdx(mulIdx(yy, p.strides[0]), mulIdx(ry.var, p.dilation[0]));
        PrimExpr x = addIdx(mulIdx(xx, p.strides[1]), mulIdx(rx.var, p.dilation[1]));
        return te::sum(castTo(outDtype, padded(nn, channel, y, x)) *
                           castTo(outDtype, weight(ff, rc.var, ry.var, rx.var)),
                       {rc, ry, rx});
      },
      te::ComputeOptions{.name = op, .tag = "conv2d_nchw", .indexNames = {"nn", "ff", "yy", "xx"}});
}

Tensor depthwiseConv2dNchw(const Tensor& data, const Tensor& weight, Conv2DParams p) {
  p.groups = constDim(data.shape()[1], "depthwise_conv2d_nchw");
  return conv2dNchw(data, weight, p);
}

Tensor conv2dTransposeNchw(const Tensor& data, const Tensor& weight, const Conv2DParams& p,
                           std::array<int64_t, 2> outputPadding) {
  const std::string op = "conv2d_transpose_nchw";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (ds.size() != 4 || ws.size() != 4) throwDiagnostic("topi_conv", op + ": needs 4-D operands");
  const int64_t groups = p.groups, inPerGroup = ds[1] / groups, outPerGroup = ws[1];
  const std::array<int64_t, 2> in = {ds[2], ds[3]}, k = {ws[2], ws[3]};
  std::array<int64_t, 2> out{}, before{};
  for (int d = 0; d < 2; ++d) {
    const int64_t span = (k[d] - 1) * p.dilation[d];
    out[d] =
        (in[d] - 1) * p.strides[d] - p.padding[d] - p.padding[d + 2] + span + 1 + outputPadding[d];
    if (out[d] < 1) throwDiagnostic("topi_conv", op + ": the padding leaves no output");
    before[d] = span - p.padding[d];
  }
  // Row y of the dilated, padded input is data row (y - before) / stride when that divides; a
  // negative `before` crops. The conditional load is lazy, so rows outside are never read.
  const DataType zeroType = data.dtype();
  Tensor dilated = te::compute(
      shapeOf(
          {ds[0], ds[1], out[0] + (k[0] - 1) * p.dilation[0], out[1] + (k[1] - 1) * p.dilation[1]}),
      [&](Var b, Var c, Var y, Var x) {
        const PrimExpr ty = addIdx(y, -before[0]), tx = addIdx(x, -before[1]);
        const PrimExpr sh = tir::intImm(p.strides[0]), sw = tir::intImm(p.strides[1]);
        PrimExpr inside =
            tir::logicalAnd(tir::logicalAnd(tir::ge(ty, tir::intImm(0)),
                                            tir::lt(ty, tir::intImm(in[0] * p.strides[0]))),
                            tir::logicalAnd(tir::ge(tx, tir::intImm(0)),
                                            tir::lt(tx, tir::intImm(in[1] * p.strides[1]))));
        if (p.strides[0] > 1)
          inside = tir::logicalAnd(inside, tir::eq(tir::floormod(ty, sh), tir::intImm(0)));
        if (p.strides[1] > 1)
          inside = tir::logicalAnd(inside, tir::eq(tir::floormod(tx, sw), tir::intImm(0)));
        return tir::ifThenElse(inside, data({b, c, tir::floordiv(ty, sh), tir::floordiv(tx, sw)}),
                               tir::makeConst(zeroType, 0));
      },
      te::ComputeOptions{.name = "data_dilate_pad", .tag = "injective,pad"});
  // The forward convolution's weight (C_out, C_in / groups, KH, KW), window flipped.
  Tensor flipped = te::compute(
      shapeOf({outPerGroup * groups, inPerGroup, k[0], k[1]}),
      [&](Var o, Var ic, Var i, Var j) {
        const PrimExpr c =
            addIdx(mulIdx(tir::floordiv(o, tir::intImm(outPerGroup)), inPerGroup), ic);
        return weight({c, tir::floormod(o, tir::intImm(outPerGroup)),
                       addIdx(mulIdx(i, -1), k[0] - 1), addIdx(mulIdx(j, -1), k[1] - 1)});
      },
      te::ComputeOptions{.name = "kernel_transform", .tag = "injective"});
  Conv2DParams forward = p;
  forward.strides = {1, 1};
  forward.padding = {0, 0, 0, 0};
  return conv2dNchw(dilated, flipped, forward);
}

Tensor conv2dNhwc(const Tensor& data, const Tensor& weight, const Conv2DParams& p) {
  const std::string op = "conv2d_nhwc";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (ds.size() != 4 || ws.size() != 4) throwDiagnostic("topi_conv", op + ": needs 4-D operands");
  const DataType outDtype = p.outDtype.isVoid() ? data.dtype() : p.outDtype;
  const int64_t groups = p.groups, cinPerGroup = ws[2], cout = ws[3], coutPerGroup = cout / groups;
  const int64_t oh =
      outExtent(ds[1], p.padding[0] + p.padding[2], ws[0], p.strides[0], p.dilation[0], op);
  const int64_t ow =
      outExtent(ds[2], p.padding[1] + p.padding[3], ws[1], p.strides[1], p.dilation[1], op);
  Tensor padded = pad(data, {0, p.padding[0], p.padding[1], 0}, {0, p.padding[2], p.padding[3], 0},
                      nullptr, "pad_temp");
  IterVar ry = te::reduceAxis(0, ws[0], "ry");
  IterVar rx = te::reduceAxis(0, ws[1], "rx");
  IterVar rc = te::reduceAxis(0, cinPerGroup, "rc");
  return te::compute(
      shapeOf({ds[0], oh, ow, cout}),
      [&](Var nn, Var yy, Var xx, Var ff) {
        PrimExpr channel = rc.var;
        if (groups > 1)
          channel =
              addIdx(mulIdx(tir::floordiv(ff, tir::intImm(coutPerGroup)), cinPerGroup), rc.var);
        PrimExpr y = addIdx(mulIdx(yy, p.strides[0]), mulIdx(ry.var, p.dilation[0]));
        PrimExpr x = addIdx(mulIdx(xx, p.strides[1]), mulIdx(rx.var, p.dilation[1]));
        return te::sum(castTo(outDtype, padded(nn, y, x, channel)) *
                           castTo(outDtype, weight(ry.var, rx.var, rc.var, ff)),
                       {ry, rx, rc});
      },
      te::ComputeOptions{.name = op, .tag = "conv2d_nhwc", .indexNames = {"nn", "yy", "xx", "ff"}});
}

namespace {

// The padded NCHW[x]c input, or the input itself when nothing is padded (a copy stage would only
// cost a pass over the data).
Tensor padBlocked(const Tensor& data, const Conv2DParams& p) {
  if (p.padding[0] == 0 && p.padding[1] == 0 && p.padding[2] == 0 && p.padding[3] == 0) return data;
  return pad(data, {0, 0, p.padding[0], p.padding[1], 0}, {0, 0, p.padding[2], p.padding[3], 0},
             nullptr, "data_pad");
}

// Output rows and columns of a blocked input `ds` (N, C/x, H, W, x) under a kh x kw window.
std::pair<int64_t, int64_t> blockedOutputSize(const std::vector<int64_t>& ds, int64_t kh,
                                              int64_t kw, const Conv2DParams& p,
                                              const std::string& op) {
  return {outExtent(ds[2], p.padding[0] + p.padding[2], kh, p.strides[0], p.dilation[0], op),
          outExtent(ds[3], p.padding[1] + p.padding[3], kw, p.strides[1], p.dilation[1], op)};
}

// The padded input row and column that window tap (kh, kw) of output (y, x) reads.
std::pair<PrimExpr, PrimExpr> windowTap(const Var& y, const Var& x, const IterVar& kh,
                                        const IterVar& kw, const Conv2DParams& p) {
  return {addIdx(mulIdx(y, p.strides[0]), mulIdx(kh.var, p.dilation[0])),
          addIdx(mulIdx(x, p.strides[1]), mulIdx(kw.var, p.dilation[1]))};
}

}  // namespace

std::pair<std::string, std::string> nchwcLayouts(int64_t inBlock, int64_t outBlock) {
  return {"NCHW" + std::to_string(inBlock) + "c",
          "OIHW" + std::to_string(inBlock) + "i" + std::to_string(outBlock) + "o"};
}

Tensor conv2dNCHWc(const Tensor& data, const Tensor& weight, const Conv2DParams& p) {
  const std::string op = "conv2d_NCHWc";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (ds.size() != 5 || ws.size() != 6 || ws[1] != ds[1] || ws[4] != ds[4])
    throwDiagnostic("topi_conv", op + ": needs data NCHW[x]c and weight OIHW[x]i[y]o that agree");
  if (p.groups != 1) throwDiagnostic("topi_conv", op + ": groups must be 1");
  const DataType outDtype = p.outDtype.isVoid() ? data.dtype() : p.outDtype;
  const auto [oh, ow] = blockedOutputSize(ds, ws[2], ws[3], p, op);
  const Tensor padded = padBlocked(data, p);
  IterVar ico = te::reduceAxis(0, ds[1], "ic_outer");
  IterVar kh = te::reduceAxis(0, ws[2], "kh");
  IterVar kw = te::reduceAxis(0, ws[3], "kw");
  IterVar ici = te::reduceAxis(0, ds[4], "ic_inner");
  return te::compute(
      shapeOf({ds[0], ws[0], oh, ow, ws[5]}),
      [&](Var n, Var occ, Var y, Var x, Var ocb) {
        const auto [row, col] = windowTap(y, x, kh, kw, p);
        return te::sum(castTo(outDtype, padded(n, ico.var, row, col, ici.var)) *
                           castTo(outDtype, weight(occ, ico.var, kh.var, kw.var, ici.var, ocb)),
                       {ico, kh, kw, ici});
      },
      te::ComputeOptions{.name = op,
                         .tag = "conv2d_NCHWc",
                         .indexNames = {"n", "oc_chunk", "oh", "ow", "oc_block"}});
}

Tensor depthwiseConv2dNCHWc(const Tensor& data, const Tensor& weight, const Conv2DParams& p) {
  const std::string op = "depthwise_conv2d_NCHWc";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (ds.size() != 5 || ws.size() != 6 || ws[0] != ds[1] || ws[1] != 1 || ws[4] != 1 ||
      ws[5] != ds[4])
    throwDiagnostic("topi_conv", op + ": needs data NCHW[x]c and weight OIHW1i[x]o that agree");
  const DataType outDtype = p.outDtype.isVoid() ? data.dtype() : p.outDtype;
  const auto [oh, ow] = blockedOutputSize(ds, ws[2], ws[3], p, op);
  const Tensor padded = padBlocked(data, p);
  IterVar kh = te::reduceAxis(0, ws[2], "kh");
  IterVar kw = te::reduceAxis(0, ws[3], "kw");
  return te::compute(
      shapeOf({ds[0], ds[1], oh, ow, ds[4]}),
      [&](Var n, Var chunk, Var y, Var x, Var block) {
        const auto [row, col] = windowTap(y, x, kh, kw, p);
        return te::sum(castTo(outDtype, padded(n, chunk, row, col, block)) *
                           castTo(outDtype, weight(chunk, tir::intImm(0), kh.var, kw.var,
                                                   tir::intImm(0), block)),
                       {kh, kw});
      },
      te::ComputeOptions{.name = op,
                         .tag = "depthwise_conv2d_NCHWc",
                         .indexNames = {"n", "c_chunk", "oh", "ow", "c_block"}});
}

}  // namespace tessera::topi
