#include "cluster/node_decode.hpp"

#include <rapidjson/error/en.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "cluster/json_util.hpp"

namespace gpua::cluster {

namespace {

__extension__ typedef __int128 Wide;  // mantissa x multiplier fits with room before the int64 check
constexpr int64_t kMaxMillis = std::numeric_limits<int64_t>::max();
constexpr int kMaxDigits = 20;  // 10^20 x 2^60 (Ei) stays below 2^127

struct Suffix {
  int exponent10 = 0;  // decimal exponent (m = -3, k = 3, e5 = 5)
  Wide binary = 1;     // binary multiplier (Ki = 1024)
};

std::optional<Suffix> parseSuffix(std::string_view s) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"", 0}, {"m", -3}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [name, exp] : kDecimal)
    if (s == name) return Suffix{exp, 1};
  for (const auto& [name, bits] : kBinary)
    if (s == name) return Suffix{0, Wide{1} << bits};
  // Decimal exponent: e or E, an optional sign, digits ("1e3", "5E-2").
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  std::size_t i = 1;
  const bool negative = s[i] == '-';
  if (s[i] == '+' || s[i] == '-') ++i;
  if (i == s.size()) return std::nullopt;
  int exp = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    exp = std::min(exp * 10 + (s[i] - '0'), 1000);
  }
  return Suffix{negative ? -exp : exp, 1};
}

// mantissa x 10^exponent, rounded up; nullopt beyond int64.
std::optional<int64_t> scale(Wide mantissa, int exponent) {
  if (exponent >= 0) {
    for (; exponent > 0; --exponent) {
      mantissa *= 10;
      if (mantissa > kMaxMillis) return std::nullopt;
    }
  } else {
    if (exponent < -38) return mantissa > 0 ? 1 : 0;  // below a thousandth: rounds up to 1
    Wide divisor = 1;
    for (; exponent < 0; ++exponent) divisor *= 10;
    mantissa = (mantissa + divisor - 1) / divisor;
  }
  if (mantissa > kMaxMillis) return std::nullopt;
  return static_cast<int64_t>(mantissa);
}

std::optional<int64_t> millisOf(const rapidjson::Value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->IsString()) return quantityMillis({v->GetString(), v->GetStringLength()});
  if (v->IsInt64() && v->GetInt64() >= 0 && v->GetInt64() <= kMaxMillis / 1000)
    return v->GetInt64() * 1000;
  return std::nullopt;
}

policy::Labels labelsOf(const rapidjson::Value& node) {
  policy::Labels labels;
  const auto* l = json::member(json::member(node, "metadata"), "labels");
  if (l == nullptr || !l->IsObject()) return labels;
  for (const auto& m : l->GetObject())
    if (m.value.IsString())
      labels.emplace(std::string(m.name.GetString(), m.name.GetStringLength()),
                     std::string(m.value.GetString(), m.value.GetStringLength()));
  return labels;
}

std::vector<policy::Taint> taintsOf(const rapidjson::Value& node) {
  std::vector<policy::Taint> taints;
  const auto* t = json::member(json::member(node, "spec"), "taints");
  if (t == nullptr || !t->IsArray()) return taints;
  for (const auto& taint : t->GetArray()) {
    const auto key = json::string(json::member(taint, "key"));
    if (key.empty()) continue;
    taints.push_back({std::string(key), std::string(json::string(json::member(taint, "value"))),
                      std::string(json::string(json::member(taint, "effect")))});
  }
  return taints;
}

bool readyOf(const rapidjson::Value& node) {
  const auto* conditions = json::member(json::member(node, "status"), "conditions");
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray())
    if (json::string(json::member(c, "type")) == "Ready")
      return json::string(json::member(c, "status")) == "True";
  return false;
}

void readAllocatable(const rapidjson::Value& node, const NodeResourceFilter& filter,
                     engine::NodeSupply& out) {
  const auto* a = json::member(json::member(node, "status"), "allocatable");
  if (a == nullptr || !a->IsObject()) return;
  for (const auto& m : a->GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (name == "cpu") {
      out.cpuMillis = millisOf(&m.value).value_or(0);
    } else if (name == "memory") {
      out.memoryBytes = millisOf(&m.value).value_or(0) / 1000;
    } else if (filter.keeps(name)) {
      // Extended resources are whole numbers; a fractional one is malformed, not rounded.
      const auto millis = millisOf(&m.value);
      if (millis && *millis % 1000 == 0) out.allocatable.emplace(name, *millis / 1000);
    }
  }
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NodesFileError(path + ": cannot read nodes file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Items without a kind are nodes unless the list they came in says otherwise (a PodList).
void collect(const rapidjson::Value& v, bool kindlessAreNodes, const NodeResourceFilter& filter,
             std::vector<engine::NodeSupply>& out) {
  if (v.IsArray()) {
    for (const auto& item : v.GetArray()) collect(item, kindlessAreNodes, filter, out);
    return;
  }
  if (!v.IsObject()) return;
  const auto kind = json::string(json::member(v, "kind"));
  if (const auto* items = json::member(v, "items"); items != nullptr && items->IsArray()) {
    const bool nodes = kind.empty() || kind == "List" || kind == "NodeList";
    for (const auto& item : items->GetArray()) collect(item, nodes, filter, out);
    return;
  }
  if (kind != "Node" && !(kindlessAreNodes && kind.empty())) return;
  if (auto node = decodeNode(v, filter)) out.push_back(std::move(*node));
}

}  // namespace

bool NodeResourceFilter::keeps(std::string_view resource) const {
  return resource.starts_with("nvidia.com/") ||
         std::binary_search(extra.begin(), extra.end(), resource);
}

NodeResourceFilter nodeResourceFilter(const policy::PolicySet& policy) {
  NodeResourceFilter f;
  for (const auto& pool : policy.pools) f.extra.push_back(pool.resource);
  for (const auto& cls : policy.classes)
    if (!cls.resolvedResource.empty()) f.extra.push_back(cls.resolvedResource);
  std::sort(f.extra.begin(), f.extra.end());
  f.extra.erase(std::unique(f.extra.begin(), f.extra.end()), f.extra.end());
  return f;
}

std::optional<int64_t> quantityMillis(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  Wide mantissa = 0;
  int digits = 0, fraction = 0;
  bool dot = false;
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    if (++digits > kMaxDigits) return std::nullopt;
    mantissa = mantissa * 10 + (c - '0');
    if (dot) ++fraction;
  }
  if (digits == 0) return std::nullopt;
  const auto suffix = parseSuffix(s.substr(i));
  if (!suffix) return std::nullopt;
  return scale(mantissa * suffix->binary, suffix->exponent10 + 3 - fraction);
}

std::optional<engine::NodeSupply> decodeNode(const rapidjson::Value& node,
                                             const NodeResourceFilter& filter) {
  if (!node.IsObject()) return std::nullopt;
  const auto name = json::path(node, "metadata", "name");
  if (name.empty()) return std::nullopt;
  engine::NodeSupply out;
  out.name = std::string(name);
  out.labels = labelsOf(node);
  out.taints = taintsOf(node);
  out.ready = readyOf(node);
  const auto* unschedulable = json::member(json::member(node, "spec"), "unschedulable");
  out.unschedulable =
      unschedulable != nullptr && unschedulable->IsBool() && unschedulable->GetBool();
  readAllocatable(node, filter, out);
  return out;
}

std::vector<engine::NodeSupply> nodesFromList(const rapidjson::Value& list,
                                              const NodeResourceFilter& filter) {
  std::vector<engine::NodeSupply> out;
  collect(list, true, filter, out);
  return out;
}

std::vector<engine::NodeSupply> loadNodesFile(const std::string& path,
                                              const NodeResourceFilter& filter) {
  const auto text = readFile(path);
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError())
    throw NodesFileError(path + ": invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) +
                         ": " + rapidjson::GetParseError_En(doc.GetParseError()));
  if (!doc.IsObject() && !doc.IsArray())
    throw NodesFileError(path + ": expected a JSON list of nodes (kubectl get nodes -o json)");
  return nodesFromList(doc, filter);
}

}  // namespace gpua::cluster
