// Base64 (RFC 4648) for tensor payloads in the text format's metadata section.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

std::string base64Encode(const uint8_t* data, size_t size);
/// Returns nullopt on a character outside the alphabet or a bad length.
std::optional<std::vector<uint8_t>> base64Decode(std::string_view text);

}  // namespace tessera
