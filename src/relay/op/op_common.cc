#include "relay/op/op_common.h"

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay {

std::optional<Type> identityRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  return r.arg(0);
}

Shape broadcastShapes(const Shape& a, const Shape& b, const TypeReporter& r,
                      const std::string& code) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n, Dim(1));
  for (size_t k = 0; k < n; ++k) {
    // Align from the right; a missing leading axis acts as 1.
    const Dim da = k < a.size() ? a[a.size() - 1 - k] : Dim(1);
    const Dim db = k < b.size() ? b[b.size() - 1 - k] : Dim(1);
    Dim d = da;
    if (da.isConst() && da.value() == 1)
      d = db;
    else if (db.isConst() && db.value() == 1)
      d = da;
    else if (da.isAny())
      d = db;
    else if (db.isAny())
      d = da;
    else if (r.assumeEqual(da, db, "dimension " + std::to_string(n - 1 - k) + " of the inputs"))
      // Two symbolic extents, or one and a constant: equal when the program runs (checked then),
      // as TVM assumes; an extent of 1 there is refused, not broadcast.
      d = db.isConst() ? db : da;
    else if (!(da == db))
      r.fail(code, "shapes " + shapeToString(a) + " and " + shapeToString(b) +
                       " cannot be broadcast: dimension " + da.str() + " vs " + db.str());
    out[n - 1 - k] = d;
  }
  return out;
}

std::optional<Type> broadcastRel(const TypeReporter& r, DataType outDtype) {
  const TensorTypeNode* a = r.tensorArg(0);
  const TensorTypeNode* b = r.tensorArg(1);
  if (!a || !b) return std::nullopt;
  if (a->dtype != b->dtype)
    r.fail("dtype", "operands must have the same dtype but lhs is " + a->dtype.name() +
                        " and rhs is " + b->dtype.name());
  return tensorType(broadcastShapes(a->shape, b->shape, r),
                    outDtype.isVoid() ? a->dtype : outDtype);
}

int normalizeAxis(int64_t axis, int rank, const TypeReporter& r, const std::string& code) {
  const int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank)
    r.fail(code,
           "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(normalized);
}

std::string listToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

const NDArray& tensorAt(const std::vector<Value>& args, size_t i) {
  TS_CHECK(i < args.size()) << "argument " << i << " of " << args.size();
  TS_CHECK(args[i].isTensor()) << "argument " << i << " is not a tensor";
  return args[i].tensor();
}

std::vector<int64_t> staticDims(const Type& type) {
  const auto* t = type ? type->as<TensorTypeNode>() : nullptr;
  TS_CHECK(t) << "expected a tensor type, got " << typeToString(type);
  std::optional<std::vector<int64_t>> dims = staticShape(t->shape);
  if (!dims)
    throwDiagnostic("dynamic_shape",
                    "cannot allocate a tensor of non-static type " + typeToString(type));
  return *dims;
}

NDArray allocTensor(const Type& type) {
  return NDArray::empty(staticDims(type), type->as<TensorTypeNode>()->dtype);
}

BroadcastIndexer::BroadcastIndexer(const std::vector<int64_t>& inShape,
                                   const std::vector<int64_t>& outShape)
    : outShape_(outShape), inStrides_(outShape.size(), 0) {
  TS_CHECK(inShape.size() <= outShape.size());
  const size_t offset = outShape.size() - inShape.size();
  int64_t stride = 1;
  for (size_t k = inShape.size(); k-- > 0;) {
    inStrides_[offset + k] = inShape[k] == 1 ? 0 : stride;
    stride *= inShape[k];
  }
}

int64_t BroadcastIndexer::map(int64_t outIndex) const {
  int64_t inIndex = 0;
  for (size_t k = outShape_.size(); k-- > 0;) {
    const int64_t coord = outIndex % outShape_[k];
    outIndex /= outShape_[k];
    inIndex += coord * inStrides_[k];
  }
  return inIndex;
}

int compareElements(const NDArray& x, int64_t i, int64_t j) {
  const DataType dtype = x.dtype();
  if (dtype.isFloat()) {
    const double a = x.getFloat(i), b = x.getFloat(j);
    const bool an = a != a, bn = b != b;
    if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
    return a < b ? -1 : (a > b ? 1 : 0);
  }
  if (dtype.isInt()) {
    const int64_t a = x.getInt(i), b = x.getInt(j);
    return a < b ? -1 : (a > b ? 1 : 0);
  }
  const uint64_t a = x.getUInt(i), b = x.getUInt(j);
  return a < b ? -1 : (a > b ? 1 : 0);
}

std::vector<int64_t> unravelIndex(int64_t index, const std::vector<int64_t>& shape) {
  std::vector<int64_t> coords(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    coords[k] = index % shape[k];
    index /= shape[k];
  }
  return coords;
}

int64_t ravelIndex(const std::vector<int64_t>& coords, const std::vector<int64_t>& shape) {
  int64_t index = 0;
  for (size_t k = 0; k < shape.size(); ++k) index = index * shape[k] + coords[k];
  return index;
}

Type inferCallType(const std::string& opName, const std::vector<Type>& argTypes, Attrs attrs) {
  OpDef* def = OpRegistry::global().find(opName);
  if (!def) throwDiagnostic("unknown_op", "no operator named '" + opName + "' is registered");
  if (!attrs) attrs = def->defaultAttrs;
  if (argTypes.size() != def->args.size())
    throwDiagnostic("arity", opName + " takes " + std::to_string(def->args.size()) +
                                 " arguments but " + std::to_string(argTypes.size()) +
                                 " were given");
  std::vector<Type> args = argTypes;
  TypeReporter reporter(def->name, args, attrs.get(), Span{}, [&](size_t i, const Type& t) {
    if (args[i]->kind == TypeKind::kIncomplete) return;
    if (!typeEqual(args[i], t))
      throwDiagnostic("type", "argument " + def->args[i] + " of " + opName + " has type " +
                                  typeToString(args[i]) + " but " + typeToString(t) +
                                  " is expected");
  });
  std::optional<Type> out = def->typeRelation(reporter);
  TS_CHECK(out.has_value()) << "type relation of " << opName << " could not decide";
  return *out;
}

Type valueType(const Value& v) {
  if (v.isTensor()) return tensorType(v.tensor().shape(), v.tensor().dtype());
  TS_CHECK(v.isTuple()) << "closures have no tensor type";
  std::vector<Type> fields;
  for (const Value& f : v.fields()) fields.push_back(valueType(f));
  return tupleType(std::move(fields));
}

Value evalOp(const std::string& opName, const std::vector<Value>& args, Attrs attrs) {
  OpDef* def = OpRegistry::global().find(opName);
  if (!def) throwDiagnostic("unknown_op", "no operator named '" + opName + "' is registered");
  if (!attrs) attrs = def->defaultAttrs;
  std::vector<Type> types;
  for (const Value& a : args) types.push_back(valueType(a));
  Type out = inferCallType(opName, types, attrs);
  TS_CHECK(def->kernel) << opName << " has no reference kernel";
  return def->kernel(args, attrs.get(), out);
}

}  // namespace tessera::relay
