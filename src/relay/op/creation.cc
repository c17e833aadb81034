// Tensor creation (kElemWise): zeros, ones and full from InitOpAttrs (shape, dtype), and the
// *_like variants that take their type from an argument. full converts its scalar fill value with
// cast's semantics, so full(300f, dtype=int8) saturates exactly as cast would.
#include <cstring>
#include <string>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/tensor.h"

namespace tessera::relay {
namespace {

// Checks InitOpAttrs' shape (<op>_c2) and returns the output type with `dtype`.
Type initType(const TypeReporter& r, DataType dtype) {
  const std::vector<int64_t>& shape = r.attrs<InitOpAttrs>().shape;
  for (int64_t d : shape) {
    if (d < 0)
      r.fail(r.opName() + "_c2", "shape " + listToString(shape) + " has a negative dimension");
  }
  return tensorType(shape, dtype);
}

// zeros, ones: no arguments; the dtype attribute must be set (<op>_c1).
std::optional<Type> initRel(const TypeReporter& r) {
  const DataType dtype = r.attrs<InitOpAttrs>().dtype;
  if (dtype.isVoid()) {
    r.fail(r.opName() + "_c1", "dtype must be set to create a tensor of shape " +
                                   listToString(r.attrs<InitOpAttrs>().shape));
  }
  return initType(r, dtype);
}

// full: the fill value must be a scalar (full_c3); an unset dtype takes the fill value's.
std::optional<Type> fullRel(const TypeReporter& r) {
  const TensorTypeNode* fill = r.tensorArg(0);
  if (!fill) return std::nullopt;
  if (fill->ndim() != 0) {
    r.fail("full_c3", "fill_value must be a scalar but has type " + typeToString(r.arg(0)));
  }
  const DataType dtype = r.attrs<InitOpAttrs>().dtype;
  return initType(r, dtype.isVoid() ? fill->dtype : dtype);
}

// full_like: data's type; the fill value must be a scalar (full_like_c1).
std::optional<Type> fullLikeRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  const TensorTypeNode* fill = r.tensorArg(1);
  if (!data || !fill) return std::nullopt;
  if (fill->ndim() != 0) {
    r.fail("full_like_c1", "fill_value must be a scalar but has type " + typeToString(r.arg(1)));
  }
  return r.arg(0);
}

// Fills `out` with the scalar `fill` converted to out's dtype as cast converts it.
NDArray filled(const NDArray& fill, const Type& outType) {
  NDArray out = allocTensor(outType);
  const NDArray value = evalOp("cast", {fill}, makeAttrs(CastAttrs{.dtype = out.dtype()})).tensor();
  const size_t size = static_cast<size_t>(out.dtype().bytes());
  for (int64_t i = 0; i < out.numel(); ++i)
    std::memcpy(static_cast<char*>(out.data()) + i * size, value.data(), size);
  return out;
}

Value zerosKernel(const std::vector<Value>&, const AttrsNode*, const Type& outType) {
  return allocTensor(outType);  // allocation zero-fills
}

// setInt(1) stores 1 in every dtype, including floats and bool.
Value onesKernel(const std::vector<Value>&, const AttrsNode*, const Type& outType) {
  NDArray out = allocTensor(outType);
  for (int64_t i = 0; i < out.numel(); ++i) out.setInt(i, 1);
  return out;
}

Value fullKernel(const std::vector<Value>& args, const AttrsNode*, const Type& outType) {
  return filled(tensorAt(args, 0), outType);
}

Value fullLikeKernel(const std::vector<Value>& args, const AttrsNode*, const Type& outType) {
  return filled(tensorAt(args, 1), outType);
}

}  // namespace

// zeros/ones/full share InitOpAttrs with broadcast_to (as TVM does); the *_like ops take their
// whole type from `data` and need no attributes.
void registerCreationOps(OpRegistry& r) {
  r.add(OpDef{.name = "zeros",
              .args = {},
              .summary = "a tensor of zeros",
              .attrs = attrsType<InitOpAttrs>(),
              .typeRelation = initRel,
              .pattern = OpPattern::kElemWise,
              .kernel = zerosKernel});
  r.add(OpDef{.name = "ones",
              .args = {},
              .summary = "a tensor of ones",
              .attrs = attrsType<InitOpAttrs>(),
              .typeRelation = initRel,
              .pattern = OpPattern::kElemWise,
              .kernel = onesKernel});
  r.add(OpDef{.name = "full",
              .args = {"fill_value"},
              .summary = "a tensor filled with a scalar",
              .attrs = attrsType<InitOpAttrs>(),
              .typeRelation = fullRel,
              .pattern = OpPattern::kElemWise,
              .kernel = fullKernel});
  r.add(OpDef{.name = "zeros_like",
              .args = {"data"},
              .summary = "zeros of data's type",
              .typeRelation = identityRel,
              .pattern = OpPattern::kElemWise,
              .kernel = zerosKernel});
  r.add(OpDef{.name = "ones_like",
              .args = {"data"},
              .summary = "ones of data's type",
              .typeRelation = identityRel,
              .pattern = OpPattern::kElemWise,
              .kernel = onesKernel});
  r.add(OpDef{.name = "full_like",
              .args = {"data", "fill_value"},
              .summary = "data's type filled with a scalar",
              .typeRelation = fullLikeRel,
              .pattern = OpPattern::kElemWise,
              .kernel = fullLikeKernel});
}

// --- builders ------------------------------------------------------------------------------------

Expr zeros(std::vector<int64_t> shape, DataType dtype) {
  return makeCall(opByName("zeros"), {},
                  makeAttrs(InitOpAttrs{.shape = std::move(shape), .dtype = dtype}));
}
Expr ones(std::vector<int64_t> shape, DataType dtype) {
  return makeCall(opByName("ones"), {},
                  makeAttrs(InitOpAttrs{.shape = std::move(shape), .dtype = dtype}));
}
Expr full(Expr fillValue, std::vector<int64_t> shape, DataType dtype) {
  return makeCall(opByName("full"), {std::move(fillValue)},
                  makeAttrs(InitOpAttrs{.shape = std::move(shape), .dtype = dtype}));
}
Expr zerosLike(Expr data) {
  return makeCall(opByName("zeros_like"), {std::move(data)});
}
Expr onesLike(Expr data) {
  return makeCall(opByName("ones_like"), {std::move(data)});
}
Expr fullLike(Expr data, Expr fillValue) {
  return makeCall(opByName("full_like"), {std::move(data), std::move(fillValue)});
}

}  // namespace tessera::relay
