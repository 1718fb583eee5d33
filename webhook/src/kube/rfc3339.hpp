// Kubernetes timestamps (metav1.Time: RFC 3339, "2026-01-01T10:00:00Z", optionally with
// fractional seconds or a numeric offset) as Unix seconds, for queue waits.
#pragma once

#include <optional>
#include <string_view>

namespace gpua::kube {

// nullopt when `text` is not an RFC 3339 date-time.
std::optional<double> parseRfc3339(std::string_view text);

}  // namespace gpua::kube
