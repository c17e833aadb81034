// shape_of (kOpaque, a VM builtin): the extents of a tensor as a 1-D int64 or int32 tensor. The
// ONNX importer follows the shape of a tensor with `?` extents entry by entry where it can
// (frontend/onnx/convert_symbolic_shape.cc); shape_of is the same value as a run-time tensor, for
// the ops that read it as data (ReduceMin over a count, TopK's k). Its extent is static, its
// values are not, so like the data-dependent ops it has no TE compute and runs as a builtin.
// dyn.reshape reads such a value as its new shape (TVM's dyn.reshape): the importer uses it where
// a shape has more than one entry known only at run time, which Relay's reshape cannot infer.
#include <string>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/diagnostic.h"

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

std::optional<Type> dynReshapeRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  const TensorTypeNode* s = r.tensorArg(1);
  if (!t || !s) return std::nullopt;
  if (!s->dtype.isInt() || s->ndim() != 1 || !s->shape[0].isConst())
    r.fail("dyn.reshape_c1", "newshape must be a 1-D signed integer tensor of static length, got " +
                                 typeToString(r.arg(1)));
  return tensorType(Shape(static_cast<size_t>(s->shape[0].value()), Dim::any()), t->dtype);
}

// ONNX Reshape's reading of a shape (allowzero = 0): 0 copies the input's extent at that
// position, one -1 is inferred from the element count.
Value dynReshapeKernel(const std::vector<Value>& args, const AttrsNode*, const Type&) {
  const NDArray& x = tensorAt(args, 0);
  const NDArray& spec = tensorAt(args, 1);
  std::vector<int64_t> shape;
  int64_t known = 1, inferred = -1;
  for (int64_t k = 0; k < spec.numel(); ++k) {
    int64_t e = spec.getInt(k);
    if (e == 0 && k < x.ndim()) e = x.shape()[k];
    if (e == -1 && inferred < 0)
      inferred = k;
    else if (e < 0)
      throwDiagnostic("dyn.reshape",
                      "newshape " + spec.describe() + " has the extent " + std::to_string(e));
    else
      known *= e;
    shape.push_back(e);
  }
  if (inferred >= 0 && known > 0 && x.numel() % known == 0) shape[inferred] = x.numel() / known;
  int64_t numel = 1;
  for (int64_t e : shape) numel *= e;
  if (numel != x.numel() || (inferred >= 0 && shape[inferred] < 0))
    throwDiagnostic("dyn.reshape", "cannot reshape " + x.describe() + " to " + listToString(shape));
  return x.copy().reshaped(shape);
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
  r.add(OpDef{.name = "dyn.reshape",
              .args = {"data", "newshape"},
              .summary = "data with the shape read from newshape when the program runs",
              .typeRelation = dynReshapeRel,
              .pattern = OpPattern::kOpaque,
              .kernel = dynReshapeKernel,
              .dataDependentShape = true});
}

Expr dynReshape(Expr data, Expr newshape) {
  return makeCall(opByName("dyn.reshape"), {std::move(data), std::move(newshape)});
}

Expr shapeOf(Expr data, DataType dtype) {
  return makeCall(opByName("shape_of"), {std::move(data)}, makeAttrs(ShapeOfAttrs{.dtype = dtype}));
}

}  // namespace tessera::relay
