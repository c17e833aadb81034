// Spelling of trace values shared by the Python printer and the JSON form: constants as Python
// literals, and RV names (`b0`, `l1`, `v4`: a kind letter and one counter over all RVs).
#pragma once

#include <map>
#include <string>
#include <utility>

#include "tir/schedule/instruction.h"

namespace tessera::tir {

/// Python literal: 16, 0.20000000000000001 (17 significant digits), "local", True, None, [a, b].
std::string pythonValue(const AttrValue& value);

/// Names the RVs of a trace in order of creation; inputs must name an RV created earlier.
class RVNamer {
 public:
  /// A fresh name for `rv` ("b", "l" or "v" plus the shared counter).
  std::string define(const InstOutput& rv);
  /// The name of an input RV; null when it was never defined.
  const std::string* find(const InstInput& rv) const;

 private:
  std::map<std::pair<int, int>, std::string> names_;  ///< (kind, id) -> name
  int counter_ = 0;
};

}  // namespace tessera::tir
