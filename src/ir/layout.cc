#include "ir/layout.h"

#include <cctype>
#include <map>

namespace tessera {

std::optional<Layout> Layout::parse(const std::string& text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<Layout> {
    if (error) *error = "invalid layout \"" + text + "\": " + why;
    return std::nullopt;
  };
  Layout layout;
  layout.name_ = text;
  int64_t factor = 0;
  bool haveFactor = false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      factor = factor * 10 + (c - '0');
      if (factor > (int64_t{1} << 40)) return fail("factor too large");
      haveFactor = true;
      continue;
    }
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (haveFactor) return fail("a factor must precede a lower-case axis");
      if (layout.indexOf(c) >= 0) return fail(std::string("axis ") + c + " appears twice");
      layout.axes_.push_back(LayoutAxis{c, 0});
      continue;
    }
    if (std::islower(static_cast<unsigned char>(c))) {
      if (!haveFactor) return fail(std::string("sub-axis ") + c + " needs a factor");
      if (factor <= 0) return fail(std::string("sub-axis ") + c + " has a zero factor");
      if (layout.indexOf(c) >= 0) return fail(std::string("axis ") + c + " appears twice");
      layout.axes_.push_back(LayoutAxis{c, factor});
      factor = 0;
      haveFactor = false;
      continue;
    }
    return fail(std::string("unexpected character '") + c + "'");
  }
  if (haveFactor) return fail("trailing factor");
  for (const LayoutAxis& a : layout.axes_) {
    if (!a.isPrimal() && layout.indexOf(static_cast<char>(std::toupper(a.letter))) < 0)
      return fail(std::string("sub-axis ") + a.letter + " has no primal axis");
  }
  return layout;
}

int Layout::indexOf(char letter) const {
  for (size_t i = 0; i < axes_.size(); ++i)
    if (axes_[i].letter == letter) return static_cast<int>(i);
  return -1;
}

int64_t Layout::subFactor(char primal) const {
  const int i = indexOf(static_cast<char>(std::tolower(static_cast<unsigned char>(primal))));
  return i < 0 ? 0 : axes_[i].factor;
}

bool Layout::convertibleTo(const Layout& other) const {
  int primals = 0;
  for (const LayoutAxis& a : axes_) {
    if (!a.isPrimal()) continue;
    ++primals;
    if (other.indexOf(a.letter) < 0) return false;
  }
  int otherPrimals = 0;
  for (const LayoutAxis& a : other.axes_) otherPrimals += a.isPrimal() ? 1 : 0;
  return primals == otherPrimals;
}

std::optional<Shape> convertShape(const Shape& shape, const Layout& from, const Layout& to,
                                  std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<Shape> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!from.convertibleTo(to))
    return fail("layout " + from.name() + " cannot be converted to " + to.name());
  if (static_cast<int>(shape.size()) != from.ndim())
    return fail("shape " + shapeToString(shape) + " has rank " + std::to_string(shape.size()) +
                " but layout " + from.name() + " has " + std::to_string(from.ndim()) + " axes");
  // Total extent per primal letter: primal extent times the sub-axis extent (§1.6).
  std::map<char, Dim> total;
  for (int i = 0; i < from.ndim(); ++i) {
    const LayoutAxis& a = from.axes()[i];
    if (!a.isPrimal()) continue;
    Dim d = shape[i];
    const int64_t sub = from.subFactor(a.letter);
    if (sub > 0) {
      const int j =
          from.indexOf(static_cast<char>(std::tolower(static_cast<unsigned char>(a.letter))));
      if (d.isConst() && shape[j].isConst())
        d = Dim(d.value() * shape[j].value());
      else
        d = Dim::any();
    }
    total.emplace(a.letter, d);
  }
  Shape out;
  for (const LayoutAxis& a : to.axes()) {
    if (!a.isPrimal()) {
      out.emplace_back(a.factor);
      continue;
    }
    const Dim& t = total.at(a.letter);
    const int64_t sub = to.subFactor(a.letter);
    if (sub == 0 || !t.isConst()) {
      out.push_back(sub == 0 ? t : Dim::any());
      continue;
    }
    if (t.value() % sub != 0)
      return fail("extent " + std::to_string(t.value()) + " of axis " + a.letter +
                  " is not divisible by " + std::to_string(sub) + " in layout " + to.name());
    out.emplace_back(t.value() / sub);
  }
  return out;
}

}  // namespace tessera
