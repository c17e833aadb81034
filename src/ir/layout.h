// Data layout strings ("NCHW", "NCHW16c", "NCHW1n16c", "OIHW16o16i"): primal axes (upper case) and
// fixed-size sub-axes (a factor then a lower-case letter), and shape conversion between layouts
// that have the same primal axes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/type.h"

namespace tessera {

/// One axis of a layout: `letter` is upper case for a primal axis, lower case for a sub-axis of
/// extent `factor`.
struct LayoutAxis {
  char letter;
  int64_t factor = 0;  ///< only for sub-axes
  bool isPrimal() const { return letter >= 'A' && letter <= 'Z'; }
};

class Layout {
 public:
  /// Parses a layout; returns nullopt and sets `error` for malformed strings (a factor not followed
  /// by a lower-case letter, a repeated letter, a sub-axis without its primal axis, a zero factor).
  static std::optional<Layout> parse(const std::string& text, std::string* error = nullptr);

  const std::string& name() const { return name_; }
  const std::vector<LayoutAxis>& axes() const { return axes_; }
  int ndim() const { return static_cast<int>(axes_.size()); }
  /// Position of a primal axis (upper case) or sub-axis (lower case), or -1.
  int indexOf(char letter) const;
  /// Extent of the sub-axis of `primal` (e.g. 16 for 'C' in NCHW16c), or 0 when not split.
  int64_t subFactor(char primal) const;
  /// True when both layouts have the same set of primal axes.
  bool convertibleTo(const Layout& other) const;

 private:
  std::string name_;
  std::vector<LayoutAxis> axes_;
};

/// Converts a shape from layout `from` to layout `to` (spec §1.6). Returns nullopt when the layouts
/// are not convertible, the rank does not match `from`, or a primal extent is not divisible by a
/// factor of `to`. Unknown dims stay unknown.
std::optional<Shape> convertShape(const Shape& shape, const Layout& from, const Layout& to,
                                  std::string* error = nullptr);

}  // namespace tessera
