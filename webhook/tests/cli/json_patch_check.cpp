#include "json_patch_check.hpp"

#include <cctype>
#include <vector>

namespace gpua::cli::test {
namespace {

using rapidjson::Value;

std::vector<std::string> tokens(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 1;
  while (i <= path.size()) {
    auto end = path.find('/', i);
    if (end == std::string::npos) end = path.size();
    std::string t = path.substr(i, end - i), u;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] == '~' && k + 1 < t.size()) {
        u += t[k + 1] == '1' ? '/' : '~';
        ++k;
      } else {
        u += t[k];
      }
    }
    out.push_back(u);
    i = end + 1;
  }
  return out;
}

bool isIndex(const std::string& t) {
  if (t.empty()) return false;
  for (char c : t)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

Value* child(Value* v, const std::string& t) {
  if (v->IsObject()) {
    auto it = v->FindMember(t);
    return it == v->MemberEnd() ? nullptr : &it->value;
  }
  if (v->IsArray() && isIndex(t) && std::stoul(t) < v->Size()) return &(*v)[std::stoul(t)];
  return nullptr;
}

std::string applyOne(rapidjson::Document& doc, const Value& op) {
  const std::string kind = op["op"].GetString(), path = op["path"].GetString();
  auto toks = tokens(path);
  if (toks.empty()) return path + ": whole-document ops are not used by the webhook";
  Value* parent = &doc;
  for (std::size_t i = 0; i + 1 < toks.size(); ++i)
    if (!(parent = child(parent, toks[i]))) return kind + " " + path + ": missing parent";
  const std::string& last = toks.back();
  auto& a = doc.GetAllocator();
  if (kind == "add") {
    Value v(op["value"], a);
    if (parent->IsObject()) {
      if (parent->HasMember(last)) parent->RemoveMember(last);
      parent->AddMember(Value(last.c_str(), a), v, a);
    } else if (parent->IsArray() && last == "-") {
      parent->PushBack(v, a);
    } else if (parent->IsArray() && isIndex(last) && std::stoul(last) <= parent->Size()) {
      parent->PushBack(Value(), a);
      for (auto i = parent->Size() - 1; i > std::stoul(last); --i) (*parent)[i] = (*parent)[i - 1];
      (*parent)[std::stoul(last)] = v;
    } else {
      return "add " + path + ": bad parent";
    }
    return "";
  }
  Value* target = child(parent, last);
  if (!target) return kind + " " + path + ": missing";
  if (kind == "replace") {
    target->CopyFrom(op["value"], a);
  } else if (kind == "remove") {
    if (parent->IsObject())
      parent->RemoveMember(last);
    else
      parent->Erase(parent->Begin() + std::stoul(last));
  } else {
    return "unsupported op " + kind;
  }
  return "";
}

// A quantity that is a plain integer: 1, "1", "+1" (no fractions, no suffixes).
bool integerQuantity(const Value& q) {
  if (q.IsInt64()) return true;
  if (!q.IsString()) return false;
  std::string s = q.GetString();
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  return isIndex(s);
}

long long quantity(const Value& q) {
  return q.IsInt64() ? q.GetInt64() : std::stoll(q.GetString());
}

std::string containerProblems(const Value& c) {
  if (!c.HasMember("resources")) return "";
  const Value& r = c["resources"];
  const Value* limits = r.HasMember("limits") ? &r["limits"] : nullptr;
  const Value* requests = r.HasMember("requests") ? &r["requests"] : nullptr;
  const std::string name = c["name"].GetString();
  auto check = [&](const Value* m, const char* which) -> std::string {
    if (!m) return "";
    for (const auto& kv : m->GetObject()) {
      const std::string key = kv.name.GetString();
      if (key.rfind("nvidia.com/", 0) != 0) continue;
      if (!integerQuantity(kv.value)) return name + ": " + which + " " + key + " is not an integer";
      if (!limits || !limits->HasMember(key)) return name + ": " + key + " has no limit";
      if (requests && requests->HasMember(key) &&
          quantity((*requests)[key.c_str()]) != quantity((*limits)[key.c_str()]))
        return name + ": " + key + " requests != limits";
    }
    return "";
  };
  if (auto p = check(limits, "limits"); !p.empty()) return p;
  return check(requests, "requests");
}

}  // namespace

std::string applyJsonPatch(rapidjson::Document& doc, const Value& patch) {
  if (!patch.IsArray()) return "patch is not an array";
  for (const auto& op : patch.GetArray())
    if (auto err = applyOne(doc, op); !err.empty()) return err;
  return "";
}

std::string extendedResourceProblems(const Value& pod) {
  const Value& spec = pod["spec"];
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.HasMember(list)) continue;
    for (const auto& c : spec[list].GetArray())
      if (auto p = containerProblems(c); !p.empty()) return p;
  }
  return "";
}

}  // namespace gpua::cli::test
