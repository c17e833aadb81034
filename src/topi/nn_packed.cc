// Dense and conv2d over weights packed at compile time, the layouts the x86 schedules expect
// (topi/x86/): a dense weight (N, K) becomes (N/nr, K, nr) and a conv2d weight (O, I, KH, KW)
// becomes (O/ob, I, KH, KW, ob), so the innermost reduction step reads `nr` (or `ob`) output
// channels as one contiguous vector. The packers run on constants while compiling; the computes
// keep the graph's layouts at their boundary (dense (..., N), conv2d NCHW), so a packed kernel
// is a drop-in replacement for the plain one.
#include <algorithm>
#include <cstring>
#include <vector>

#include "support/check.h"
#include "support/diagnostic.h"
#include "support/element_type.h"
#include "topi/nn.h"

namespace tessera::topi {
namespace {

// (rows, inner) -> (rows / block, inner, block): the layout both packings share. The loops
// follow the destination, so it is written sequentially while `block` source rows are read in
// step (a 400 MB dense weight packs in a fraction of a second instead of seconds).
template <typename T>
void blockRows(const T* src, T* dst, int64_t rows, int64_t inner, int64_t block) {
  for (int64_t b = 0; b < rows / block; ++b)
    for (int64_t r = 0; r < inner; ++r) {
      T* out = dst + (b * inner + r) * block;
      const T* in = src + b * block * inner + r;
      for (int64_t lane = 0; lane < block; ++lane) out[lane] = in[lane * inner];
    }
}

void blockRows(const NDArray& src, const NDArray& dst, int64_t rows, int64_t inner, int64_t block) {
  withElementType(src.dtype().bytes(), [&](auto element) {
    using T = decltype(element);
    blockRows(static_cast<const T*>(src.data()), static_cast<T*>(dst.data()), rows, inner, block);
  });
}

// a (..., M, K) x packed (batch..., N/nr, K, nr) -> (broadcast batch..., M, N): the reduction
// `T_dense_pack` over the packed right operand, then `T_dense`, a copy stage that the schedule
// keeps as the output (where an epilogue such as bias + relu is inlined) while the accumulator
// tile stays in registers. Leading dims of `a` broadcast against the packed operand's batch dims.
Tensor productOverPacked(const Tensor& a, const Tensor& packed, DataType outDtype) {
  const std::vector<int64_t> as = constShape(a, "dense_pack"),
                             ps = constShape(packed, "dense_pack");
  if (outDtype.isVoid()) outDtype = a.dtype();
  const size_t nbB = ps.size() - 3;
  const int64_t nr = ps.back(), k = ps[nbB + 1];
  if (as.back() != k) throwDiagnostic("topi_matmul", "dense_pack: reduction extents differ");
  std::vector<PrimExpr> batchA(a.shape().begin(), a.shape().end() - 2);
  std::vector<PrimExpr> batchB(packed.shape().begin(),
                               packed.shape().begin() + static_cast<long>(nbB));
  std::vector<PrimExpr> shape = broadcastShape(batchA, batchB, "matmul");
  const size_t nb = shape.size();
  shape.push_back(a.shape()[as.size() - 2]);
  shape.push_back(tir::intImm(ps[nbB] * nr));
  IterVar r = te::reduceAxis(0, k, "k");
  // An operand's batch index from the output's (broadcast dims of size 1 read 0).
  auto batchIndex = [&](const std::vector<int64_t>& dims, size_t rank, const std::vector<Var>& i) {
    std::vector<PrimExpr> idx;
    for (size_t d = 0; d < rank; ++d) {
      const Var& v = i[nb - rank + d];
      idx.push_back(dims[d] == 1 && !tir::isOne(shape[nb - rank + d]) ? tir::intImm(0)
                                                                      : PrimExpr(v));
    }
    return idx;
  };
  Tensor acc = te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> ia = batchIndex(as, as.size() - 2, i), ib = batchIndex(ps, nbB, i);
        ia.push_back(i[nb]);
        ia.push_back(r.var);
        const Var& j = i[nb + 1];
        ib.push_back(tir::floordiv(j, tir::intImm(nr, j->dtype)));
        ib.push_back(r.var);
        ib.push_back(tir::floormod(j, tir::intImm(nr, j->dtype)));
        return te::sum(tir::cast(outDtype, a(ia)) * tir::cast(outDtype, packed(ib)), {r});
      },
      te::ComputeOptions{
          .name = "T_dense_pack", .tag = "dense_pack", .indexNames = axisNames(shape.size(), "i")});
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) { return acc(std::vector<PrimExpr>(i.begin(), i.end())); },
      te::ComputeOptions{
          .name = "T_dense", .tag = "injective", .indexNames = axisNames(shape.size(), "ax")});
}

}  // namespace

namespace {

// blockRows within one buffer: each destination block occupies exactly the bytes of the `block`
// source rows it is made of, so one block of scratch is all the extra memory.
template <typename T>
void blockRowsInPlace(T* data, int64_t rows, int64_t inner, int64_t block) {
  std::vector<T> scratch(static_cast<size_t>(block * inner));
  for (int64_t b = 0; b < rows / block; ++b) {
    T* region = data + b * block * inner;
    std::copy(region, region + block * inner, scratch.data());
    blockRows(scratch.data(), region, block, inner, block);
  }
}

NDArray blockRowsInPlace(NDArray weight, std::vector<int64_t> packedShape, int64_t inner,
                         int64_t block) {
  TS_CHECK(weight.soleOwner()) << "packing in place needs the only reference to the weight";
  const int64_t rows = weight.shape()[0];
  withElementType(weight.dtype().bytes(), [&](auto element) {
    blockRowsInPlace(weight.as<decltype(element)>(), rows, inner, block);
  });
  return weight.reshaped(std::move(packedShape));
}

}  // namespace

NDArray packDenseWeightInPlace(NDArray weight, int64_t nr) {
  TS_CHECK(weight.ndim() == 2 && nr > 0 && weight.shape()[0] % nr == 0) << "bad dense packing";
  const int64_t n = weight.shape()[0], k = weight.shape()[1];
  return blockRowsInPlace(std::move(weight), {n / nr, k, nr}, k, nr);
}

NDArray packConv2dWeightInPlace(NDArray weight, int64_t ob) {
  TS_CHECK(weight.ndim() == 4 && ob > 0 && weight.shape()[0] % ob == 0) << "bad conv packing";
  const std::vector<int64_t> s = weight.shape();
  return blockRowsInPlace(std::move(weight), {s[0] / ob, s[1], s[2], s[3], ob}, s[1] * s[2] * s[3],
                          ob);
}

NDArray packDenseWeight(const NDArray& weight, int64_t nr) {
  TS_CHECK(weight.ndim() == 2 && nr > 0 && weight.shape()[0] % nr == 0) << "bad dense packing";
  const int64_t n = weight.shape()[0], k = weight.shape()[1];
  NDArray packed = NDArray::empty({n / nr, k, nr}, weight.dtype());
  blockRows(weight, packed, n, k, nr);
  return packed;
}

NDArray packConv2dWeight(const NDArray& weight, int64_t ob) {
  TS_CHECK(weight.ndim() == 4 && ob > 0 && weight.shape()[0] % ob == 0) << "bad conv packing";
  const std::vector<int64_t>& s = weight.shape();
  const int64_t inner = s[1] * s[2] * s[3];  // I * KH * KW, contiguous per output channel
  NDArray packed = NDArray::empty({s[0] / ob, s[1], s[2], s[3], ob}, weight.dtype());
  blockRows(weight, packed, s[0], inner, ob);
  return packed;
}

Tensor densePacked(const Tensor& data, const Tensor& packed, DataType outDtype) {
  if (data.ndim() < 2 || packed.ndim() != 3)
    throwDiagnostic("topi_dense", "dense_pack: needs data of rank >= 2 and a (N/nr, K, nr) weight");
  return productOverPacked(data, packed, outDtype);
}

Tensor conv2dNchwPacked(const Tensor& data, const Tensor& packed, const Conv2DParams& p) {
  const std::string op = "conv2d_nchw_pack";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(packed, op);
  if (ds.size() != 4 || ws.size() != 5 || ws[1] != ds[1] || p.groups != 1)
    throwDiagnostic("topi_conv", op + ": needs NCHW data and an (O/ob, I, KH, KW, ob) weight");
  const DataType outDtype = p.outDtype.isVoid() ? data.dtype() : p.outDtype;
  const int64_t ob = ws[4];
  const int64_t span = (ws[2] - 1) * p.dilation[0] + 1, spanX = (ws[3] - 1) * p.dilation[1] + 1;
  const int64_t oh = (ds[2] + p.padding[0] + p.padding[2] - span) / p.strides[0] + 1;
  const int64_t ow = (ds[3] + p.padding[1] + p.padding[3] - spanX) / p.strides[1] + 1;
  if (oh <= 0 || ow <= 0)
    throwDiagnostic("topi_conv", op + ": the window exceeds the padded input");
  Tensor padded = pad(data, {0, 0, p.padding[0], p.padding[1]}, {0, 0, p.padding[2], p.padding[3]},
                      nullptr, "pad_temp");
  IterVar rc = te::reduceAxis(0, ds[1], "rc");
  IterVar ry = te::reduceAxis(0, ws[2], "ry");
  IterVar rx = te::reduceAxis(0, ws[3], "rx");
  // Output channels blocked innermost (N, O/ob, OH, OW, ob): the accumulator tile of the
  // schedule is contiguous along the vector of output channels.
  Tensor acc = te::compute(
      shapeOf({ds[0], ws[0], oh, ow, ob}),
      [&](Var n, Var oc, Var y, Var x, Var ocb) {
        PrimExpr row = addIdx(mulIdx(y, p.strides[0]), mulIdx(ry.var, p.dilation[0]));
        PrimExpr col = addIdx(mulIdx(x, p.strides[1]), mulIdx(rx.var, p.dilation[1]));
        return te::sum(tir::cast(outDtype, padded(n, rc.var, row, col)) *
                           tir::cast(outDtype, packed(oc, rc.var, ry.var, rx.var, ocb)),
                       {rc, ry, rx});
      },
      te::ComputeOptions{
          .name = op, .tag = op, .indexNames = {"n", "oc_chunk", "oh", "ow", "oc_block"}});
  return te::compute(
      shapeOf({ds[0], ws[0] * ob, oh, ow}),
      [&](Var n, Var c, Var y, Var x) {
        return acc(n, tir::floordiv(c, tir::intImm(ob, c->dtype)), y, x,
                   tir::floormod(c, tir::intImm(ob, c->dtype)));
      },
      te::ComputeOptions{
          .name = "T_conv2d_unpack", .tag = "injective", .indexNames = {"n", "c", "h", "w"}});
}

bool conv2d1x1AsMatmul(const std::vector<int64_t>& dataShape,
                       const std::vector<int64_t>& weightShape, const Conv2DParams& p,
                       bool partialPanels) {
  if (dataShape.size() != 4 || weightShape.size() != 4) return false;
  const bool pointwise =
      weightShape[2] == 1 && weightShape[3] == 1 && p.groups == 1 && weightShape[1] == dataShape[1];
  const bool unitSteps = p.strides == std::array<int64_t, 2>{1, 1} &&
                         p.dilation == std::array<int64_t, 2>{1, 1} &&
                         p.padding == std::array<int64_t, 4>{0, 0, 0, 0};
  const int64_t pixels = dataShape[2] * dataShape[3];
  return pointwise && unitSteps && (pixels % 16 == 0 || (partialPanels && pixels >= 16));
}

Tensor conv2d1x1Nchw(const Tensor& data, const Tensor& weight, DataType outDtype) {
  const std::string op = "conv2d_1x1";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (outDtype.isVoid()) outDtype = data.dtype();
  const int64_t height = ds[2], width = ds[3];
  IterVar rc = te::reduceAxis(0, ds[1], "rc");
  // (N, O, H*W): the output pixels of a channel form one row, so a tile of pixels is a
  // contiguous vector of the input's rows and of the output's.
  Tensor acc = te::compute(
      shapeOf({ds[0], ws[0], height * width}),
      [&](Var n, Var oc, Var pixel) {
        PrimExpr w = tir::intImm(width, pixel->dtype);
        return te::sum(
            tir::cast(outDtype, data(n, rc.var, tir::floordiv(pixel, w), tir::floormod(pixel, w))) *
                tir::cast(outDtype, weight(oc, rc.var, tir::intImm(0), tir::intImm(0))),
            {rc});
      },
      te::ComputeOptions{.name = op, .tag = op, .indexNames = {"n", "oc", "pixel"}});
  return te::compute(
      shapeOf({ds[0], ws[0], height, width}),
      [&](Var n, Var c, Var y, Var x) { return acc(n, c, addIdx(mulIdx(y, width), x)); },
      te::ComputeOptions{
          .name = "T_conv2d_1x1_unpack", .tag = "injective", .indexNames = {"n", "c", "h", "w"}});
}

int64_t matmulBlockSize(int64_t columns) {
  if (columns % 32 == 0 && columns >= 64) return 32;
  for (int64_t b : {16, 8})
    if (columns % b == 0) return b;
  return columns <= 32 ? columns : 0;
}

Tensor matmulPacked(const Tensor& a, const Tensor& b, bool transposeB, int64_t nr,
                    DataType outDtype) {
  const std::vector<int64_t> as = constShape(a, "matmul_pack"), bs = constShape(b, "matmul_pack");
  if (as.size() < 2 || bs.size() < 2)
    throwDiagnostic("topi_matmul", "matmul_pack: both operands need rank >= 2");
  if (outDtype.isVoid()) outDtype = a.dtype();
  const size_t rb = bs.size();
  const int64_t k = as.back(), n = transposeB ? bs[rb - 2] : bs[rb - 1];
  if (nr <= 0 || n % nr != 0) throwDiagnostic("topi_matmul", "matmul_pack: bad block size");
  // B as (batch..., N/nr, K, nr), copied inside the kernel (B is not a constant here).
  std::vector<int64_t> packedShape(bs.begin(), bs.end() - 2);
  const size_t nbB = packedShape.size();
  packedShape.insert(packedShape.end(), {n / nr, k, nr});
  Tensor packed = te::compute(
      shapeOf(packedShape),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.begin() + static_cast<long>(nbB));
        PrimExpr col = addIdx(mulIdx(i[nbB], nr), i[nbB + 2]);
        if (transposeB) {
          idx.push_back(col);
          idx.push_back(i[nbB + 1]);
        } else {
          idx.push_back(i[nbB + 1]);
          idx.push_back(col);
        }
        return b(idx);
      },
      te::ComputeOptions{.name = "T_pack_b",
                         .tag = "injective",
                         .indexNames = axisNames(packedShape.size(), "ax")});
  return productOverPacked(a, packed, outDtype);
}

}  // namespace tessera::topi
