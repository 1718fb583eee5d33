// Live cluster state as the engine sees it: namespace labels and GPU usage. Built by the
// cluster watch client (or from a pods.json file for the CLI) and handed over as an immutable
// snapshot; the engine only reads it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "engine/context/dra_objects.hpp"
#include "kube/label_selector.hpp"

namespace gpua::engine {

struct NamespaceUsage {
  double gpuEquivalents = 0;  // all GPU resources together
  // std::less<>: looked up by a string_view on the request path, no key copied.
  std::map<std::string, double, std::less<>> byClass;      // class name -> GPU-equivalents
  std::map<std::string, int64_t, std::less<>> byResource;  // resource name -> units in use
};

struct UsageSnapshot {
  // False when no live usage is known (API unreachable, not yet synced, or no cluster client):
  // quota checks then follow PolicySet::quotaUnavailable.
  bool available = false;
  std::string unavailableReason;  // for messages: "Kubernetes API unreachable: ..."
  std::map<std::string, NamespaceUsage, std::less<>> namespaces;
  // Labels of every namespace the cluster client knows, for quota and rollout selectors.
  std::map<std::string, kube::Labels, std::less<>> namespaceLabels;
  // The DRA objects pods' claims are resolved against (spec.dra); null = none known. Shared
  // between snapshots until a DRA object changes.
  std::shared_ptr<const DraObjects> dra;

  const DraObjects& draObjects() const {
    static const DraObjects none;
    return dra ? *dra : none;
  }
  // Pods (metadata.uid) the usage counts now or counted until they ended: a quota reservation
  // for one of them is already in the figures above, or no longer holds anything.
  std::set<std::string, std::less<>> knownPods;
};

}  // namespace gpua::engine

#include <memory>

namespace gpua::engine {

// Where the server gets the current snapshot from (the cluster watch client, a file, or a fixed
// empty snapshot). Implementations swap snapshots atomically; current() never blocks for long.
class UsageSource {
 public:
  virtual ~UsageSource() = default;
  virtual std::shared_ptr<const UsageSnapshot> current() const = 0;
  // False until the first full list has completed (drives /readyz).
  virtual bool synced() const = 0;
};

}  // namespace gpua::engine
