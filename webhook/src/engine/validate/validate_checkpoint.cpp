// checkpoint-missing, checkpoint-dangling, checkpoint-invalid: a preemptible pod must say where
// its checkpoints go, so a preemption costs minutes rather than the whole run.
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/validate/validate.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// scheme://rest, the scheme as RFC 3986 writes it (s3, gs, https, hdfs, az...).
bool isUri(std::string_view v) {
  const std::size_t sep = v.find("://");
  if (sep == std::string_view::npos || sep == 0 || sep + 3 >= v.size()) return false;
  if (!isAlpha(v[0])) return false;
  for (std::size_t i = 1; i < sep; ++i) {
    const char c = v[i];
    if (!isAlpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '.' && c != '-') return false;
  }
  return true;
}

// Whether any container or init container mounts the volume `name`.
bool mounted(const PodView& pod, std::string_view name) {
  for (const char* list : {"containers", "initContainers"}) {
    const rapidjson::Value* containers = json::arrayMember(pod.spec, list);
    if (containers == nullptr) continue;
    for (const auto& c : containers->GetArray()) {
      const rapidjson::Value* mounts = json::arrayMember(&c, "volumeMounts");
      if (mounts == nullptr) continue;
      for (const auto& m : mounts->GetArray())
        if (json::stringMember(&m, "name") == name) return true;
    }
  }
  return false;
}

// Whether a volume backed by PVC `claim` is mounted by some container.
bool mountsClaim(const PodView& pod, std::string_view claim) {
  const rapidjson::Value* volumes = json::arrayMember(pod.spec, "volumes");
  if (volumes == nullptr) return false;
  for (const auto& v : volumes->GetArray()) {
    const auto* pvc = json::objectMember(&v, "persistentVolumeClaim");
    if (json::stringMember(pvc, "claimName") == claim &&
        mounted(pod, json::stringMember(&v, "name")))
      return true;
  }
  return false;
}

bool mountsNamedVolume(const PodView& pod, const policy::CheckpointRule& rule) {
  const rapidjson::Value* volumes = json::arrayMember(pod.spec, "volumes");
  if (volumes == nullptr) return false;
  for (const auto& v : volumes->GetArray())
    for (const auto& name : rule.volumes)
      if (json::stringMember(&v, "name") == name && mounted(pod, name)) return true;
  return false;
}

void checkAnnotation(const PodView& pod, std::string_view value, const CheckpointReason& why,
                     const policy::CheckpointRule& rule, Violations& out) {
  // The quoted value is built only for a message: a valid declaration costs no allocation.
  const auto shown = [&] { return text::quoted(text::oneLine(value, 120)); };
  if (value.starts_with(policy::kCheckpointPvcPrefix)) {
    const std::string_view claim = value.substr(policy::kCheckpointPvcPrefix.size());
    if (!claim.empty() && mountsClaim(pod, claim)) return;
    out.push_back({rules::kCheckpointDangling,
                   pod.subject + " declares checkpoint " + shown() + why.text() +
                       " but mounts no volume of PersistentVolumeClaim " +
                       text::quoted(text::oneLine(claim, 80)) +
                       ": add it to spec.volumes (persistentVolumeClaim.claimName) and mount it "
                       "in the container that writes checkpoints, or " +
                       howToDeclareCheckpoint(rule)});
    return;
  }
  if (isUri(value)) return;
  out.push_back({rules::kCheckpointInvalid,
                 pod.subject + " declares checkpoint " + shown() + why.text() +
                     ", which is neither pvc:<claim> nor a URI: " + howToDeclareCheckpoint(rule)});
}

}  // namespace

std::string howToDeclareCheckpoint(const policy::CheckpointRule& rule) {
  std::string how = "annotate the pod " + std::string(policy::kCheckpointAnnotation) +
                    ": pvc:<claim> (a PersistentVolumeClaim the pod mounts) or a URI such as "
                    "s3://bucket/run";
  if (!rule.volumes.empty()) how += ", or mount a volume named " + text::join(rule.volumes, " or ");
  return how;
}

void checkCheckpoint(const PodView& pod, const policy::CheckpointRule& rule,
                     const CheckpointReason& why, Violations& out) {
  bool annotated = false;
  const std::string_view value = pod.annotation(policy::kCheckpointAnnotation, &annotated);
  if (annotated) {
    checkAnnotation(pod, value, why, rule, out);
    return;
  }
  if (mountsNamedVolume(pod, rule)) return;
  out.push_back({rules::kCheckpointMissing,
                 pod.subject + why.text() + " and can be preempted, but declares no checkpoint: " +
                     howToDeclareCheckpoint(rule)});
}

}  // namespace gpua::engine
