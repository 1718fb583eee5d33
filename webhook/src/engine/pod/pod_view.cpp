#include "engine/pod/pod_view.hpp"

#include <cassert>

#include "engine/pod/pod_fields.hpp"

#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"

namespace gpua::engine {

namespace {

std::string_view lookup(const rapidjson::Value* metadata, std::string_view map,
                        std::string_view key, bool* found) {
  const rapidjson::Value* v = json::member(json::objectMember(metadata, map), key);
  if (found != nullptr) *found = v != nullptr;
  return v != nullptr ? json::view(*v) : std::string_view();
}

}  // namespace

std::string_view PodView::name() const {
  return json::stringMember(metadata, "name");
}

std::string_view PodView::label(std::string_view key, bool* found) const {
  if (!controllerLabels.empty()) {
    if (auto it = controllerLabels.find(key); it != controllerLabels.end()) {
      if (found != nullptr) *found = true;
      return it->second;
    }
  }
  return lookup(metadata, "labels", key, found);
}

std::string_view PodView::annotation(std::string_view key, bool* found) const {
  return lookup(metadata, "annotations", key, found);
}

std::string_view PodView::specString(std::string_view key) const {
  // The admission reader keeps only the table's fields: one read outside it would see "absent".
  assert(pod_fields::readableSpecField(key));
  return json::stringMember(spec, key);
}

PodView podViewOf(const rapidjson::Value& pod, std::string subjectMemory) {
  PodView view;
  view.subject = std::move(subjectMemory);
  view.subject.clear();
  view.root = &pod;
  view.metadata = json::objectMember(&pod, "metadata");
  view.spec = json::objectMember(&pod, "spec");
  const std::string_view name = json::stringMember(view.metadata, "name");
  const std::string_view generateName = json::stringMember(view.metadata, "generateName");
  // Written in place: no allocation when the memory given suffices, one at most otherwise.
  if (!name.empty()) {
    view.subject += "pod ";
    text::appendQuoted(view.subject, name);
  } else if (!generateName.empty()) {
    view.subject += "pod ";
    text::appendQuoted(view.subject, generateName);
    view.subject += " (generateName)";
  } else {
    view.subject = "pod (no name)";
  }
  return view;
}

PodView templateViewOf(const rapidjson::Value& tmpl, std::string_view kind,
                       std::string_view workloadName, std::string_view path,
                       kube::Labels controllerLabels) {
  PodView view;
  view.controllerLabels = std::move(controllerLabels);
  view.root = &tmpl;
  view.metadata = json::objectMember(&tmpl, "metadata");
  view.spec = json::objectMember(&tmpl, "spec");
  view.isTemplate = true;
  view.subject = text::oneLine(kind, 40) + " " + text::quoted(workloadName) + " pod template (" +
                 text::oneLine(path, 120) + ")";
  view.fieldPrefix = text::oneLine(path, 120) + ".";
  return view;
}

}  // namespace gpua::engine
