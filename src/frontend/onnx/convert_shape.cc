// Shape-manipulating ONNX operators: Reshape, Flatten, Transpose, Unsqueeze, Squeeze, Expand,
// DepthToSpace, SpaceToDepth, CenterCropPad, Shape and Size. Input shapes are static, so each
// target shape is computed here (ONNX's 0 and -1 resolved) and the Relay op gets explicit extents;
// Shape and Size become constants.
#include <algorithm>
#include <set>

#include "frontend/onnx/context.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

int64_t checkedProduct(NodeContext& n, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(p, d, &p)) n.fail("onnx_shape", "the shape's size overflows");
  return p;
}

std::string listText(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void checkRank(NodeContext& n, size_t rank) {
  if (static_cast<int64_t>(rank) > kMaxRank)
    n.fail("onnx_shape",
           "rank " + std::to_string(rank) + " exceeds the supported " + std::to_string(kMaxRank));
}

// Relay's reshape reads 0 as "copy the input extent"; a genuine zero extent needs allowzero.
Expr reshapeTo(const Expr& data, const std::vector<int64_t>& shape) {
  const bool hasZero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  return relay::reshape(data, shape, hasZero);
}

// Reshape: 0 copies the input extent (unless allowzero, opset 14+), one -1 is inferred.
void reshape(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  const std::vector<int64_t> spec = n.constantInts(1, "shape");
  checkRank(n, spec.size());
  const bool allowzero = n.attrInt("allowzero", 0) != 0;
  std::vector<int64_t> out;
  std::optional<size_t> inferred;
  for (size_t k = 0; k < spec.size(); ++k) {
    int64_t d = spec[k];
    if (d == 0 && !allowzero) {
      if (k >= in.size())
        n.fail("onnx_shape", "shape " + listText(spec) + " copies extent " + std::to_string(k) +
                                 " (0) but the input " + listText(in) + " has rank " +
                                 std::to_string(in.size()));
      d = in[k];
    } else if (d == -1) {
      if (inferred) n.fail("onnx_shape", "shape " + listText(spec) + " has more than one -1");
      inferred = k;
    } else if (d < -1) {
      n.fail("onnx_shape",
             "shape " + listText(spec) + " has the invalid extent " + std::to_string(d));
    }
    out.push_back(d);
  }
  const int64_t total = checkedProduct(n, in);
  if (inferred) {
    std::vector<int64_t> rest = out;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(*inferred));
    const int64_t known = checkedProduct(n, rest);
    if (known == 0 || total % known != 0)
      n.fail("onnx_shape", "cannot reshape " + listText(in) + " to " + listText(spec));
    out[*inferred] = total / known;
  } else if (checkedProduct(n, out) != total) {
    n.fail("onnx_shape", "cannot reshape " + listText(in) + " (" + std::to_string(total) +
                             " elements) to " + listText(out));
  }
  n.setOutput(0, out == in ? n.input(0) : reshapeTo(n.input(0), out));
}

// Flatten: (prod(d[:axis]), prod(d[axis:])); axis may equal the rank (then the second extent is 1).
// With `?` extents past the leading axis, each side is merged one pair of axes at a time by
// Relay's reshape code -3, whose shape function multiplies the two extents when the module runs.
Expr flattenDynamic(Expr x, int64_t rank, int64_t axis) {
  if (axis == 0) x = relay::expandDims(x, 0, 1);
  if (axis == rank) x = relay::expandDims(x, static_cast<int>(rank), 1);
  const int64_t prefix = std::max<int64_t>(axis, 1);
  const int64_t suffix = std::max<int64_t>(rank - axis, 1);
  for (int64_t k = 1; k < prefix; ++k) x = relay::reshape(x, {-3, -2});
  for (int64_t k = 1; k < suffix; ++k) x = relay::reshape(x, {0, -3, -2});
  return x;
}

void flatten(NodeContext& n) {
  const std::vector<int64_t> dims = n.inputDims(0);
  const auto rank = static_cast<int64_t>(dims.size());
  int64_t axis = n.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    n.fail("onnx_axis",
           "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  if (rank > 1 && std::find(dims.begin() + 1, dims.end(), -1) != dims.end()) {
    n.setOutput(0, flattenDynamic(n.input(0), rank, axis));
    return;
  }
  const auto split = static_cast<size_t>(axis);
  // A dynamic batch stays the leading extent: -1, computed when the module runs.
  const bool dynamic = !dims.empty() && dims[0] < 0;
  if (dynamic && split == 0)
    n.fail("onnx_dynamic", "Flatten at axis 0 of a dynamic batch needs the batch's extent");
  n.setOutput(0, reshapeTo(n.input(0), {dynamic ? -1 : extentProduct(dims, 0, split),
                                        extentProduct(dims, split, dims.size())}));
}

// Transpose: `perm` must be a permutation; without it the axes are reversed.
void transpose(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  std::optional<std::vector<int64_t>> perm = n.attrInts("perm");
  if (!perm) {
    n.setOutput(0, relay::transpose(n.input(0)));
    return;
  }
  std::vector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm->size()) != rank)
    n.fail("onnx_attr", "perm " + listText(*perm) + " must list each of the " +
                            std::to_string(rank) + " axes once");
  for (int64_t& p : *perm) {
    p = n.normalizeAxis(p, rank, "perm entry");
    if (seen[p])
      n.fail("onnx_attr",
             "perm " + listText(*perm) + " lists axis " + std::to_string(p) + " twice");
    seen[p] = true;
  }
  n.setOutput(0, relay::transpose(n.input(0), *perm));
}

// Axes come from an attribute before opset 13 and from an optional input since.
std::optional<std::vector<int64_t>> axesOf(NodeContext& n) {
  if (n.opset() >= 13 || n.hasInput(1)) {
    if (n.hasAttr("axes") && n.opset() >= 13)
      n.fail("onnx_attr", "since opset 13 'axes' is an input, not an attribute");
    if (!n.hasInput(1)) return std::nullopt;
    return n.constantInts(1, "axes");
  }
  return n.attrInts("axes");
}

std::vector<int64_t> normalizedAxes(NodeContext& n, const std::vector<int64_t>& axes,
                                    int64_t rank) {
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  for (int64_t a : axes) {
    const int64_t k = n.normalizeAxis(a, rank, "axes entry");
    if (!seen.insert(k).second)
      n.fail("onnx_attr", "axes " + listText(axes) + " repeat axis " + std::to_string(k));
    out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void unsqueeze(NodeContext& n) {
  std::optional<std::vector<int64_t>> axes = axesOf(n);
  if (!axes) n.fail("onnx_attr", "axes are required");
  const int64_t outRank = n.inputRank(0) + static_cast<int64_t>(axes->size());
  checkRank(n, static_cast<size_t>(outRank));
  // Ascending insertion positions of the output, so each expand_dims sees its final index.
  Expr x = n.input(0);
  for (int64_t k : normalizedAxes(n, *axes, outRank)) x = relay::expandDims(x, static_cast<int>(k));
  n.setOutput(0, x);
}

// Squeeze: listed axes must have extent 1; without axes every unit axis is dropped. Other axes
// may be `?` (-1 here); a listed `?`, or a `?` without axes, cannot be checked at import.
void squeeze(NodeContext& n) {
  const std::vector<int64_t> in = n.inputDims(0);
  std::optional<std::vector<int64_t>> axes = axesOf(n);
  std::vector<int64_t> drop;
  if (axes) {
    drop = normalizedAxes(n, *axes, static_cast<int64_t>(in.size()));
    for (int64_t k : drop)
      if (in[k] != 1)
        n.fail(in[k] < 0 ? "onnx_dynamic" : "onnx_shape",
               "axis " + std::to_string(k) + " of shape " + shapeToString(n.inputType(0).shape) +
                   " has extent " + (in[k] < 0 ? std::string("?") : std::to_string(in[k])) +
                   ", not 1");
  } else {
    if (std::count(in.begin(), in.end(), -1))
      (void)n.inputShape(0);  // which `?` extents would be dropped is known only at run time
    for (size_t k = 0; k < in.size(); ++k)
      if (in[k] == 1) drop.push_back(static_cast<int64_t>(k));
  }
  n.setOutput(0, drop.empty() ? n.input(0) : relay::squeeze(n.input(0), drop));
}

// Expand broadcasts both ways: the result has the broadcast of the input and the given shape.
void expand(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  const std::vector<int64_t> shape = n.constantInts(1, "shape");
  checkRank(n, shape.size());
  for (int64_t d : shape)
    if (d < 0) n.fail("onnx_shape", "shape " + listText(shape) + " has a negative extent");
  std::optional<std::vector<int64_t>> out = broadcastShapes(in, shape);
  if (!out) n.fail("onnx_shape", "cannot broadcast " + listText(in) + " to " + listText(shape));
  n.setOutput(0, *out == in ? n.input(0) : relay::broadcastTo(n.input(0), *out));
}

// Shape (with opset 15's start/end slice) of a statically shaped tensor is a constant.
void shape(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  const auto rank = static_cast<int64_t>(in.size());
  auto clampIndex = [&](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t{0}, rank); };
  const int64_t start = clampIndex(n.attrInt("start", 0));
  const int64_t end = clampIndex(n.attrInt("end", rank));
  std::vector<int64_t> dims;
  for (int64_t k = start; k < end; ++k) dims.push_back(in[k]);
  n.setOutput(0, int64Constant(dims));
}

void size(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  n.setOutput(0, relay::makeConstant(NDArray::scalarInt(checkedProduct(n, in), DataType::int64())));
}

// DepthToSpace / SpaceToDepth: a reshape to rank 6, a transpose and a reshape back (NCHW).
void depthToSpace(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  const int64_t b = n.attrInt("blocksize", 0);
  if (s.size() != 4) n.fail("onnx_input", "input 0 must be NCHW (rank 4)");
  if (b < 1 || s[1] % (b * b) != 0)
    n.fail("onnx_attr", "blocksize " + std::to_string(b) + " must divide the " +
                            std::to_string(s[1]) + " channels into blocksize^2 groups");
  const int64_t c = s[1] / (b * b);
  const bool crd = n.attrString("mode", "DCR") == "CRD";
  relay::Expr x = relay::reshape(n.input(0), crd ? std::vector<int64_t>{s[0], c, b, b, s[2], s[3]}
                                                 : std::vector<int64_t>{s[0], b, b, c, s[2], s[3]});
  x = relay::transpose(
      x, crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2});
  n.setOutput(0, relay::reshape(x, {s[0], c, s[2] * b, s[3] * b}));
}

void spaceToDepth(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  const int64_t b = n.attrInt("blocksize", 0);
  if (s.size() != 4) n.fail("onnx_input", "input 0 must be NCHW (rank 4)");
  if (b < 1 || s[2] % b != 0 || s[3] % b != 0)
    n.fail("onnx_attr", "blocksize " + std::to_string(b) + " must divide the height " +
                            std::to_string(s[2]) + " and width " + std::to_string(s[3]));
  relay::Expr x = relay::reshape(n.input(0), {s[0], s[1], s[2] / b, b, s[3] / b, b});
  x = relay::transpose(x, std::vector<int64_t>{0, 3, 5, 1, 2, 4});
  n.setOutput(0, relay::reshape(x, {s[0], s[1] * b * b, s[2] / b, s[3] / b}));
}

// CenterCropPad (opset 18): each listed axis is cropped to its centre or zero-padded around it,
// the odd element going to the end either way (ONNX's function body), as one strided_slice and
// one nn.pad.
void centerCropPad(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  const auto rank = static_cast<int64_t>(in.size());
  const std::vector<int64_t> target = n.constantInts(1, "shape");
  std::vector<int64_t> axes = n.attrInts("axes").value_or(std::vector<int64_t>{});
  if (!n.hasAttr("axes"))
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  if (target.size() != axes.size())
    n.fail("onnx_input",
           "shape " + listText(target) + " needs one extent per axis in " + listText(axes));
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0), end = in;
  std::vector<std::vector<int64_t>> width(static_cast<size_t>(rank), {0, 0});
  bool crop = false, pad = false;
  std::set<int64_t> seen;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = n.normalizeAxis(axes[i], rank, "axes entry");
    if (!seen.insert(a).second)
      n.fail("onnx_attr", "axes " + listText(axes) + " repeat axis " + std::to_string(a));
    const int64_t t = target[i], d = in[a];
    if (t < 0 || t > kMaxWindowValue)
      n.fail("onnx_input",
             "shape " + listText(target) + " has the invalid extent " + std::to_string(t));
    if (t < d) {
      begin[a] = (d - t) / 2;
      end[a] = begin[a] + t;
      crop = true;
    } else if (t > d) {
      width[a] = {(t - d) / 2, t - d - (t - d) / 2};
      pad = true;
    }
  }
  Expr x = n.input(0);
  if (crop) x = relay::stridedSlice(x, begin, end);
  if (pad) x = relay::nn::pad(x, scalarConstant(0, n.inputDtype(0)), {.padWidth = width});
  n.setOutput(0, x);
}

constexpr ConverterRow kRows[] = {
    {"CenterCropPad", centerCropPad, "opset 18; constant shape; axes"},
    {"DepthToSpace", depthToSpace, "DCR and CRD modes; NCHW"},
    {"Expand", expand, "constant shape, or `?` extents and constants; bidirectional broadcast"},
    {"Flatten", flatten, ""},
    {"Reshape", reshape, "constant shape; 0 and -1; allowzero (opset 14)"},
    {"Shape", shape, "static input shapes; start/end (opset 15)"},
    {"Size", size, "static input shapes"},
    {"SpaceToDepth", spaceToDepth, "NCHW"},
    {"Squeeze", squeeze, "axes attribute before opset 13, input since"},
    {"Transpose", transpose, ""},
    {"Unsqueeze", unsqueeze, "axes attribute before opset 13, input since"},
};

}  // namespace

std::span<const ConverterRow> shapeConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
