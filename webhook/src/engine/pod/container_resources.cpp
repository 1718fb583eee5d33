#include "engine/pod/container_resources.hpp"

#include <algorithm>
#include <limits>

#include "engine/core/json_util.hpp"

namespace gpua::engine {

namespace {

constexpr Nanos kNanosPerUnit = 1000000000;

struct Suffix {
  std::string_view text;
  Nanos factor;  // in units
};

constexpr Suffix kBinary[] = {{"Ei", Nanos{1} << 60}, {"Pi", Nanos{1} << 50},
                              {"Ti", Nanos{1} << 40}, {"Gi", Nanos{1} << 30},
                              {"Mi", Nanos{1} << 20}, {"Ki", Nanos{1} << 10}};
constexpr Suffix kDecimal[] = {
    {"E", 1000000000000000000}, {"P", 1000000000000000}, {"T", 1000000000000},
    {"G", 1000000000},          {"M", 1000000},          {"k", 1000}};

bool endsWithAny(std::string_view text, const Suffix (&table)[6]) {
  for (const auto& s : table)
    if (text.ends_with(s.text)) return true;
  return false;
}

// `q` with the largest suffix of `table` that divides it, or "" when none does.
std::string withSuffix(const Quantity& q, const Suffix (&table)[6]) {
  if (!q.whole() || q.units <= 0) return {};
  for (const auto& s : table)
    if (q.units % s.factor == 0)
      return std::to_string(static_cast<int64_t>(q.units / s.factor)) + std::string(s.text);
  return {};
}

std::optional<Quantity> readQuantity(const rapidjson::Value* map, std::string_view resource,
                                     bool& written) {
  const rapidjson::Value* v = json::member(map, resource);
  written = v != nullptr;
  if (v == nullptr) return std::nullopt;
  return quantityFromJson(*v);
}

}  // namespace

std::optional<Quantity> quantityOfNanos(Nanos n) {
  if (n < 0 || n / kNanosPerUnit > std::numeric_limits<int64_t>::max()) return std::nullopt;
  return Quantity{static_cast<int64_t>(n / kNanosPerUnit), static_cast<int32_t>(n % kNanosPerUnit)};
}

std::optional<WrittenQuantity> defaultRequest(const policy::ContainerRules& rules,
                                              const ContainerGpu& c, std::string_view resource) {
  if (json::member(c.requests, resource) != nullptr || json::member(c.limits, resource) != nullptr)
    return std::nullopt;
  const std::string key(resource);
  if (const auto it = rules.defaultRequestsPerGpu.find(key);
      it != rules.defaultRequestsPerGpu.end() && c.units() > 0) {
    // Beyond what a quantity can hold (the loader keeps perGpu positive): leave it as written.
    // Checked by division, since clang's 128-bit overflow builtins need compiler-rt.
    const Nanos perGpu = nanosOf(it->second.value);
    const Nanos units = c.units();
    const Nanos largest = static_cast<Nanos>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;
    if (perGpu <= 0 || units > largest / perGpu) return std::nullopt;
    const auto q = quantityOfNanos(perGpu * units);
    if (!q) return std::nullopt;
    return WrittenQuantity{*q, json::quoteString(quantityText(*q, it->second.text))};
  }
  if (const auto it = rules.defaultRequests.find(key); it != rules.defaultRequests.end())
    return WrittenQuantity{it->second.value, json::quoteString(it->second.text)};
  return std::nullopt;
}

std::optional<WrittenQuantity> defaultLimit(const policy::ContainerRules& rules,
                                            const ContainerGpu& c, std::string_view resource) {
  const auto& copied = rules.limitsFromRequests;
  if (std::find(copied.begin(), copied.end(), resource) == copied.end() ||
      json::member(c.limits, resource) != nullptr)
    return std::nullopt;
  if (const rapidjson::Value* request = json::member(c.requests, resource)) {
    const auto q = quantityFromJson(*request);
    if (!q) return std::nullopt;  // unreadable: the apiserver refuses the pod anyway
    return WrittenQuantity{*q, json::serialize(*request)};
  }
  return defaultRequest(rules, c, resource);
}

ContainerAmount containerAmount(const policy::ContainerRules& rules, const ContainerGpu& c,
                                std::string_view resource, bool applyDefaults) {
  ContainerAmount a;
  a.request = readQuantity(c.requests, resource, a.requestWritten);
  a.limit = readQuantity(c.limits, resource, a.limitWritten);
  if (!a.requestWritten && a.limitWritten) a.request = a.limit;  // the apiserver's defaulting
  if (!applyDefaults) return a;
  if (!a.requestWritten && !a.limitWritten) {
    if (const auto d = defaultRequest(rules, c, resource)) a.request = d->value;
    a.defaulted = a.request.has_value();
  }
  if (!a.limitWritten)
    if (const auto d = defaultLimit(rules, c, resource)) {
      a.limit = d->value;
      a.limitDefaulted = true;
    }
  return a;
}

std::string showQuantity(const Quantity& q, std::string_view resource) {
  if (resource == "memory") {
    std::string binary = withSuffix(q, kBinary);
    if (!binary.empty()) return binary;
  }
  return toDecimalString(q);
}

std::string quantityText(const Quantity& q, std::string_view like) {
  std::string out;
  if (endsWithAny(like, kBinary)) out = withSuffix(q, kBinary);
  if (out.empty() && endsWithAny(like, kDecimal)) out = withSuffix(q, kDecimal);
  if (!out.empty()) return out;
  if (q.whole()) return std::to_string(q.units);
  if (q.nanos % 1000000 == 0 && q.units < std::numeric_limits<int64_t>::max() / 1000)
    return std::to_string(q.units * 1000 + q.nanos / 1000000) + "m";
  return toDecimalString(q);
}

std::string resourcesField(const PodView& pod, const ContainerGpu& c) {
  return containerField(pod, c) + ".resources";
}

}  // namespace gpua::engine
