// Hash combination used by structural hashing (deterministic across runs: no pointer values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tessera {

/// Mixes `value` into `seed` (boost-style combine with a 64-bit golden-ratio constant).
inline uint64_t hashCombine(uint64_t seed, uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 12) + (seed >> 4));
}

/// FNV-1a over bytes: stable across platforms and runs, unlike std::hash.
inline uint64_t hashBytes(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}

inline uint64_t hashString(std::string_view s) {
  return hashBytes(s.data(), s.size());
}

}  // namespace tessera
