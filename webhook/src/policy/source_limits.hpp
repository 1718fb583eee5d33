// What one load of policy files may cost, in one place. A policy file is read, split into YAML
// documents and parsed before anything about it is known, so each stage is bounded before it
// runs: bytes before a file is read, documents before any is parsed, and YAML nodes (an alias
// counted at every use) before the parse code walks them, which it does once per reference.
// Every figure is far above a real policy: the shipped policies/ are 5 files, 13 KB, one
// document each and 608 nodes in all; those of policy-tests/fixtures are at most 3 KB, 258 nodes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpua::policy {

// Bytes of one policy file: checked on its size before it is read, and on the bytes read.
inline constexpr std::uintmax_t kMaxPolicyFileBytes = std::uintmax_t{1} << 20;  // 1 MiB

// Bytes of all the policy files of one load (every file and directory given to lint or serve).
inline constexpr std::uintmax_t kMaxPolicyLoadBytes = std::uintmax_t{4} << 20;  // 4 MiB

// YAML documents in one file: each "---" line starts one, empty ones included.
inline constexpr std::size_t kMaxDocumentsPerFile = 256;

// YAML nodes of all the policy files of one load, each alias counted as every node it repeats:
// what the parse code may visit. Near it `lint` took 57 MiB and 0.4 s (75,000 nodes of 15,000
// pools). It binds before the byte limits through aliases, or in a file of many small nodes.
inline constexpr std::uint64_t kMaxPolicyLoadNodes = 100'000;

}  // namespace gpua::policy
