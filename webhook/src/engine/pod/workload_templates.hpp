// Where a workload object keeps its pod templates: the built-in controllers (the table in
// engine/pod/workload_kinds.hpp) and the policy's templateKinds (paths with '*'), with the labels
// their controllers will add to the pods.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

struct PodTemplateRef {
  const rapidjson::Value* tmpl = nullptr;  // an object
  std::string path;                        // "spec.pytorchReplicaSpecs.Worker.template"
  std::string pointer;                     // "/spec/pytorchReplicaSpecs/Worker/template"
  // The labels the kind's controller adds to the pods it creates from this template
  // (TemplateKind::podLabels and podLabelsByPath, placeholders filled in).
  kube::Labels controllerLabels;
};

// nullopt when the kind is not a workload whose templates the policy validates.
std::optional<std::vector<PodTemplateRef>> findPodTemplates(const rapidjson::Value& object,
                                                            std::string_view group,
                                                            std::string_view kind,
                                                            const policy::PolicySet& policy);

}  // namespace gpua::engine
