// The fields of a pod a policy can read: the one table the admission reader keeps (everything
// else in a pod under review is parsed past, never built) and the engine's readers check. A
// rule that reads a new field adds it here; the differential test (tests/admission) fails when
// one is missing, because the filtered pod then decides differently from the full one.
#pragma once

#include <string_view>

#include "kube/json_field_table.hpp"

namespace gpua::engine::pod_fields {

using kube::JsonField;
using kube::JsonKeep;
using kube::kKeepAll;

// What the engine reads of a container, an init container or a native sidecar.
inline constexpr JsonField kContainerFields[] = {
    {"name", &kKeepAll}, {"image", &kKeepAll},        {"resources", &kKeepAll},
    {"env", &kKeepAll},  {"volumeMounts", &kKeepAll}, {"restartPolicy", &kKeepAll},
};
inline constexpr JsonKeep kContainer{JsonKeep::Kind::Fields, kContainerFields};
inline constexpr JsonKeep kContainers{JsonKeep::Kind::Elements, {}, &kContainer};

// uid: the quota charge names the pod it reserves for.
inline constexpr JsonField kMetadataFields[] = {
    {"name", &kKeepAll},
    {"generateName", &kKeepAll},
    {"namespace", &kKeepAll},
    {"uid", &kKeepAll},
    {"labels", &kKeepAll},
    {"annotations", &kKeepAll},
    {"ownerReferences", &kKeepAll},
};
inline constexpr JsonKeep kMetadata{JsonKeep::Kind::Fields, kMetadataFields};

inline constexpr JsonField kSpecFields[] = {
    {"containers", &kContainers},
    {"initContainers", &kContainers},
    {"nodeSelector", &kKeepAll},
    {"affinity", &kKeepAll},
    {"tolerations", &kKeepAll},
    {"nodeName", &kKeepAll},
    {"priority", &kKeepAll},
    {"priorityClassName", &kKeepAll},
    {"preemptionPolicy", &kKeepAll},
    {"runtimeClassName", &kKeepAll},
    {"schedulerName", &kKeepAll},
    {"restartPolicy", &kKeepAll},
    {"activeDeadlineSeconds", &kKeepAll},
    {"overhead", &kKeepAll},
    {"resourceClaims", &kKeepAll},
    {"volumes", &kKeepAll},
};
inline constexpr JsonKeep kSpec{JsonKeep::Kind::Fields, kSpecFields};

inline constexpr JsonField kPodFields[] = {
    {"apiVersion", &kKeepAll},
    {"kind", &kKeepAll},
    {"metadata", &kMetadata},
    {"spec", &kSpec},
};
// A pod object: what a policy can read of it.
inline constexpr JsonKeep kPod{JsonKeep::Kind::Fields, kPodFields};

// Whether the engine may read spec.<key> of a pod under review.
inline bool readableSpecField(std::string_view key) {
  return kube::keepOf(kSpec, key) != nullptr;
}

}  // namespace gpua::engine::pod_fields
