// shape_of (kOpaque, a VM builtin): the extents of a tensor as a 1-D int64 or int32 tensor. The
// ONNX importer follows the shape of a tensor with `?` extents entry by entry where it can
// (frontend/onnx/convert_symbolic_shape.cc); shape_of is the same value as a run-time tensor, for
// the ops that read it as data (ReduceMin over a count, TopK's k). Its extent is static, its
// values are not, so like the data-dependent ops it has no TE compute and runs as a builtin.
#include <string>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {
namespace {

std::optional<Type> shapeOfRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const DataType dtype = r.attrs<ShapeOfAttrs>().dtype;
  if (dtype != DataType::int64() && dtype != DataType::int32())
    r.fail("shape_of_c1", "dtype must be int64 or int32, got " + dtype.name());
  return tensorType(Shape{Dim(static_cast<int64_t>(t->ndim()))}, dtype);
}

Value shapeOfKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type&) {
  const NDArray& x = tensorAt(args, 0);
  const DataType dtype = attrsOrDefault<ShapeOfAttrs>(attrs).dtype;
  NDArray out = NDArray::empty({x.ndim()}, dtype);
  for (int64_t k = 0; k < x.ndim(); ++k) out.setInt(k, x.shape()[k]);
  return out;
}

}  // namespace

void registerShapeOfOps(OpRegistry& r) {
  r.add(OpDef{.name = "shape_of",
              .args = {"data"},
              .summary = "the extents of data as a 1-D integer tensor, read when the program runs",
              .attrs = attrsType<ShapeOfAttrs>(),
              .typeRelation = shapeOfRel,
              .pattern = OpPattern::kOpaque,
              .kernel = shapeOfKernel,
              .dataDependentShape = true});
}

Expr shapeOf(Expr data, DataType dtype) {
  return makeCall(opByName("shape_of"), {std::move(data)}, makeAttrs(ShapeOfAttrs{.dtype = dtype}));
}

}  // namespace tessera::relay
