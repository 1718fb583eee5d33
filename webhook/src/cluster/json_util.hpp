// Tolerant RapidJSON accessors for Kubernetes objects: a missing or mistyped field reads as
// absent, so a strange object from the API can never crash the client.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace gpua::cluster::json {

inline const rapidjson::Value* member(const rapidjson::Value* v, std::string_view key) {
  if (v == nullptr || !v->IsObject()) return nullptr;
  auto it = v->FindMember(rapidjson::StringRef(key.data(), key.size()));
  return it == v->MemberEnd() ? nullptr : &it->value;
}

inline const rapidjson::Value* member(const rapidjson::Value& v, std::string_view key) {
  return member(&v, key);
}

inline std::string_view string(const rapidjson::Value* v) {
  if (v == nullptr || !v->IsString()) return {};
  return {v->GetString(), v->GetStringLength()};
}

inline std::string_view path(const rapidjson::Value& v, std::string_view a, std::string_view b) {
  return string(member(member(v, a), b));
}

}  // namespace gpua::cluster::json
