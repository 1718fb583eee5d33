#include "engine/mutate/json_patch_apply.hpp"

#include <charconv>
#include <string_view>
#include <vector>

namespace gpua::engine {

namespace {

using rapidjson::Value;

// Splits a JSON Pointer into unescaped tokens; nullopt when malformed.
std::optional<std::vector<std::string>> parsePointer(std::string_view path) {
  std::vector<std::string> tokens;
  if (path.empty()) return tokens;
  if (path.front() != '/') return std::nullopt;
  std::string current;
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      tokens.push_back(std::move(current));
      current.clear();
      continue;
    }
    if (path[i] != '~') {
      current += path[i];
      continue;
    }
    if (i + 1 >= path.size() || (path[i + 1] != '0' && path[i + 1] != '1')) return std::nullopt;
    current += path[i + 1] == '0' ? '~' : '/';
    ++i;
  }
  return tokens;
}

// Array index as JSON Pointer allows it: decimal, no sign, no leading zero.
std::optional<rapidjson::SizeType> parseIndex(const std::string& token) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  rapidjson::SizeType value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

Value::MemberIterator findMember(Value& obj, const std::string& key) {
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it)
    if (std::string_view(it->name.GetString(), it->name.GetStringLength()) == key) return it;
  return obj.MemberEnd();
}

// Walks every token but the last; nullptr when a step is missing.
Value* resolveParent(Value& root, const std::vector<std::string>& tokens) {
  Value* current = &root;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (current->IsObject()) {
      auto it = findMember(*current, tokens[i]);
      if (it == current->MemberEnd()) return nullptr;
      current = &it->value;
    } else if (current->IsArray()) {
      auto index = parseIndex(tokens[i]);
      if (!index || *index >= current->Size()) return nullptr;
      current = &(*current)[*index];
    } else {
      return nullptr;
    }
  }
  return current;
}

std::optional<std::string> insertIntoArray(Value& array, const std::string& token, Value& value,
                                           rapidjson::Document::AllocatorType& alloc) {
  if (token == "-") {
    array.PushBack(value, alloc);
    return std::nullopt;
  }
  auto index = parseIndex(token);
  if (!index || *index > array.Size()) return "array index out of range";
  array.PushBack(value, alloc);
  // Bubble the new element down to its index, shifting the rest right.
  for (rapidjson::SizeType i = array.Size() - 1; i > *index; --i) array[i].Swap(array[i - 1]);
  return std::nullopt;
}

std::optional<std::string> applyOne(rapidjson::Document& doc, const PatchOp& op) {
  auto tokens = parsePointer(op.path);
  if (!tokens) return "malformed JSON pointer";
  auto& alloc = doc.GetAllocator();
  Value value;
  if (op.kind != PatchOp::Kind::Remove) {
    rapidjson::Document parsed(&alloc);
    parsed.Parse(op.valueJson.data(), op.valueJson.size());
    if (parsed.HasParseError()) return "value is not valid JSON";
    value.Swap(parsed);  // parsed lives in doc's allocator already: no copy needed
  }
  if (tokens->empty()) {
    if (op.kind == PatchOp::Kind::Remove) return "cannot remove the document root";
    static_cast<Value&>(doc) = value;
    return std::nullopt;
  }
  Value* parent = resolveParent(doc, *tokens);
  if (parent == nullptr) return "parent does not exist";
  const std::string& last = tokens->back();
  if (parent->IsObject()) {
    auto it = findMember(*parent, last);
    if (op.kind == PatchOp::Kind::Add) {
      if (it != parent->MemberEnd()) {
        it->value = value;
      } else {
        parent->AddMember(Value(last.data(), static_cast<rapidjson::SizeType>(last.size()), alloc),
                          value, alloc);
      }
      return std::nullopt;
    }
    if (it == parent->MemberEnd()) return "member does not exist";
    if (op.kind == PatchOp::Kind::Remove) {
      parent->EraseMember(it);
    } else {
      it->value = value;
    }
    return std::nullopt;
  }
  if (parent->IsArray()) {
    if (op.kind == PatchOp::Kind::Add) return insertIntoArray(*parent, last, value, alloc);
    auto index = parseIndex(last);
    if (!index || *index >= parent->Size()) return "array index out of range";
    if (op.kind == PatchOp::Kind::Remove) {
      parent->Erase(parent->Begin() + *index);
    } else {
      (*parent)[*index] = value;
    }
    return std::nullopt;
  }
  return "parent is neither an object nor an array";
}

const char* kindName(PatchOp::Kind k) {
  return k == PatchOp::Kind::Add ? "add" : k == PatchOp::Kind::Remove ? "remove" : "replace";
}

}  // namespace

std::optional<std::string> applyPatch(rapidjson::Document& doc, const Patch& patch) {
  for (std::size_t i = 0; i < patch.size(); ++i) {
    if (auto error = applyOne(doc, patch[i]))
      return "op " + std::to_string(i) + " (" + kindName(patch[i].kind) + " " + patch[i].path +
             "): " + *error;
  }
  return std::nullopt;
}

}  // namespace gpua::engine
