// FNV-1a 64: a deterministic fingerprint of text, for noticing that files or policies changed
// (a revision, a reload check). Simple and stable across runs and builds; not a security
// boundary.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpua::kube {

inline constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;

// Mixes one field into `hash`, then a separator byte, so ("ab", "c") and ("a", "bc") differ.
inline void fnvField(uint64_t& hash, std::string_view bytes) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= kPrime;
  }
  hash ^= 0xff;
  hash *= kPrime;
}

}  // namespace gpua::kube
