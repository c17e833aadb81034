// NumPy-style tensor text. The walk over the shown elements is an odometer rather than a recursion
// over the axes, so a tensor of very high rank (a crafted .npy file) cannot exhaust the stack.
#include "runtime/ndarray_print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace tessera {
namespace {

std::string formatElement(const NDArray& a, int64_t i) {
  const DataType t = a.dtype();
  if (t.isBool()) return a.getInt(i) ? "True" : "False";
  if (t.isFloat()) {
    const double v = a.getFloat(i);
    // printf spells a negative NaN "-nan"; NumPy prints every NaN as "nan".
    if (std::isnan(v)) return "nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
  }
  if (t.isUInt()) return std::to_string(a.getUInt(i));
  return std::to_string(a.getInt(i));
}

// The indices shown along one axis, in order; -1 marks the `...` between the two ends.
std::vector<int64_t> shownIndices(int64_t extent, bool summarise, int64_t edgeItems) {
  std::vector<int64_t> shown;
  if (summarise && extent > 2 * edgeItems) {
    for (int64_t i = 0; i < edgeItems; ++i) shown.push_back(i);
    shown.push_back(-1);
    for (int64_t i = extent - edgeItems; i < extent; ++i) shown.push_back(i);
    return shown;
  }
  for (int64_t i = 0; i < extent; ++i) shown.push_back(i);
  return shown;
}

// What the walk reports: an element by flat index, a `...` in place of elements or of rows, or
// structural text (brackets, separators, line breaks and indents).
struct Emitter {
  std::function<void(int64_t)> element;
  std::function<void()> ellipsis;
  std::function<void(const std::string&)> text;
};

// Emits the shown elements of a tensor with `shape` (rank >= 1, no zero extent) with NumPy's
// layout. Separating two items of axis k takes a comma, one line break per axis below k (so
// innermost rows sit on their own lines and 2-D blocks are set apart by blank lines) and an
// indent of k + 1 spaces; the innermost axis separates by ", ".
void walk(const std::vector<int64_t>& shape, const ArrayPrintOptions& options, const Emitter& out) {
  const size_t ndim = shape.size();
  const bool summarise = shapeNumel(shape) > options.threshold;
  std::vector<std::vector<int64_t>> shown;
  for (int64_t extent : shape) shown.push_back(shownIndices(extent, summarise, options.edgeItems));
  const std::vector<int64_t> strides = rowMajorStrides(shape);
  std::vector<size_t> pos(ndim, 0);
  auto separator = [&](size_t axis) {
    if (axis + 1 == ndim) return std::string(", ");
    return "," + std::string(ndim - axis - 1, '\n') + std::string(axis + 1, ' ');
  };
  out.text(std::string(ndim, '['));
  while (true) {
    // Each pass emits one innermost row.
    const std::vector<int64_t>& row = shown[ndim - 1];
    int64_t base = 0;
    for (size_t k = 0; k + 1 < ndim; ++k) base += shown[k][pos[k]] * strides[k];
    for (size_t j = 0; j < row.size(); ++j) {
      if (j > 0) out.text(separator(ndim - 1));
      if (row[j] < 0)
        out.ellipsis();
      else
        out.element(base + row[j]);
    }
    // The outer axis that advances next; the axes inside it have just finished and close.
    size_t axis = ndim - 1;
    while (axis > 0 && pos[axis - 1] + 1 == shown[axis - 1].size()) --axis;
    out.text(std::string(ndim - axis, ']'));
    if (axis == 0) return;
    --axis;
    out.text(separator(axis));
    if (shown[axis][++pos[axis]] < 0) {
      // A summarised outer axis: a line of `...` stands for the rows left out.
      out.ellipsis();
      out.text(separator(axis));
      ++pos[axis];
    }
    std::fill(pos.begin() + static_cast<std::ptrdiff_t>(axis) + 1, pos.end(), 0);
    out.text(std::string(ndim - axis - 1, '['));
  }
}

}  // namespace

std::string formatValues(const NDArray& a, const ArrayPrintOptions& options) {
  const std::vector<int64_t>& shape = a.shape();
  if (shape.empty()) return formatElement(a, 0);
  if (a.numel() == 0) return "[]";
  // Two walks: the first finds the common width NumPy pads every element to, the second prints.
  size_t width = 0;
  const auto ignore = [](auto&&...) {};
  walk(shape, options,
       {.element = [&](int64_t i) { width = std::max(width, formatElement(a, i).size()); },
        .ellipsis = ignore,
        .text = ignore});
  std::string text;
  walk(shape, options,
       {.element =
            [&](int64_t i) {
              const std::string s = formatElement(a, i);
              text += std::string(width - s.size(), ' ') + s;
            },
        .ellipsis = [&] { text += "..."; },
        .text = [&](const std::string& s) { text += s; }});
  return text;
}

}  // namespace tessera
