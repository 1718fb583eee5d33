// Tolerant, allocation-free readers of Kubernetes objects held in a rapidjson::Value: a missing
// or mistyped field reads as absent, so a strange object (from a request, the API or a file) can
// never crash a reader. One set for the engine, the admission codec, the cluster decoders and the
// CLI.
#pragma once

#include <rapidjson/document.h>

#include <cstring>
#include <string_view>

#include "kube/label_selector.hpp"

namespace gpua::kube::json {

using Value = rapidjson::Value;

// The string, or an empty view when `v` is not a string.
inline std::string_view view(const Value& v) {
  return v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : std::string_view();
}

inline std::string_view string(const Value* v) {
  return v != nullptr ? view(*v) : std::string_view();
}

// The member `key` of `obj`, or nullptr when obj is null, not an object, or lacks the key. A
// member's name is always a string; the length and the first byte rule out most names before
// a memcmp call (this look-up is the engine's most frequent).
inline const Value* member(const Value* obj, std::string_view key) {
  if (obj == nullptr || !obj->IsObject()) return nullptr;
  for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it) {
    const Value& name = it->name;
    if (name.GetStringLength() != key.size()) continue;
    const char* s = name.GetString();
    if (key.empty() || (s[0] == key[0] && std::memcmp(s, key.data(), key.size()) == 0))
      return &it->value;
  }
  return nullptr;
}

inline const Value* member(const Value& obj, std::string_view key) {
  return member(&obj, key);
}

inline const Value* objectMember(const Value* obj, std::string_view key) {
  const Value* v = member(obj, key);
  return v != nullptr && v->IsObject() ? v : nullptr;
}

inline const Value* arrayMember(const Value* obj, std::string_view key) {
  const Value* v = member(obj, key);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

// The string member `key`, or an empty view when absent or not a string.
inline std::string_view stringMember(const Value* obj, std::string_view key) {
  return string(member(obj, key));
}

// obj.a.b as a string ("metadata", "name"), or an empty view.
inline std::string_view path(const Value& obj, std::string_view a, std::string_view b) {
  return string(member(member(obj, a), b));
}

// metadata.labels of an object: its string values (others are skipped); the first of duplicate
// keys wins.
Labels labelsOf(const Value& object);

}  // namespace gpua::kube::json
