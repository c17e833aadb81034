// The AMX convolution compute (topi/nn_int8_amx.h): its geometry, the weight packing into tiles,
// and the three stages (data repacking, tile products, output).
#include "topi/nn_int8_amx.h"

#include <cstring>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::topi {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int64_t roundUp(int64_t a, int64_t b) {
  return ceilDiv(a, b) * b;
}

// The input element behind channel `channel` = (c, ky, kx) of output pixel (y, x) of a folded
// window, its bounds required through `require`.
PrimExpr foldedSource(const Tensor& data, const std::vector<int64_t>& ds, const Conv2DParams& p,
                      const AmxConvGeometry& g, const Var& n, const PrimExpr& channel,
                      const PrimExpr& y, const PrimExpr& x,
                      const std::function<void(PrimExpr)>& require) {
  const DataType t = y->dtype;
  PrimExpr taps = tir::intImm(g.windowH * g.windowW, t), width = tir::intImm(g.windowW, t);
  PrimExpr c = tir::floordiv(channel, taps), tap = tir::floormod(channel, taps);
  PrimExpr row = addIdx(mulIdx(y, p.strides[0]), tir::floordiv(tap, width));
  PrimExpr col = addIdx(mulIdx(x, p.strides[1]), tir::floormod(tap, width));
  if (p.padding[0] != 0) require(tir::ge(row, tir::intImm(p.padding[0], t)));
  require(tir::lt(row, tir::intImm(ds[2] + p.padding[0], t)));
  if (p.padding[1] != 0) require(tir::ge(col, tir::intImm(p.padding[1], t)));
  require(tir::lt(col, tir::intImm(ds[3] + p.padding[1], t)));
  return data(n, tir::min(c, tir::intImm(ds[1] - 1, t)), addIdx(row, -p.padding[0]),
              addIdx(col, -p.padding[1]));
}

// The sizes once the window is folded into the channels: a 1x1 product over the output image.
std::optional<AmxConvGeometry> foldedGeometry(const std::vector<int64_t>& ds,
                                              const std::vector<int64_t>& ws,
                                              const Conv2DParams& p) {
  AmxConvGeometry g;
  g.windowH = ws[2];
  g.windowW = ws[3];
  const int64_t rows = ds[2] + p.padding[0] + p.padding[2];
  const int64_t columns = ds[3] + p.padding[1] + p.padding[3];
  if (rows < g.windowH || columns < g.windowW || ws[0] % kAmxUnit != 0) return std::nullopt;
  g.outHeight = (rows - g.windowH) / p.strides[0] + 1;
  g.outWidth = (columns - g.windowW) / p.strides[1] + 1;
  if (g.outHeight * g.outWidth < kAmxTileRows) return std::nullopt;
  g.imageRows = g.outHeight;
  g.imageColumns = g.pitch = g.outWidth;
  g.groups = roundUp(ceilDiv(ds[1] * g.windowH * g.windowW, 4), kAmxTileRows);
  g.steps = g.groups / kAmxTileRows;
  g.blocks = ws[0] / kAmxTileRows;
  g.pixels = roundUp(g.outHeight * g.outWidth, kAmxUnit);
  g.phasePixels = g.dataPixels = roundUp(g.pixels, g.pitch);
  return g;
}

// The annotation that carries the geometry to the schedule (and so to the tensor intrinsic).
DictAttrs geometryAnnotation(const AmxConvGeometry& g) {
  DictAttrs attrs;
  attrs.set(kAmxGeometryAnnotation, amxGeometryAttr(g));
  return attrs;
}

}  // namespace

bool amxFoldsWindow(int64_t channels, int64_t kh, int64_t kw) {
  const int64_t folded = channels * kh * kw;
  return channels < kAmxUnit && kh * kw > 1 && folded >= kAmxUnit && folded <= 4 * kAmxStepChannels;
}

int64_t AmxConvGeometry::tapOffset(int64_t ky, int64_t kx) const {
  if (stride == 1) return ky * pitch + kx;
  return ((ky % 2) * 2 + kx % 2) * phasePixels + (ky / 2) * pitch + kx / 2;
}

std::optional<AmxConvGeometry> amxConvGeometry(const std::vector<int64_t>& ds,
                                               const std::vector<int64_t>& ws,
                                               const Conv2DParams& p) {
  if (ds.size() != 4 || ws.size() != 4 || p.groups != 1 || ws[1] != ds[1]) return std::nullopt;
  if (p.dilation != std::array<int64_t, 2>{1, 1}) return std::nullopt;
  if (amxFoldsWindow(ds[1], ws[2], ws[3])) return foldedGeometry(ds, ws, p);
  AmxConvGeometry g;
  g.kh = ws[2];
  g.kw = ws[3];
  const bool pointwise = g.kh == 1 && g.kw == 1;
  const bool unpadded = p.padding == std::array<int64_t, 4>{0, 0, 0, 0};
  const bool unit = p.strides == std::array<int64_t, 2>{1, 1};
  g.subsample = pointwise && unpadded && !unit;
  if (!unit && !g.subsample) {
    if (p.strides != std::array<int64_t, 2>{2, 2}) return std::nullopt;
    g.stride = 2;
  }
  // Fewer channels or pixels than a tile holds waste most of each product.
  if (ds[1] < kAmxUnit || ws[0] % kAmxUnit != 0) return std::nullopt;
  if (g.subsample) {
    g.outHeight = (ds[2] - 1) / p.strides[0] + 1;
    g.outWidth = (ds[3] - 1) / p.strides[1] + 1;
    g.imageRows = g.outHeight;
    g.imageColumns = g.pitch = g.outWidth;
  } else {
    g.imageRows = ds[2] + p.padding[0] + p.padding[2];
    g.imageColumns = ds[3] + p.padding[1] + p.padding[3];
    g.outHeight = (g.imageRows - g.kh) / g.stride + 1;
    g.outWidth = (g.imageColumns - g.kw) / g.stride + 1;
    g.pitch = ceilDiv(g.imageColumns, g.stride);
  }
  if (g.imageRows < g.kh || g.imageColumns < g.kw || g.outHeight * g.outWidth < kAmxTileRows)
    return std::nullopt;
  g.groups = roundUp(ceilDiv(ds[1], 4), kAmxTileRows);
  g.steps = g.groups / kAmxTileRows * g.kh * g.kw;
  g.blocks = ws[0] / kAmxTileRows;
  g.pixels = roundUp((g.outHeight - 1) * g.pitch + g.outWidth, kAmxUnit);
  g.reach = (g.kh - 1) / g.stride * g.pitch + (g.kw - 1) / g.stride;
  // Whole rows, so that a schedule can split the repacking's pixels into rows and columns.
  g.phasePixels = roundUp(g.pixels + g.reach, g.pitch);
  g.dataPixels = g.phasePixels * g.stride * g.stride;
  return g;
}

AttrValue amxGeometryAttr(const AmxConvGeometry& g) {
  std::vector<AttrValue> v;
  for (int64_t x : {g.kh, g.kw, g.stride, g.pitch, g.imageRows, g.imageColumns, g.outHeight,
                    g.outWidth, g.groups, g.steps, g.blocks, g.pixels, g.reach, g.phasePixels,
                    g.dataPixels, int64_t{g.subsample}, g.windowH, g.windowW})
    v.push_back(AttrValue::integer(x, DataType::int64()));
  return AttrValue::array(std::move(v));
}

std::optional<AmxConvGeometry> amxGeometryOf(const AttrValue* attr) {
  if (attr == nullptr || attr->kind() != AttrValue::Kind::kArray || attr->asArray().size() != 18)
    return std::nullopt;
  std::vector<int64_t> v;
  for (const AttrValue& x : attr->asArray()) v.push_back(x.asInt());
  AmxConvGeometry g;
  int64_t* fields[] = {&g.kh,           &g.kw,        &g.stride,   &g.pitch,       &g.imageRows,
                       &g.imageColumns, &g.outHeight, &g.outWidth, &g.groups,      &g.steps,
                       &g.blocks,       &g.pixels,    &g.reach,    &g.phasePixels, &g.dataPixels};
  for (size_t i = 0; i < 15; ++i) *fields[i] = v[i];
  g.subsample = v[15] != 0;
  g.windowH = v[16];
  g.windowW = v[17];
  return g;
}

NDArray packInt8WeightAmx(const NDArray& weight) {
  const std::vector<int64_t>& s = weight.shape();
  TS_CHECK(weight.dtype() == DataType::int8() && s.size() == 4 && s[0] % kAmxUnit == 0)
      << "packInt8WeightAmx: needs an int8 (O, I, KH, KW) weight with O a multiple of 32";
  const bool fold = amxFoldsWindow(s[1], s[2], s[3]);
  // A folded window is the 1x1 weight of (channel, ky, kx) channels: the same bytes.
  const int64_t outC = s[0], inC = fold ? s[1] * s[2] * s[3] : s[1];
  const int64_t kh = fold ? 1 : s[2], kw = fold ? 1 : s[3];
  const int64_t chunks = ceilDiv(inC, kAmxStepChannels);
  const int64_t steps = chunks * kh * kw;
  NDArray packed =
      NDArray::empty({outC / kAmxTileRows, steps, kAmxTileRows, kAmxStepChannels}, weight.dtype());
  auto* dst = static_cast<int8_t*>(packed.data());
  std::memset(dst, 0, packed.nbytes());
  const auto* src = static_cast<const int8_t*>(weight.data());
  for (int64_t o = 0; o < outC; ++o)
    for (int64_t i = 0; i < inC; ++i)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          const int64_t step = ((i / kAmxStepChannels) * kh + y) * kw + x;
          const int64_t at = ((o / kAmxTileRows * steps + step) * kAmxTileRows + o % kAmxTileRows) *
                                 kAmxStepChannels +
                             i % kAmxStepChannels;
          dst[at] = src[((o * inC + i) * kh + y) * kw + x];
        }
  return packed;
}

PrimExpr amxConvProduct(const AmxConvGeometry& g, DataType dataDtype, const AmxOperand& w,
                        const AmxOperand& d, const AmxConvIndex& at) {
  const bool taps = g.kh * g.kw > 1;
  PrimExpr step = taps ? addIdx(mulIdx(addIdx(mulIdx(at.c, g.kh), at.ky), g.kw), at.kx) : at.c;
  PrimExpr pixel = at.pixel;
  if (taps && g.stride == 1) {
    pixel = addIdx(addIdx(at.pixel, mulIdx(at.ky, g.pitch)), at.kx);
  } else if (taps) {
    // Phase (ky % 2, kx % 2), pixel (ky / 2, kx / 2) within it.
    PrimExpr two = tir::intImm(2, at.ky->dtype);
    PrimExpr phase = addIdx(mulIdx(tir::floormod(at.ky, two), 2), tir::floormod(at.kx, two));
    pixel = addIdx(addIdx(addIdx(at.pixel, mulIdx(phase, g.phasePixels)),
                          mulIdx(tir::floordiv(at.ky, two), g.pitch)),
                   tir::floordiv(at.kx, two));
  }
  PrimExpr word = d({addIdx(mulIdx(at.c, kAmxTileRows), at.group), pixel});
  const DataType i32 = DataType::int32();
  PrimExpr sum;
  for (int64_t k = 0; k < 4; ++k) {
    PrimExpr bits =
        k == 0 ? word : tir::call(i32, "tir.shift_right", {word, tir::intImm(8 * k, i32)});
    PrimExpr term = tir::cast(i32, w({at.block, step, at.lane, addIdx(mulIdx(at.group, 4), k)})) *
                    tir::cast(i32, tir::cast(dataDtype, bits));
    sum = sum ? sum + term : term;
  }
  return sum;
}

Tensor conv2dNchwInt8Amx(const Tensor& data, const Tensor& packed, const AmxConvGeometry& g,
                         const Conv2DParams& p, int64_t outChannels) {
  const std::string op = "conv2d_int8_amx";
  if ((data.dtype() != DataType::int8() && data.dtype() != DataType::uint8()) ||
      packed.dtype() != DataType::int8() || p.outDtype != DataType::int32())
    throwDiagnostic("topi_int8", op + ": needs int8 or uint8 data, an int8 weight, int32 output");
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(packed, op);
  if (ds.size() != 4 ||
      ws != std::vector<int64_t>{g.blocks, g.steps, kAmxTileRows, kAmxStepChannels} ||
      outChannels != g.blocks * kAmxTileRows)
    throwDiagnostic("topi_int8",
                    op + ": the weight is not packed by packInt8WeightAmx for this geometry");
  const int64_t channels = ds[1];

  // (N, groups, dataPixels): the image's rows end to end, the 4 bytes of a channel quadruple in
  // one int32 per pixel (written whole, a vector of a row's pixels at a time); padding, missing
  // channels and the pixels past the image are 0.
  Tensor repacked = te::compute(
      shapeOf({ds[0], g.groups, g.dataPixels}),
      [&](Var n, Var c, Var q) -> PrimExpr {
        // The pixel's row and column in the padded image (of its phase image at stride 2).
        PrimExpr pitch = tir::intImm(g.pitch, q->dtype);
        PrimExpr y, x;
        if (g.stride == 1) {
          y = tir::floordiv(q, pitch);
          x = tir::floormod(q, pitch);
        } else {
          PrimExpr phasePixels = tir::intImm(g.phasePixels, q->dtype);
          PrimExpr phase = tir::floordiv(q, phasePixels), r = tir::floormod(q, phasePixels);
          PrimExpr two = tir::intImm(2, q->dtype);
          y = addIdx(mulIdx(tir::floordiv(r, pitch), 2), tir::floordiv(phase, two));
          x = addIdx(mulIdx(tir::floormod(r, pitch), 2), tir::floormod(phase, two));
        }
        PrimExpr word;
        for (int64_t k = 0; k < 4; ++k) {
          PrimExpr channel = addIdx(mulIdx(c, 4), k);
          PrimExpr inside = tir::lt(y, tir::intImm(g.imageRows, q->dtype));
          if (g.stride != 1)
            inside = tir::logicalAnd(inside, tir::lt(x, tir::intImm(g.imageColumns, q->dtype)));
          auto require = [&](PrimExpr cond) { inside = tir::logicalAnd(inside, cond); };
          const int64_t folded = g.windowH > 0 ? channels * g.windowH * g.windowW : channels;
          if (folded % kAmxStepChannels != 0) require(tir::lt(channel, tir::intImm(folded)));
          PrimExpr source;
          if (g.windowH > 0) {
            source = foldedSource(data, ds, p, g, n, channel, y, x, require);
          } else if (g.subsample) {
            source = data(n, channel, mulIdx(y, p.strides[0]), mulIdx(x, p.strides[1]));
          } else {
            if (p.padding[0] != 0) require(tir::ge(y, tir::intImm(p.padding[0], q->dtype)));
            if (p.padding[2] != 0) require(tir::lt(y, tir::intImm(ds[2] + p.padding[0], q->dtype)));
            if (p.padding[1] != 0) require(tir::ge(x, tir::intImm(p.padding[1], q->dtype)));
            if (p.padding[3] != 0) require(tir::lt(x, tir::intImm(ds[3] + p.padding[1], q->dtype)));
            source = data(n, channel, addIdx(y, -p.padding[0]), addIdx(x, -p.padding[1]));
          }
          PrimExpr byte =
              tir::cast(DataType::int32(),
                        tir::cast(DataType::uint8(),
                                  tir::ifThenElse(inside, source, tir::intImm(0, data.dtype()))));
          if (k > 0)
            byte = tir::call(DataType::int32(), "tir.shift_left",
                             {byte, tir::intImm(8 * k, DataType::int32())});
          word = word ? tir::call(DataType::int32(), "tir.bitwise_or", {word, byte}) : byte;
        }
        return word;
      },
      te::ComputeOptions{.name = "data_amx", .tag = "injective,pad"});

  const bool taps = g.kh * g.kw > 1;
  IterVar rc = te::reduceAxis(0, g.groups / kAmxTileRows, "rc");
  IterVar ry = te::reduceAxis(0, g.kh, "ry");
  IterVar rx = te::reduceAxis(0, g.kw, "rx");
  IterVar rg = te::reduceAxis(0, kAmxTileRows, "rg");
  // Reduction axes of extent 1 are left out (blockize would drop them from the tile unit, which the
  // tensor intrinsic's description could then not match).
  const bool chunks = g.groups > kAmxTileRows;
  std::vector<IterVar> axes;
  if (chunks) axes.push_back(rc);
  if (taps) axes.insert(axes.end(), {ry, rx});
  axes.push_back(rg);
  Tensor acc = te::compute(
      shapeOf({ds[0], g.blocks, kAmxTileRows, g.pixels}),
      [&](Var n, Var b, Var lane, Var m) {
        AmxOperand w = [&](const std::vector<PrimExpr>& i) { return packed(i); };
        AmxOperand d = [&](const std::vector<PrimExpr>& i) { return repacked({n, i[0], i[1]}); };
        AmxConvIndex at{b,
                        lane,
                        m,
                        chunks ? PrimExpr(rc.var) : tir::intImm(0),
                        taps ? PrimExpr(ry.var) : PrimExpr(),
                        taps ? PrimExpr(rx.var) : PrimExpr(),
                        rg.var};
        return te::sum(amxConvProduct(g, data.dtype(), w, d, at), axes);
      },
      te::ComputeOptions{.name = op,
                         .tag = op,
                         .attrs = geometryAnnotation(g),
                         .indexNames = {"n", "block", "lane", "pixel"}});
  return te::compute(
      shapeOf({ds[0], outChannels, g.outHeight, g.outWidth}),
      [&](Var n, Var c, Var y, Var x) {
        PrimExpr sixteen = tir::intImm(kAmxTileRows, c->dtype);
        return acc(n, tir::floordiv(c, sixteen), tir::floormod(c, sixteen),
                   addIdx(mulIdx(y, g.pitch), x));
      },
      te::ComputeOptions{.name = "T_conv2d_int8_amx_unpack",
                         .tag = "injective",
                         .indexNames = {"n", "c", "h", "w"}});
}

}  // namespace tessera::topi
