// conv2d 3x3, stride 1, by Winograd's minimal filtering F(2x2, 3x3) (Lavin & Gray, 2015): the
// output is computed in 2x2 tiles, each from a 4x4 input patch, with 16 products per input
// channel instead of 36. The weight transform U = G g G^T runs while compiling (on the constant
// weight, packed for the dense schedule); the kernel transforms the input (V = B^T d B, additions
// only), multiplies (16 independent channel products: the batched packed dense `T_dense_pack`)
// and transforms back (Y = A^T M A). Activations keep NCHW at the kernel's boundary.
#include <cmath>

#include "support/check.h"
#include "support/diagnostic.h"
#include "topi/nn.h"

namespace tessera::topi {
namespace {

// The i-th of `values` for a symbolic index i in [0, values.size()) (a select chain; constant
// once the loop over i is unrolled).
PrimExpr pick(const PrimExpr& i, const std::vector<PrimExpr>& values) {
  PrimExpr out = values.back();
  for (size_t k = values.size() - 1; k-- > 0;)
    out = tir::select(tir::eq(i, tir::intImm(static_cast<int64_t>(k), i->dtype)), values[k], out);
  return out;
}

// B^T x for x = (x0, x1, x2, x3): the rows of F(2x2, 3x3)'s input transform.
std::vector<PrimExpr> inputTransform(const std::vector<PrimExpr>& x) {
  return {x[0] - x[2], x[1] + x[2], x[2] - x[1], x[1] - x[3]};
}

// A^T x: the rows of the output transform.
std::vector<PrimExpr> outputTransform(const std::vector<PrimExpr>& x) {
  return {x[0] + x[1] + x[2], x[1] - x[2] - x[3]};
}

}  // namespace

bool conv2dWinogradApplies(const std::vector<int64_t>& dataShape,
                           const std::vector<int64_t>& weightShape, const Conv2DParams& p) {
  if (dataShape.size() != 4 || weightShape.size() != 4 || p.groups != 1) return false;
  const bool threeByThree = weightShape[2] == 3 && weightShape[3] == 3;
  const bool unit =
      p.strides == std::array<int64_t, 2>{1, 1} && p.dilation == std::array<int64_t, 2>{1, 1};
  // Enough channels that the products dominate the transforms.
  return threeByThree && unit && weightShape[1] == dataShape[1] && dataShape[1] >= 16 &&
         weightShape[0] % 8 == 0;
}

NDArray winogradWeightTransform(const NDArray& weight, int64_t kb) {
  TS_CHECK(weight.ndim() == 4 && weight.shape()[2] == 3 && weight.shape()[3] == 3 && kb > 0 &&
           weight.shape()[0] % kb == 0)
      << "bad Winograd weight";
  const int64_t k = weight.shape()[0], c = weight.shape()[1];
  static const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  // (4, 4, K/kb, C, kb): for each of the 16 products a packed dense weight.
  NDArray u = NDArray::empty({4, 4, k / kb, c, kb}, weight.dtype());
  // `load` and `store` are the element accessors: typed pointers for float32 (the common case;
  // the generic accessors' per-element dtype dispatch cost a large model a second), getFloat and
  // setFloat otherwise. Both compute in double and round once on the store.
  auto transform = [&](auto load, auto store) {
    for (int64_t ko = 0; ko < k; ++ko)
      for (int64_t ci = 0; ci < c; ++ci) {
        double w[3][3];
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) w[a][b] = load(((ko * c + ci) * 3 + a) * 3 + b);
        for (int e = 0; e < 4; ++e)
          for (int n = 0; n < 4; ++n) {
            double sum = 0;
            for (int a = 0; a < 3; ++a)
              for (int b = 0; b < 3; ++b) sum += g[e][a] * w[a][b] * g[n][b];
            store((((e * 4 + n) * (k / kb) + ko / kb) * c + ci) * kb + ko % kb, sum);
          }
      }
  };
  if (weight.dtype() == DataType::float32()) {
    const float* in = weight.as<float>();
    float* out = u.as<float>();
    transform([in](int64_t i) { return static_cast<double>(in[i]); },
              [out](int64_t i, double v) { out[i] = static_cast<float>(v); });
  } else {
    transform([&](int64_t i) { return weight.getFloat(i); },
              [&](int64_t i, double v) { u.setFloat(i, v); });
  }
  return u;
}

Tensor conv2dWinogradNchw(const Tensor& data, const Tensor& transformedWeight,
                          const Conv2DParams& p) {
  const std::string op = "conv2d_winograd";
  const std::vector<int64_t> ds = constShape(data, op), us = constShape(transformedWeight, op);
  if (ds.size() != 4 || us.size() != 5 || us[0] != 4 || us[1] != 4 || us[3] != ds[1])
    throwDiagnostic("topi_conv", op + ": needs NCHW data and a (4, 4, K/kb, C, kb) weight");
  const DataType outDtype = p.outDtype.isVoid() ? data.dtype() : p.outDtype;
  const int64_t batch = ds[0], channels = ds[1], outChannels = us[2] * us[4];
  const int64_t oh = ds[2] + p.padding[0] + p.padding[2] - 2;
  const int64_t ow = ds[3] + p.padding[1] + p.padding[3] - 2;
  if (oh <= 0 || ow <= 0)
    throwDiagnostic("topi_conv", op + ": the window exceeds the padded input");
  const int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2, tiles = batch * th * tw;
  // Padding to whole tiles: an odd output size reads one more (zero) row or column.
  Tensor padded =
      pad(data, {0, 0, p.padding[0], p.padding[1]},
          {0, 0, p.padding[2] + 2 * th - oh, p.padding[3] + 2 * tw - ow}, nullptr, "pad_temp");
  // V (4, 4, C, tiles) = B^T d B for the 4x4 patch d of every tile and channel.
  Tensor v = te::compute(
      shapeOf({4, 4, channels, tiles}),
      [&](Var e, Var n, Var c, Var t) {
        const DataType it = t->dtype;
        PrimExpr image = tir::floordiv(t, tir::intImm(th * tw, it));
        PrimExpr y = mulIdx(
            tir::floordiv(tir::floormod(t, tir::intImm(th * tw, it)), tir::intImm(tw, it)), 2);
        PrimExpr x = mulIdx(tir::floormod(t, tir::intImm(tw, it)), 2);
        std::vector<std::vector<PrimExpr>> rows;  // (B^T d)[row][column]
        std::vector<std::vector<PrimExpr>> d(4, std::vector<PrimExpr>(4));
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 4; ++b) d[a][b] = padded(image, c, addIdx(y, a), addIdx(x, b));
        std::vector<PrimExpr> byRow;
        for (int b = 0; b < 4; ++b) {
          std::vector<PrimExpr> column = inputTransform({d[0][b], d[1][b], d[2][b], d[3][b]});
          for (int r = 0; r < 4; ++r) {
            if (rows.size() <= static_cast<size_t>(r)) rows.emplace_back(4);
            rows[r][b] = column[r];
          }
        }
        std::vector<PrimExpr> perRow;
        for (int r = 0; r < 4; ++r) perRow.push_back(pick(n, inputTransform(rows[r])));
        return tir::cast(outDtype, pick(e, perRow));
      },
      te::ComputeOptions{.name = "T_winograd_input",
                         .tag = "injective",
                         .indexNames = {"eps", "nu", "c", "tile"}});
  // M (4, 4, tiles, K) = V^T U per (eps, nu): the batched packed dense (V read transposed).
  IterVar rc = te::reduceAxis(0, channels, "rc");
  const int64_t kb = us[4];
  Tensor acc = te::compute(
      shapeOf({4, 4, tiles, outChannels}),
      [&](Var e, Var n, Var t, Var k) {
        return te::sum(v(e, n, rc.var, t) *
                           transformedWeight(e, n, tir::floordiv(k, tir::intImm(kb, k->dtype)),
                                             rc.var, tir::floormod(k, tir::intImm(kb, k->dtype))),
                       {rc});
      },
      te::ComputeOptions{
          .name = "T_dense_pack", .tag = "dense_pack", .indexNames = {"eps", "nu", "tile", "k"}});
  Tensor m = te::compute(
      shapeOf({4, 4, tiles, outChannels}),
      [&](Var e, Var n, Var t, Var k) { return acc(e, n, t, k); },
      te::ComputeOptions{
          .name = "T_dense", .tag = "injective", .indexNames = {"eps", "nu", "tile", "k"}});
  // Y (N, K, th, tw, 2, 2) = A^T M A per tile.
  Tensor y = te::compute(
      shapeOf({batch, outChannels, th, tw, 2, 2}),
      [&](Var b, Var k, Var ty, Var tx, Var i, Var j) {
        PrimExpr t = addIdx(addIdx(mulIdx(b, th * tw), mulIdx(ty, tw)), tx);
        std::vector<PrimExpr> perRow;
        for (int e = 0; e < 4; ++e) {
          std::vector<PrimExpr> row;
          for (int n = 0; n < 4; ++n) row.push_back(m(tir::intImm(e), tir::intImm(n), t, k));
          perRow.push_back(pick(j, outputTransform(row)));
        }
        return pick(i, outputTransform(perRow));
      },
      te::ComputeOptions{.name = "T_winograd_output",
                         .tag = "winograd_output",
                         .indexNames = {"n", "k", "ty", "tx", "i", "j"}});
  return te::compute(
      shapeOf({batch, outChannels, oh, ow}),
      [&](Var b, Var k, Var h, Var w) {
        const DataType it = h->dtype;
        return y(b, k, tir::floordiv(h, tir::intImm(2, it)), tir::floordiv(w, tir::intImm(2, it)),
                 tir::floormod(h, tir::intImm(2, it)), tir::floormod(w, tir::intImm(2, it)));
      },
      te::ComputeOptions{.name = "T_conv2d_winograd_unpack",
                         .tag = "injective",
                         .indexNames = {"n", "c", "h", "w"}});
}

}  // namespace tessera::topi
