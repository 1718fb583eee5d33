// Kubernetes object names, as the apiserver validates them (apimachinery's IsDNS1123Label and
// IsDNS1123Subdomain). A request that carries a name these refuse did not come from an apiserver.
#pragma once

#include <string_view>

namespace gpua::kube {

inline constexpr std::size_t kMaxDnsLabelBytes = 63;
inline constexpr std::size_t kMaxDnsSubdomainBytes = 253;

// An RFC 1123 label: 1-63 of [a-z0-9-], starting and ending with a letter or digit.
// Namespaces, Services and most other names are labels.
bool isDnsLabel(std::string_view s);

// An RFC 1123 subdomain: at most 253 bytes of labels joined by '.' (Pods, ConfigMaps...).
bool isDnsSubdomain(std::string_view s);

}  // namespace gpua::kube
