// Shape values of tensors with a `?` extent. PyTorch exports `x.view(x.size(0), -1)` as Shape ->
// Gather -> Unsqueeze -> Concat -> Reshape; with a dynamic batch the Shape is not a constant. Such
// a value is two things here: a run-time tensor (`shape_of` and the ordinary converters of the
// ops that select and join it), which any operator may read, and the same value followed entry by
// entry at import (a known number, extent k of a tensor, or unknown). A Reshape that consumes a
// followed value becomes Relay's reshape with its copy (0) and infer (-1) codes, and a
// ConstantOfShape of a tensor's own shape becomes full_like, both compiled with static kernels;
// whatever the entries cannot express reads the run-time tensor (a detector's
// `min(count, 300)` as TopK's k).
#include <algorithm>
#include <cstdint>

#include "frontend/onnx/context.h"
#include "relay/op/dynamic.h"
#include "relay/op/tensor.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;
using Kind = SymExtent::Kind;

SymExtent known(int64_t v) {
  return {.kind = Kind::kKnown, .value = v};
}
SymExtent unknown() {
  return {.kind = Kind::kUnknown};
}

std::string entriesText(const SymShape& s) {
  std::string out = "[";
  for (size_t k = 0; k < s.entries.size(); ++k) {
    const SymExtent& e = s.entries[k];
    out += k ? ", " : "";
    out += e.kind == Kind::kKnown ? std::to_string(e.value) : "?";
  }
  return out + "]";
}

// Input `i` as a symbolic value: the placeholder's, or a known integer tensor of rank 0 or 1
// turned into known entries; nullopt otherwise.
std::optional<SymShape> symbolicOrKnown(NodeContext& n, size_t i) {
  if (const SymShape* s = n.symbolicInput(i)) return *s;
  std::optional<NDArray> value = n.constantInput(i);
  if (!value || !value->dtype().isInteger() || value->ndim() > 1) return std::nullopt;
  SymShape out{.scalar = value->ndim() == 0, .dtype = value->dtype()};
  for (int64_t k = 0; k < value->numel(); ++k) out.entries.push_back(known(value->getInt(k)));
  return out;
}

bool anySymbolicInput(NodeContext& n) {
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.symbolicInput(i)) return true;
  return false;
}

// Output 0 of the node, which its ordinary converter computed from the run-time values, marked
// as the followed `s`; a value whose entries all became known is an ordinary constant instead.
void setSymbolicOutput(NodeContext& n, SymShape s) {
  const bool allKnown = std::all_of(s.entries.begin(), s.entries.end(),
                                    [](const SymExtent& e) { return e.kind == Kind::kKnown; });
  for (auto& [slot, value] : n.outputs()) {
    if (slot != 0) continue;
    if (!allKnown) {
      n.graph().markSymbolicShape(value, std::move(s));
      return;
    }
    std::vector<int64_t> values;
    for (const SymExtent& e : s.entries) values.push_back(e.value);
    NDArray array = NDArray::empty(
        s.scalar ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(values.size())}, s.dtype);
    for (size_t k = 0; k < values.size(); ++k) array.setInt(static_cast<int64_t>(k), values[k]);
    value = relay::makeConstant(std::move(array));
    return;
  }
}

SymShape required(NodeContext& n, size_t i, const std::string& what) {
  std::optional<SymShape> s = symbolicOrKnown(n, i);
  if (!s)
    n.fail("onnx_dynamic",
           "the " + what + " input must be known at import (with the shape " + "value it meets)");
  return *s;
}

// Shape of a tensor with a `?` extent (opset 15's start/end included).
void shape(NodeContext& n) {
  const Expr data = n.input(0);
  const TensorTypeNode& t = n.inputType(0);
  const auto rank = static_cast<int64_t>(t.ndim());
  auto clampIndex = [&](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t{0}, rank); };
  const int64_t start = clampIndex(n.attrInt("start", 0));
  const int64_t end = clampIndex(n.attrInt("end", rank));
  SymShape out;
  for (int64_t k = start; k < end; ++k)
    out.entries.push_back(t.shape[k].isConst()
                              ? known(t.shape[k].value())
                              : SymExtent{.kind = Kind::kDimOf, .of = data, .axis = k});
  Expr runtime = relay::shapeOf(data);
  if (start != 0 || end != rank) {
    NDArray picked = NDArray::empty({std::max<int64_t>(end - start, 0)}, DataType::int64());
    for (int64_t k = start; k < end; ++k) picked.setInt(k - start, k);
    runtime = relay::take(runtime, relay::makeConstant(std::move(picked)), 0);
  }
  n.setOutput(0, runtime);
  setSymbolicOutput(n, std::move(out));
}

void gather(NodeContext& n) {
  SymShape data = required(n, 0, "data");
  if (data.scalar) n.fail("onnx_input", "Gather of a 0-D value");
  if (n.attrInt("axis", 0) != 0 && n.attrInt("axis", 0) != -1)
    n.fail("onnx_axis", "a 1-D shape value has only axis 0");
  const std::vector<int64_t> indices = n.constantInts(1, "indices");
  const auto size = static_cast<int64_t>(data.entries.size());
  SymShape out{.scalar = n.inputRank(1) == 0, .dtype = data.dtype};
  for (int64_t index : indices) {
    if (index < -size || index >= size)
      n.fail("onnx_index", "index " + std::to_string(index) + " is out of range for " +
                               std::to_string(size) + " entries");
    out.entries.push_back(data.entries[index < 0 ? index + size : index]);
  }
  setSymbolicOutput(n, std::move(out));
}

void slice(NodeContext& n) {
  SymShape data = required(n, 0, "data");
  const std::vector<int64_t> starts = n.constantInts(1, "starts");
  const std::vector<int64_t> ends = n.constantInts(2, "ends");
  if (n.hasInput(3))
    for (int64_t a : n.constantInts(3, "axes"))
      if (a != 0 && a != -1) n.fail("onnx_axis", "a 1-D shape value has only axis 0");
  const std::vector<int64_t> steps =
      n.hasInput(4) ? n.constantInts(4, "steps") : std::vector<int64_t>{1};
  if (data.scalar || starts.size() != 1 || ends.size() != 1 || steps.size() != 1 || steps[0] == 0)
    n.fail("onnx_input", "a slice of a 1-D shape value takes one start, end and non-zero step");
  const int64_t step = steps[0];
  const auto size = static_cast<int64_t>(data.entries.size());
  auto clampTo = [&](int64_t i, int64_t lo, int64_t hi) {
    return std::clamp(i < 0 ? i + size : i, lo, hi);
  };
  SymShape out{.dtype = data.dtype};
  if (step > 0) {
    for (int64_t k = clampTo(starts[0], 0, size); k < clampTo(ends[0], 0, size); k += step)
      out.entries.push_back(data.entries[k]);
  } else {
    for (int64_t k = clampTo(starts[0], -1, size - 1); k > clampTo(ends[0], -1, size - 1);
         k += step)
      out.entries.push_back(data.entries[k]);
  }
  setSymbolicOutput(n, std::move(out));
}

// Unsqueeze of a scalar to one entry, Squeeze of one entry to a scalar.
void reshapeScalar(NodeContext& n, bool toScalar) {
  SymShape data = required(n, 0, "data");
  std::vector<int64_t> axes{0};
  if (n.opset() >= 13 && n.hasInput(1)) axes = n.constantInts(1, "axes");
  if (n.opset() < 13) axes = n.attrInts("axes").value_or(axes);
  const bool ok = axes.size() == 1 && (axes[0] == 0 || axes[0] == -1) &&
                  (toScalar ? !data.scalar && data.entries.size() == 1 : data.scalar);
  if (!ok)
    n.fail("onnx_dynamic", n.opType() +
                               " of a shape value is followed only between a scalar "
                               "and one entry");
  data.scalar = toScalar;
  setSymbolicOutput(n, std::move(data));
}

void concat(NodeContext& n) {
  if (n.attrInt("axis", 0) != 0 && n.attrInt("axis", 0) != -1)
    n.fail("onnx_axis", "1-D shape values concatenate along axis 0");
  SymShape out;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    SymShape part = required(n, i, "input " + std::to_string(i));
    if (part.scalar) n.fail("onnx_input", "Concat of a 0-D value");
    out.dtype = part.dtype;
    out.entries.insert(out.entries.end(), part.entries.begin(), part.entries.end());
  }
  setSymbolicOutput(n, std::move(out));
}

void cast(NodeContext& n) {
  SymShape data = required(n, 0, "input");
  const int64_t to = n.attrInt("to", 0);
  // ONNX TensorProto: INT32 = 6, INT64 = 7.
  if (to != 6 && to != 7)
    n.fail("onnx_dynamic", "a shape value cast to a non-integer type is not followed");
  data.dtype = to == 6 ? DataType::int32() : DataType::int64();
  setSymbolicOutput(n, std::move(data));
}

void identity(NodeContext& n) {
  setSymbolicOutput(n, required(n, 0, "input"));
}

// Entry k of `s` under numpy broadcasting (one entry stands for all).
const SymExtent& entryAt(const SymShape& s, size_t k) {
  return s.entries[s.entries.size() == 1 ? 0 : k];
}

// The length two shape values broadcast to (equal, or one of them a single entry).
size_t broadcastLength(NodeContext& n, const SymShape& a, const SymShape& b) {
  const size_t la = a.entries.size(), lb = b.entries.size();
  if (la != lb && la != 1 && lb != 1)
    n.fail("onnx_shape", "cannot broadcast " + entriesText(a) + " with " + entriesText(b));
  return la == 1 ? lb : la;
}

// Integer Add/Sub/Mul/Div with numpy broadcasting of a scalar or equal lengths: entries known on
// both sides are computed (Div truncates, as ONNX's integer Div); x * 1, x + 0, x - 0 and x / 1
// keep `x`; anything else over a `?` is unknown.
void arithmetic(NodeContext& n) {
  SymShape a = required(n, 0, "A"), b = required(n, 1, "B");
  if (!a.dtype.isInteger() || !b.dtype.isInteger())
    n.fail("onnx_dynamic", "arithmetic of a shape value with a non-integer one is not followed");
  const size_t length = broadcastLength(n, a, b);
  const std::string& op = n.opType();
  SymShape out{.scalar = a.scalar && b.scalar, .dtype = a.dtype};
  for (size_t k = 0; k < length; ++k) {
    const SymExtent x = entryAt(a, k), y = entryAt(b, k);
    if (x.kind == Kind::kKnown && y.kind == Kind::kKnown) {
      if (op == "Div" && y.value == 0) n.fail("onnx_input", "integer division by zero");
      int64_t r = 0;
      const bool overflow = op == "Add"   ? __builtin_add_overflow(x.value, y.value, &r)
                            : op == "Sub" ? __builtin_sub_overflow(x.value, y.value, &r)
                            : op == "Mul" ? __builtin_mul_overflow(x.value, y.value, &r)
                                          : (y.value == -1 && x.value == INT64_MIN);
      if (overflow) n.fail("onnx_input", "the shape arithmetic overflows int64");
      out.entries.push_back(known(op == "Div" ? x.value / y.value : r));
    } else if (y.kind == Kind::kKnown && (y.value == (op == "Mul" || op == "Div" ? 1 : 0))) {
      out.entries.push_back(x);
    } else if (x.kind == Kind::kKnown && x.value == (op == "Mul" ? 1 : 0) &&
               (op == "Mul" || op == "Add")) {
      out.entries.push_back(y);
    } else {
      out.entries.push_back(unknown());
    }
  }
  setSymbolicOutput(n, std::move(out));
}

// Equal of shape values, entry by entry: known when both are, and false for an extent against a
// negative number (PyTorch's `expand(-1, ...)` tests its sizes against -1); unknown otherwise.
void equal(NodeContext& n) {
  SymShape a = required(n, 0, "A"), b = required(n, 1, "B");
  const size_t length = broadcastLength(n, a, b);
  SymShape out{.scalar = a.scalar && b.scalar, .dtype = DataType::boolType()};
  for (size_t k = 0; k < length; ++k) {
    const SymExtent x = entryAt(a, k), y = entryAt(b, k);
    const bool xKnown = x.kind == Kind::kKnown, yKnown = y.kind == Kind::kKnown;
    if (xKnown && yKnown)
      out.entries.push_back(known(x.value == y.value ? 1 : 0));
    else if ((x.kind == Kind::kDimOf && yKnown && y.value < 0) ||
             (y.kind == Kind::kDimOf && xKnown && x.value < 0))
      out.entries.push_back(known(0));
    else if (x.kind == Kind::kDimOf && y.kind == Kind::kDimOf && x.of.get() == y.of.get() &&
             x.axis == y.axis)
      out.entries.push_back(known(1));
    else
      out.entries.push_back(unknown());
  }
  setSymbolicOutput(n, std::move(out));
}

// Where over shape values with a condition known at import: each entry picked from X or Y (the
// rest of PyTorch's `expand(-1, ...)`, which keeps the sizes that are not -1).
void where(NodeContext& n) {
  std::optional<NDArray> cond = n.constantInput(0);
  if (!cond || !cond->dtype().isBool() || cond->ndim() > 1)
    n.fail("onnx_dynamic", "a Where over shape values needs a condition known at import");
  SymShape x = required(n, 1, "X"), y = required(n, 2, "Y");
  const size_t lc = static_cast<size_t>(cond->numel()), lx = x.entries.size(),
               ly = y.entries.size();
  const size_t length = std::max({lc, lx, ly});
  for (size_t l : {lc, lx, ly})
    if (l != length && l != 1)
      n.fail("onnx_shape",
             "cannot broadcast the condition with " + entriesText(x) + " and " + entriesText(y));
  SymShape out{.scalar = x.scalar && y.scalar && cond->ndim() == 0, .dtype = x.dtype};
  for (size_t k = 0; k < length; ++k) {
    const bool pick = cond->getInt(static_cast<int64_t>(lc == 1 ? 0 : k)) != 0;
    out.entries.push_back(entryAt(pick ? x : y, k));
  }
  setSymbolicOutput(n, std::move(out));
}

// Reshape of a 1-D followed value to one axis (`[-1]` or its length): the same entries.
void reshapeEntries(NodeContext& n) {
  SymShape data = required(n, 0, "data");
  const std::vector<int64_t> to = n.constantInts(1, "shape");
  const auto count = static_cast<int64_t>(data.entries.size());
  if (to.size() != 1 || (to[0] != -1 && to[0] != count))
    n.fail("onnx_dynamic", "a shape value is followed through a reshape to one axis only");
  data.scalar = false;
  setSymbolicOutput(n, std::move(data));
}

// Reshape to a symbolic shape, or of a tensor with a `?` extent: Relay's reshape with 0 where
// the entry is the input's own extent at that position (ONNX's 0 too), -1 for the one entry
// known only at run time (ONNX's -1 too), which the shape function computes from the element
// count; with two run-time entries, dyn.reshape of the shape tensor.
void reshape(NodeContext& n) {
  const Expr data = n.input(0);
  const TensorTypeNode& t = n.inputType(0);
  const SymShape spec = required(n, 1, "shape");
  if (spec.scalar) n.fail("onnx_input", "the shape input must be 1-D");
  if (static_cast<int64_t>(spec.entries.size()) > kMaxRank)
    n.fail("onnx_shape", "rank " + std::to_string(spec.entries.size()) + " exceeds the supported " +
                             std::to_string(kMaxRank));
  const bool allowzero = n.attrInt("allowzero", 0) != 0;
  std::vector<int64_t> codes;
  int runtimeEntries = 0;
  for (size_t k = 0; k < spec.entries.size(); ++k) {
    const SymExtent& e = spec.entries[k];
    int64_t code = -1;
    if (e.kind == Kind::kKnown) {
      code = e.value;
      if (code == 0 && allowzero)
        n.fail("onnx_dynamic", "a zero extent with allowzero in a shape known only at run time");
      if (code == 0 && k >= static_cast<size_t>(t.ndim()))
        n.fail("onnx_shape", "shape " + entriesText(spec) + " copies extent " + std::to_string(k) +
                                 " (0) but the input has rank " + std::to_string(t.ndim()));
      if (code < -1)
        n.fail("onnx_shape",
               "shape " + entriesText(spec) + " has the invalid extent " + std::to_string(code));
    } else if (e.kind == Kind::kDimOf && e.of.get() == data.get() &&
               e.axis == static_cast<int64_t>(k)) {
      code = 0;
    }
    if (code == -1) ++runtimeEntries;
    codes.push_back(code);
  }
  if (runtimeEntries <= 1) {
    n.setOutput(0, relay::reshape(data, codes));
    return;
  }
  // Two or more entries known only when the program runs (a detector's `reshape(num_boxes, -1)`
  // of a tensor whose own row count is a `?` the importer cannot prove equal): the shape tensor
  // itself, read by dyn.reshape. The entries known here are then restored to its `?` type by a
  // reshape that keeps the others (code 0).
  Expr out = relay::dynReshape(data, n.input(1));
  bool restores = false;
  for (size_t k = 0; k < codes.size(); ++k) {
    if (codes[k] == 0 && k < static_cast<size_t>(t.ndim()) && t.shape[k].isConst())
      codes[k] = t.shape[k].value();
    if (codes[k] == -1) codes[k] = 0;
    restores = restores || codes[k] > 0;
  }
  n.setOutput(0, restores ? relay::reshape(out, codes) : out);
}

bool hasAnyExtent(const TensorTypeNode& t) {
  return std::any_of(t.shape.begin(), t.shape.end(), [](const Dim& d) { return !d.isConst(); });
}

// A tensor of the followed shape `spec` filled with the scalar `fill`, built from the tensors its
// `?` entries are read from, so its kernels keep static code around those extents; null when an
// entry is unknown. A tensor's own shape is full_like of it (a detector's
// `torch.full_like(scores, label)`); otherwise the fill has extent 1 at each `?` entry and a take
// of zeros as long as that extent (from its tensor, the other axes taken at 0) stretches it
// (MultiScaleRoIAlign's `torch.zeros((num_rois, channels, 7, 7))`).
Expr filledOfShape(NodeContext& n, const SymShape& spec, const NDArray& fill) {
  if (spec.scalar || spec.entries.empty()) return nullptr;
  Expr like;
  for (const SymExtent& e : spec.entries) {
    if (e.kind == Kind::kUnknown) return nullptr;
    if (e.kind == Kind::kDimOf) like = e.of;
  }
  if (!like) return nullptr;
  const auto* t = n.graph().typeOf(like)->as<TensorTypeNode>();
  bool ownShape = t && static_cast<size_t>(t->ndim()) == spec.entries.size();
  for (size_t k = 0; ownShape && k < spec.entries.size(); ++k) {
    const SymExtent& e = spec.entries[k];
    ownShape = e.kind == Kind::kDimOf
                   ? e.of.get() == like.get() && e.axis == static_cast<int64_t>(k)
                   : t->shape[k].isConst() && t->shape[k].value() == e.value;
  }
  if (ownShape) {
    const Expr shaped = t->dtype == fill.dtype() ? like : relay::cast(like, fill.dtype());
    return relay::fullLike(shaped, relay::makeConstant(fill));
  }
  std::vector<int64_t> base;
  for (const SymExtent& e : spec.entries) base.push_back(e.kind == Kind::kKnown ? e.value : 1);
  int64_t numel = 1;
  for (int64_t d : base) {
    if (d < 0) n.fail("onnx_shape", "the shape has a negative extent " + std::to_string(d));
    if (__builtin_mul_overflow(numel, d, &numel))
      n.fail("onnx_shape", "the shape's size overflows");
  }
  Expr out = relay::full(relay::makeConstant(fill), base, fill.dtype());
  const Expr zero = relay::makeConstant(NDArray::scalarInt(0, DataType::int64()));
  for (size_t k = 0; k < spec.entries.size(); ++k) {
    const SymExtent& e = spec.entries[k];
    if (e.kind != Kind::kDimOf) continue;
    Expr along = e.of;
    const auto rank = static_cast<int64_t>(n.graph().typeOf(e.of)->as<TensorTypeNode>()->ndim());
    for (int64_t b = rank - 1; b >= 0; --b)
      if (b != e.axis) along = relay::take(along, zero, b, "clip");
    const Expr zeros = relay::cast(relay::zerosLike(along), DataType::int64());
    out = relay::take(out, zeros, static_cast<int64_t>(k), "clip");
  }
  return out;
}

NDArray fillValue(NodeContext& n) {
  NDArray fill = NDArray::scalar(0, DataType::float32());
  if (std::optional<NDArray> value = n.attrTensor("value")) {
    if (value->numel() != 1) n.fail("onnx_attr", "'value' must hold exactly one element");
    fill = value->reshaped({});
  }
  return fill;
}

// ConstantOfShape of a followed shape value: the filled tensor above; false (the converter then
// needs a constant shape) when an entry is unknown.
bool constantOfShape(NodeContext& n) {
  const SymShape* spec = n.symbolicInput(0);
  if (!spec) return false;
  const Expr out = filledOfShape(n, *spec, fillValue(n));
  if (!out) return false;
  n.setOutput(0, out);
  return true;
}

// Expand to a followed shape value (bidirectional broadcast): the input combined with a filled
// tensor of that shape, zeros added (false or'ed for bool), which broadcasts both ways as Expand.
bool expandSymbolic(NodeContext& n) {
  const SymShape* spec = n.symbolicInput(1);
  if (!spec) return false;
  const DataType dtype = n.inputDtype(0);
  const NDArray zero = dtype.isFloat() ? NDArray::scalar(0, dtype) : NDArray::scalarInt(0, dtype);
  const Expr filled = filledOfShape(n, *spec, zero);
  if (!filled) return false;
  n.setOutput(
      0, dtype.isBool() ? relay::logicalOr(n.input(0), filled) : relay::add(n.input(0), filled));
  return true;
}

using Follower = void (*)(NodeContext&);

Follower followerOf(const std::string& op) {
  if (op == "Gather") return gather;
  if (op == "Slice") return slice;
  if (op == "Unsqueeze") return [](NodeContext& n) { reshapeScalar(n, false); };
  if (op == "Squeeze") return [](NodeContext& n) { reshapeScalar(n, true); };
  if (op == "Concat") return concat;
  if (op == "Cast") return cast;
  if (op == "Identity") return identity;
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return arithmetic;
  if (op == "Equal") return equal;
  if (op == "Where") return where;
  return nullptr;
}

}  // namespace

bool convertSymbolicShape(NodeContext& n, Converter ordinary) {
  const std::string& op = n.opType();
  if (op == "Shape") {
    if (!hasAnyExtent(n.inputType(0))) return false;
    shape(n);
    return true;
  }
  if (op == "Reshape" && n.symbolicInput(0) && !n.symbolicInput(1) &&
      !hasAnyExtent(n.inputType(0))) {
    ordinary(n);
    try {
      reshapeEntries(n);
    } catch (const DiagnosticError&) {
    }
    return true;
  }
  if (op == "Reshape") {
    if (!n.symbolicInput(1) && !hasAnyExtent(n.inputType(0))) return false;
    reshape(n);
    return true;
  }
  if (op == "ConstantOfShape") return constantOfShape(n);
  if (op == "Expand") return expandSymbolic(n);
  if (!anySymbolicInput(n)) return false;
  const Follower follow = followerOf(op);
  if (!follow) return false;  // the operator reads the run-time value
  ordinary(n);
  // Following is what lets a later Reshape compile with static kernels; a value the entries
  // cannot express (a non-constant index, a float cast) stays the run-time tensor alone.
  try {
    follow(n);
  } catch (const DiagnosticError&) {
  }
  return true;
}

}  // namespace tessera::frontend::onnx
