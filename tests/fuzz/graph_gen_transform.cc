// Op generators for shape transforms and selection: reshape (with its special values), transpose,
// expand_dims, squeeze, broadcast_to, concatenate, stack, split, strided_slice, take,
// layout_transform, reshape_like. None of them rounds, so they keep a value's exactness.
#include <numeric>
#include <vector>

#include "graph_gen.h"
#include "relay/builder.h"

namespace tessera::fuzz {
namespace {

using relay::Expr;

bool anyValue(const GenValue&) {
  return true;
}

int64_t rankOf(const GenValue& v) {
  return static_cast<int64_t>(v.shape.size());
}

// `axis` written as is or, by chance, counted from the end.
int64_t maybeNegative(GraphGen& g, int64_t axis, int64_t rank) {
  return g.rng().chance(30) ? axis - rank : axis;
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

bool reshape(GraphGen& g) {
  const std::optional<GenValue> x = g.pick(anyValue);
  if (!x) return false;
  // Factor the element count into a new rank, then use the special values 0 (copy the input dim)
  // and -1 (infer) where they mean the same thing.
  int64_t remaining = numel(x->shape);
  const auto rank = static_cast<size_t>(g.rng().range(remaining == 1 ? 0 : 1, 4));
  std::vector<int64_t> dims;
  for (size_t i = 0; i + 1 < rank; ++i) {
    const std::vector<int64_t> ds = divisors(remaining);
    dims.push_back(ds[g.rng().below(static_cast<uint32_t>(ds.size()))]);
    remaining /= dims.back();
  }
  if (rank > 0) dims.push_back(remaining);
  std::vector<int64_t> newshape = dims;
  for (size_t i = 0; i < newshape.size() && i < x->shape.size(); ++i)
    if (newshape[i] == x->shape[i] && g.rng().chance(25)) newshape[i] = 0;
  if (!newshape.empty() && g.rng().chance(35))
    newshape[g.rng().below(static_cast<uint32_t>(newshape.size()))] = -1;
  g.push(relay::reshape(x->expr, newshape), x->exact);
  return true;
}

bool transpose(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return !v.shape.empty(); });
  if (!x) return false;
  if (g.rng().chance(20)) {
    g.push(relay::transpose(x->expr), x->exact);
    return true;
  }
  const int64_t r = rankOf(*x);
  std::vector<int64_t> perm(static_cast<size_t>(r));
  std::iota(perm.begin(), perm.end(), 0);
  for (size_t i = perm.size(); i > 1; --i)
    std::swap(perm[i - 1], perm[g.rng().below(static_cast<uint32_t>(i))]);
  for (int64_t& a : perm) a = maybeNegative(g, a, r);
  g.push(relay::transpose(x->expr, perm), x->exact);
  return true;
}

bool expandOrSqueeze(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return v.shape.size() <= 5; });
  if (!x) return false;
  const int64_t r = rankOf(*x);
  std::vector<int64_t> units;
  for (int64_t i = 0; i < r; ++i)
    if (x->shape[static_cast<size_t>(i)] == 1) units.push_back(maybeNegative(g, i, r));
  if (units.empty() || g.rng().chance(50)) {
    const auto axis = static_cast<int>(g.rng().range(-r - 1, r));
    const auto count = static_cast<int>(g.rng().range(r >= 4 ? 0 : 1, r >= 4 ? 1 : 2));
    g.push(relay::expandDims(x->expr, axis, count), x->exact);
    return true;
  }
  if (g.rng().chance(30)) {
    g.push(relay::squeeze(x->expr), x->exact);
    return true;
  }
  std::vector<int64_t> axes;
  for (int64_t a : units)
    if (g.rng().chance(60)) axes.push_back(a);
  g.push(relay::squeeze(x->expr, axes), x->exact);
  return true;
}

bool broadcastTo(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return v.shape.size() <= 4; });
  if (!x) return false;
  std::vector<int64_t> target;
  if (g.rng().chance(40)) target.push_back(g.rng().range(1, 3));
  for (int64_t d : x->shape) target.push_back(d == 1 ? g.rng().range(1, 4) : d);
  g.push(relay::broadcastTo(x->expr, target), x->exact);
  return true;
}

bool concatenateOrStack(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return !v.shape.empty(); });
  if (!x) return false;
  const int64_t r = rankOf(*x);
  const bool stack = g.rng().chance(35);
  const int64_t axis = stack ? g.rng().range(0, r) : g.rng().range(0, r - 1);
  std::vector<Expr> fields{x->expr};
  bool exact = x->exact;
  const auto count = g.rng().range(1, 2);
  const double bound = isFloat(*x) ? 1.0 : 64.0;
  for (int64_t i = 0; i < count; ++i) {
    const std::optional<GenValue> other = g.pick([&](const GenValue& v) {
      if (v.dtype != x->dtype || v.shape.size() != x->shape.size()) return false;
      for (int64_t k = 0; k < r; ++k)
        if ((stack || k != axis) &&
            v.shape[static_cast<size_t>(k)] != x->shape[static_cast<size_t>(k)])
          return false;
      return true;
    });
    if (other && g.rng().chance(60)) {
      fields.push_back(other->expr);
      exact = exact && other->exact;
      continue;
    }
    std::vector<int64_t> shape = x->shape;
    if (!stack) shape[static_cast<size_t>(axis)] = g.rng().range(1, 3);
    fields.push_back(g.weight(shape, x->dtype, -bound, bound));
  }
  if (stack)
    g.push(relay::stack(fields, static_cast<int>(maybeNegative(g, axis, r + 1))), exact);
  else
    g.push(relay::concatenate(fields, static_cast<int>(maybeNegative(g, axis, r))), exact);
  return true;
}

bool split(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) {
    for (int64_t d : v.shape)
      if (d >= 2) return true;
    return false;
  });
  if (!x) return false;
  const int64_t r = rankOf(*x);
  std::vector<int64_t> splittable;
  for (int64_t i = 0; i < r; ++i)
    if (x->shape[static_cast<size_t>(i)] >= 2) splittable.push_back(i);
  const int64_t axis = splittable[g.rng().below(static_cast<uint32_t>(splittable.size()))];
  const int64_t extent = x->shape[static_cast<size_t>(axis)];
  const int a = static_cast<int>(maybeNegative(g, axis, r));
  Expr call;
  if (g.rng().chance(50)) {
    const std::vector<int64_t> ds = divisors(extent);
    call = relay::split(x->expr, ds[g.rng().range(1, static_cast<int64_t>(ds.size()) - 1)], a);
  } else {
    std::vector<int64_t> indices;
    for (int64_t i = 1; i < extent; ++i)
      if (g.rng().chance(40)) indices.push_back(i);
    if (indices.empty()) indices.push_back(g.rng().range(1, extent - 1));
    call = relay::split(x->expr, indices, a);
  }
  const relay::Expr t = g.typed(call);
  const auto* tt = t->checkedType->as<TupleTypeNode>();
  if (!tt) throw IllTypedGraph("split did not return a tuple");
  const auto n = static_cast<int>(tt->fields.size());
  // Some fields are consumed, some become outputs, some are dropped.
  const int first = static_cast<int>(g.rng().below(static_cast<uint32_t>(n)));
  g.push(relay::tupleGetItem(call, first), x->exact);
  for (int i = 0; i < n; ++i)
    if (i != first && g.rng().chance(30)) g.push(relay::tupleGetItem(call, i), x->exact);
  return true;
}

// One axis of a strided_slice: begin, end and stride that select at least one element, written
// in the forms the op accepts (negative indices, ends past the extent).
void sliceAxis(GraphGen& g, int64_t d, int64_t* begin, int64_t* end, int64_t* stride) {
  static const int64_t kStrides[] = {1, 1, 1, 2, 3, -1, -2};
  *stride = kStrides[g.rng().below(7)];
  const int64_t b = g.rng().range(0, d - 1);
  *begin = g.rng().chance(25) ? b - d : b;
  if (*stride > 0) {
    const int64_t e = g.rng().range(b + 1, d);
    *end = e == d && g.rng().chance(40) ? d + g.rng().range(0, 5) : e;
    if (*end < d && g.rng().chance(25)) *end -= d;
    return;
  }
  const int64_t e = g.rng().range(-1, b - 1);  // -1: through index 0
  *end = e < 0 ? -d - 1 - g.rng().range(0, 3) : (g.rng().chance(25) ? e - d : e);
}

bool stridedSlice(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return !v.shape.empty(); });
  if (!x) return false;
  const int64_t r = rankOf(*x);
  std::vector<int64_t> axes;
  const bool useAxes = g.rng().chance(30);
  if (useAxes) {
    for (int64_t i = 0; i < r; ++i)
      if (g.rng().chance(50)) axes.push_back(i);
    if (axes.empty()) axes.push_back(g.rng().range(0, r - 1));
  } else {
    for (int64_t i = 0; i < g.rng().range(1, r); ++i) axes.push_back(i);
  }
  const bool sizeMode = g.rng().chance(10);
  std::vector<int64_t> begin, end, strides;
  for (int64_t a : axes) {
    const int64_t d = x->shape[static_cast<size_t>(a)];
    int64_t b = 0, e = 0, s = 1;
    if (sizeMode) {
      b = g.rng().range(0, d - 1);
      e = g.rng().chance(30) ? -1 : g.rng().range(1, d - b);
    } else {
      sliceAxis(g, d, &b, &e, &s);
    }
    begin.push_back(b);
    end.push_back(e);
    strides.push_back(s);
  }
  std::optional<std::vector<int64_t>> axesAttr;
  if (useAxes) {
    axesAttr = axes;
    for (int64_t& a : *axesAttr) a = maybeNegative(g, a, r);
  }
  g.push(relay::stridedSlice(x->expr, begin, end, strides, axesAttr, sizeMode ? "size" : "end"),
         x->exact);
  return true;
}

bool take(GraphGen& g) {
  const std::optional<GenValue> x = g.pick(anyValue);
  if (!x) return false;
  const int64_t r = rankOf(*x);
  std::optional<int64_t> axis;
  if (r > 0 && g.rng().chance(75)) axis = g.rng().range(0, r - 1);
  const int64_t extent = axis ? x->shape[static_cast<size_t>(*axis)] : numel(x->shape);
  static const char* const kModes[] = {"clip", "wrap", "fast"};
  const std::string mode = kModes[g.rng().below(3)];
  const std::vector<int64_t> ishape = g.shape(0, 2, 3);
  const DataType idt = g.rng().chance(80) ? DataType::int32() : DataType::int64();
  // "fast" promises in-range indices; clip and wrap are fed out-of-range ones on purpose.
  Expr indices = mode == "fast" ? g.constant(ishape, idt, 0, static_cast<double>(extent))
                                : g.weight(ishape, idt, static_cast<double>(-2 * extent),
                                           static_cast<double>(2 * extent));
  if (axis) axis = maybeNegative(g, *axis, r);
  g.push(relay::take(x->expr, indices, axis, mode), x->exact);
  return true;
}

bool layoutTransform(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) {
    return v.shape.size() == 4 || (v.shape.size() == 5 && (v.shape[4] == 2 || v.shape[4] == 4));
  });
  if (!x) return false;
  if (x->shape.size() == 5) {
    const std::string blocked = "NCHW" + std::to_string(x->shape[4]) + "c";
    g.push(relay::layoutTransform(x->expr, blocked, "NCHW"), x->exact);
    return true;
  }
  const int64_t c = x->shape[1];
  if (c % 2 == 0 && g.rng().chance(60)) {
    const int64_t f = c % 4 == 0 && g.rng().chance(50) ? 4 : 2;
    g.push(relay::layoutTransform(x->expr, "NCHW", "NCHW" + std::to_string(f) + "c"), x->exact);
    return true;
  }
  const bool toNhwc = g.rng().chance(50);
  g.push(relay::layoutTransform(x->expr, toNhwc ? "NCHW" : "NHWC", toNhwc ? "NHWC" : "NCHW"),
         x->exact);
  return true;
}

bool reshapeLike(GraphGen& g) {
  const std::optional<GenValue> x = g.pick(anyValue);
  if (!x) return false;
  const int64_t n = numel(x->shape);
  const std::optional<GenValue> like =
      g.pick([&](const GenValue& v) { return numel(v.shape) == n; });
  if (!like || like->expr == x->expr) return false;
  g.push(relay::reshapeLike(x->expr, like->expr), x->exact);
  return true;
}

const OpGenerator kGenerators[] = {
    {"reshape", reshape},
    {"transpose", transpose},
    {"expand_squeeze", expandOrSqueeze},
    {"broadcast_to", broadcastTo},
    {"concatenate_stack", concatenateOrStack},
    {"split", split},
    {"strided_slice", stridedSlice},
    {"take", take},
    {"layout_transform", layoutTransform},
    {"reshape_like", reshapeLike},
};

}  // namespace

std::span<const OpGenerator> transformGenerators() {
  return kGenerators;
}

}  // namespace tessera::fuzz
