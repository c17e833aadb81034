// The conv3d compute (TVM's topi.nn.conv3d_ncdhw): `pad_temp`, then one reduction over the input
// channels of the group and the three window axes. Operands are cast to the output dtype before
// multiplying, as the reference kernel does. It gets only the generic schedule steps: no x86
// template exists for it (TVM's x86 conv3d packs NCDHWc; relay.testing's resnet_3d is its only
// user here).
#include "support/diagnostic.h"
#include "topi/nn.h"

namespace tessera::topi {

Tensor conv3dNcdhw(const Tensor& data, const Tensor& weight, const Conv3DParams& p) {
  const std::string op = "conv3d_ncdhw";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(weight, op);
  if (ds.size() != 5 || ws.size() != 5) throwDiagnostic("topi_conv", op + ": needs 5-D operands");
  const int64_t groups = p.groups, cinPerGroup = ws[1], cout = ws[0];
  const int64_t coutPerGroup = cout / groups;
  std::vector<int64_t> outShape = {ds[0], cout};
  for (int d = 0; d < 3; ++d) {
    const int64_t span = (ws[2 + d] - 1) * p.dilation[d] + 1;
    const int64_t padded = ds[2 + d] + p.padding[d] + p.padding[d + 3];
    if (padded < span)
      throwDiagnostic("topi_conv", op + ": the dilated window " + std::to_string(span) +
                                       " exceeds the padded input " + std::to_string(padded));
    outShape.push_back((padded - span) / p.strides[d] + 1);
  }
  const DataType outDtype = p.outDtype.isVoid() ? data.dtype() : p.outDtype;
  Tensor padded = pad(data, {0, 0, p.padding[0], p.padding[1], p.padding[2]},
                      {0, 0, p.padding[3], p.padding[4], p.padding[5]}, nullptr, "pad_temp");
  IterVar rc = te::reduceAxis(0, cinPerGroup, "rc");
  IterVar rz = te::reduceAxis(0, ws[2], "rz");
  IterVar ry = te::reduceAxis(0, ws[3], "ry");
  IterVar rx = te::reduceAxis(0, ws[4], "rx");
  return te::compute(
      shapeOf(outShape),
      [&](const std::vector<Var>& i) {
        const Var &nn = i[0], &ff = i[1];
        PrimExpr channel = rc.var;
        if (groups > 1)
          channel =
              addIdx(mulIdx(tir::floordiv(ff, tir::intImm(coutPerGroup)), cinPerGroup), rc.var);
        const PrimExpr z = addIdx(mulIdx(i[2], p.strides[0]), mulIdx(rz.var, p.dilation[0]));
        const PrimExpr y = addIdx(mulIdx(i[3], p.strides[1]), mulIdx(ry.var, p.dilation[1]));
        const PrimExpr x = addIdx(mulIdx(i[4], p.strides[2]), mulIdx(rx.var, p.dilation[2]));
        return te::sum(tir::cast(outDtype, padded({nn, channel, z, y, x})) *
                           tir::cast(outDtype, weight({ff, rc.var, rz.var, ry.var, rx.var})),
                       {rc, rz, ry, rx});
      },
      te::ComputeOptions{
          .name = op, .tag = "conv3d_ncdhw", .indexNames = {"nn", "ff", "zz", "yy", "xx"}});
}

}  // namespace tessera::topi
