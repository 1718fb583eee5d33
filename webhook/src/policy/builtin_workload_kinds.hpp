// The built-in workload kinds whose pod templates are judged, with where each keeps its template:
// one table, read by the loader (mutateTemplates names them), the engine's template finder, the
// admission router and the CLI, so a kind that is accepted is always judged. The policy's
// `templates` add custom kinds.
#pragma once

#include <array>
#include <string_view>

namespace gpua::policy {

struct WorkloadKind {
  std::string_view group;  // "" = the core group
  std::string_view kind;
  std::string_view templatePath;  // dotted path from the object to its pod template
  // The controller keeps its pods running (restartPolicy Always): the apiserver refuses
  // activeDeadlineSeconds in its template ("activeDeadlineSeconds in ReplicaSet is not
  // Supported"), so a class's maximum run time is written into its pods only.
  bool keepsPodsRunning = false;
};

inline constexpr std::array<WorkloadKind, 8> kBuiltinWorkloadKinds = {{
    {"apps", "Deployment", "spec.template", true},
    {"apps", "StatefulSet", "spec.template", true},
    {"apps", "DaemonSet", "spec.template", true},
    {"apps", "ReplicaSet", "spec.template", true},
    {"", "ReplicationController", "spec.template", true},
    {"batch", "Job", "spec.template", false},
    {"batch", "CronJob", "spec.jobTemplate.spec.template", false},
    {"", "PodTemplate", "template", false},  // no spec: its template is top-level
}};

// The built-in kind, or nullptr.
inline const WorkloadKind* findBuiltinWorkloadKind(std::string_view group, std::string_view kind) {
  for (const auto& k : kBuiltinWorkloadKinds)
    if (k.group == group && k.kind == kind) return &k;
  return nullptr;
}

}  // namespace gpua::policy
