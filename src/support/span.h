// Source locations: where in a text file (or which ONNX node) an IR object came from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace tessera {

/// A position in a named source: 1-based line and column. An empty `source` means "no location".
struct Span {
  std::shared_ptr<const std::string>
      source;  ///< file name or frontend node name; shared by many spans
  int line = 0;
  int column = 0;

  bool defined() const { return source != nullptr; }
  /// "file:line:col", or "<unknown>" when undefined.
  std::string str() const;
};

}  // namespace tessera
