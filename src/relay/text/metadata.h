// The metadata section of the Relay text format: the values of the constants that the text refers
// to as `meta[relay.Constant][K]`. The payload is Tessera's own JSON (docs/user/text-format.md):
//
//   {"format": "tessera.relay.metadata", "version": 1,
//    "relay.Constant": [{"dtype": "int8", "shape": [36, 3, 3, 3], "data": "<base64>"}, ...]}
//
// `data` holds the tensor's bytes, row-major and little-endian, in base64; it is null for a
// constant whose value is unknown (parsed from text that had no metadata section).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "relay/expr.h"
#include "support/span.h"

namespace tessera::relay::text {

/// The metadata payload for `constants`; entry K is `meta[relay.Constant][K]`.
std::string encodeMetadata(const std::vector<Constant>& constants);

/// Reads a metadata payload. `start` is where the payload begins in the file, so errors (code
/// "metadata") point at the offending line and column. Throws DiagnosticError on malformed input.
std::vector<Constant> decodeMetadata(std::string_view payload, const Span& start);

}  // namespace tessera::relay::text
