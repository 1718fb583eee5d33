// One RFC 6902 JSON Patch operation, valid against the apiserver's evanphx/json-patch v4 rules.
#pragma once

#include <string>
#include <vector>

#include "engine/core/recycled_list.hpp"

namespace gpua::engine {

struct PatchOp {
  enum class Kind { Add, Remove, Replace } kind = Kind::Add;
  std::string path;       // JSON Pointer, tokens already escaped (~0, ~1)
  std::string valueJson;  // serialized JSON value; empty for Remove

  // For RecycledList: an op emptied for reuse, its strings' capacity kept unless huge.
  void clear() {
    kind = Kind::Add;
    path.clear();
    valueJson.clear();
  }
  void releaseIfLarge(std::size_t bytes) {
    releaseStringIfLarge(path, bytes);
    releaseStringIfLarge(valueJson, bytes);
  }
  friend bool operator==(const PatchOp&, const PatchOp&) = default;
};

using Patch = RecycledList<PatchOp>;

// Escapes one JSON Pointer reference token: '~' -> "~0", then '/' -> "~1".
std::string escapePointerToken(std::string_view token);
// The same, appended to `out`.
void appendPointerToken(std::string& out, std::string_view token);

// Serializes the patch as a JSON array: [{"op":"add","path":...,"value":...},...].
std::string serializePatch(const Patch& patch);
// The same, appended to `out` (whose capacity a caller may keep from request to request).
void appendPatch(std::string& out, const Patch& patch);

}  // namespace gpua::engine
