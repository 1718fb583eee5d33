// The cpu and memory of a pod's containers as the class's `containers` rules see them: each
// request and limit read exactly (Kubernetes quantities), after the apiserver's defaulting (a
// request absent but a limit set means request = limit) and, when the class writes them, its
// default requests and copied limits, so validation judges the pod as it will be admitted and
// the mutation writes exactly what validation assumed. Plus the exact
// arithmetic and the quantity texts the rules need.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/pod/gpu_request.hpp"
#include "engine/pod/quantity.hpp"
#include "policy/container_rules.hpp"

namespace gpua::engine {

// Exact quantities in nano units. A parsed quantity is below 2^93 nanos, so a sum of a few
// thousand of them and a product with a ratio in thousandths (< 2^30) stay far below 2^127.
__extension__ typedef __int128 Nanos;
inline Nanos nanosOf(const Quantity& q) {
  return static_cast<Nanos>(q.units) * 1000000000 + q.nanos;
}
// From nanos back to a quantity; nullopt beyond int64 units or below zero.
std::optional<Quantity> quantityOfNanos(Nanos n);

// One resource of one container after defaulting.
struct ContainerAmount {
  bool requestWritten = false;  // resources.requests has the key (maybe unreadable)
  bool limitWritten = false;
  std::optional<Quantity> request;  // the effective request: written, else the limit, else the
                                    // class default (when applied)
  std::optional<Quantity> limit;    // written, else copied from the request (when applied)
  bool defaulted = false;           // the request is the class's default (per GPU or per container)
  bool limitDefaulted = false;      // the limit is the request, copied (limitsFromRequests)
};

// A quantity the class writes: its value, and its JSON as written into the pod (the author's
// unit: 64Gi per GPU x 2 is "128Gi"; a copied request keeps the pod's own text).
struct WrittenQuantity {
  Quantity value;
  std::string json;
};

// The request the class writes for `resource` into container `c` when it sets neither a
// request nor a limit of it: defaultRequestsPerGpu x its GPUs in a container that asks for
// GPUs, else defaultRequests; nullopt when none applies.
std::optional<WrittenQuantity> defaultRequest(const policy::ContainerRules& rules,
                                              const ContainerGpu& c, std::string_view resource);

// The limit the class writes (limitsFromRequests) into a container without one: its request,
// written or defaulted; nullopt when none applies.
std::optional<WrittenQuantity> defaultLimit(const policy::ContainerRules& rules,
                                            const ContainerGpu& c, std::string_view resource);

// `applyDefaults`: the class writes its defaults (mutate mode, not validate-only).
ContainerAmount containerAmount(const policy::ContainerRules& rules, const ContainerGpu& c,
                                std::string_view resource, bool applyDefaults);

// For messages: memory in the largest binary unit that divides it ("32Gi", else bytes), cpu as
// a decimal ("1.5").
std::string showQuantity(const Quantity& q, std::string_view resource);

// The text a mutation writes for `q`, in the style of `like` (the author's text): binary units
// when `like` has one ("64Gi" -> "128Gi"), decimal SI units likewise ("2G" -> "4G"), else a
// whole number, thousandths ("1500m") or the exact decimal.
std::string quantityText(const Quantity& q, std::string_view like);

// "spec.containers[0].resources" (with the template's prefix) for fixes.
std::string resourcesField(const PodView& pod, const ContainerGpu& c);

}  // namespace gpua::engine
