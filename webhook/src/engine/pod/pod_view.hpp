// A read-only view of a pod or of a workload's pod template: where its metadata and spec are,
// how messages name it, and how patch paths and field names start. No copies of the document.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "kube/label_selector.hpp"

namespace gpua::engine {

struct PodView {
  const rapidjson::Value* root = nullptr;      // the pod or the template object
  const rapidjson::Value* metadata = nullptr;  // null when absent or not an object
  const rapidjson::Value* spec = nullptr;      // null when absent or not an object
  std::string subject;      // `pod "trainer-0"` or `Deployment "web" pod template (spec.template)`
  std::string fieldPrefix;  // prefix of field names in messages: "" or "spec.template."
  bool isTemplate = false;  // templates are validated, never mutated
  // Labels the workload's controller will add to pods made from this template; they win over
  // the template's own labels in label(), as the controllers' do. Empty for pods.
  kube::Labels controllerLabels;

  std::string_view name() const;
  // Label/annotation lookups; `found` tells an empty value from an absent key.
  std::string_view label(std::string_view key, bool* found = nullptr) const;
  std::string_view annotation(std::string_view key, bool* found = nullptr) const;
  std::string_view specString(std::string_view key) const;
};

// A pod object: subject from metadata.name, or generateName when the name is empty. The
// subject is written into `subjectMemory` (emptied first): a caller that keeps the string from
// pod to pod names each without allocating.
PodView podViewOf(const rapidjson::Value& pod, std::string subjectMemory = {});

// A pod template inside a workload, e.g. kind "Deployment", path "spec.template".
PodView templateViewOf(const rapidjson::Value& tmpl, std::string_view kind,
                       std::string_view workloadName, std::string_view path,
                       kube::Labels controllerLabels = {});

}  // namespace gpua::engine
