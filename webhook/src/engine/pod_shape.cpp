#include "engine/pod_shape.hpp"

#include <string>
#include <string_view>

#include "engine/json_util.hpp"

namespace gpua::engine {

namespace {

enum class Type { Object, Array, String, Integer };

const char* typeName(Type t) {
  switch (t) {
    case Type::Object:
      return "an object";
    case Type::Array:
      return "a list";
    case Type::String:
      return "a string";
    case Type::Integer:
      return "an integer";
  }
  return "";
}

bool hasType(const rapidjson::Value& v, Type t) {
  switch (t) {
    case Type::Object:
      return v.IsObject();
    case Type::Array:
      return v.IsArray();
    case Type::String:
      return v.IsString();
    case Type::Integer:
      return v.IsInt64();
  }
  return false;
}

// Collects findings for one pod; stops caring after a few (one is enough to deny).
class ShapeChecker {
 public:
  ShapeChecker(const PodView& pod, std::vector<Violation>& out) : pod_(pod), out_(out) {}

  // The member `key` of `parent` when it has type `t`; nullptr when absent or ill-typed (and
  // then reported). `field` is the dotted name used in the message.
  const rapidjson::Value* expect(const rapidjson::Value* parent, std::string_view key, Type t,
                                 const std::string& field) {
    const rapidjson::Value* v = json::member(parent, key);
    if (v == nullptr || v->IsNull()) return nullptr;
    if (hasType(*v, t)) return v;
    report(field, std::string("must be ") + typeName(t));
    return nullptr;
  }

  void report(const std::string& field, const std::string& what) {
    ok_ = false;
    if (reported_++ >= 3) return;
    out_.push_back({"invalid-pod", pod_.subject + ": field " + pod_.fieldPrefix + field + " " +
                                       what + ": fix the manifest (Kubernetes would reject it)"});
  }

  bool ok() const { return ok_; }

 private:
  const PodView& pod_;
  std::vector<Violation>& out_;
  bool ok_ = true;
  int reported_ = 0;
};

void checkStringMap(ShapeChecker& c, const rapidjson::Value* parent, std::string_view key,
                    const std::string& field) {
  const rapidjson::Value* map = c.expect(parent, key, Type::Object, field);
  if (map == nullptr) return;
  for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it)
    if (!it->value.IsString()) {
      c.report(field + "." + std::string(json::view(it->name)), "must be a string");
      return;
    }
}

void checkContainers(ShapeChecker& c, const rapidjson::Value* spec, std::string_view key) {
  const std::string list(key);
  const rapidjson::Value* containers = c.expect(spec, key, Type::Array, "spec." + list);
  if (containers == nullptr) return;
  for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
    const std::string field = "spec." + list + "[" + std::to_string(i) + "]";
    const rapidjson::Value& container = (*containers)[i];
    if (!container.IsObject()) {
      c.report(field, "must be an object");
      continue;
    }
    c.expect(&container, "name", Type::String, field + ".name");
    c.expect(&container, "env", Type::Array, field + ".env");
    const rapidjson::Value* resources =
        c.expect(&container, "resources", Type::Object, field + ".resources");
    c.expect(resources, "requests", Type::Object, field + ".resources.requests");
    c.expect(resources, "limits", Type::Object, field + ".resources.limits");
    c.expect(resources, "claims", Type::Array, field + ".resources.claims");
  }
}

void checkAffinity(ShapeChecker& c, const rapidjson::Value* spec) {
  const auto* affinity = c.expect(spec, "affinity", Type::Object, "spec.affinity");
  const auto* node = c.expect(affinity, "nodeAffinity", Type::Object, "spec.affinity.nodeAffinity");
  const std::string requiredField =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  const auto* required =
      c.expect(node, "requiredDuringSchedulingIgnoredDuringExecution", Type::Object, requiredField);
  const auto* terms =
      c.expect(required, "nodeSelectorTerms", Type::Array, requiredField + ".nodeSelectorTerms");
  if (terms == nullptr) return;
  for (rapidjson::SizeType i = 0; i < terms->Size(); ++i) {
    const std::string field = requiredField + ".nodeSelectorTerms[" + std::to_string(i) + "]";
    if (!(*terms)[i].IsObject()) {
      c.report(field, "must be an object");
      continue;
    }
    const auto* exprs =
        c.expect(&(*terms)[i], "matchExpressions", Type::Array, field + ".matchExpressions");
    if (exprs == nullptr) continue;
    for (const auto& e : exprs->GetArray())
      if (!e.IsObject()) c.report(field + ".matchExpressions", "must hold objects");
  }
}

void checkTolerations(ShapeChecker& c, const rapidjson::Value* spec) {
  const auto* tolerations = c.expect(spec, "tolerations", Type::Array, "spec.tolerations");
  if (tolerations == nullptr) return;
  for (rapidjson::SizeType i = 0; i < tolerations->Size(); ++i)
    if (!(*tolerations)[i].IsObject())
      c.report("spec.tolerations[" + std::to_string(i) + "]", "must be an object");
}

}  // namespace

bool checkPodShape(const PodView& pod, std::vector<Violation>& violations) {
  ShapeChecker c(pod, violations);
  const rapidjson::Value* metadata = c.expect(pod.root, "metadata", Type::Object, "metadata");
  checkStringMap(c, metadata, "labels", "metadata.labels");
  checkStringMap(c, metadata, "annotations", "metadata.annotations");
  c.expect(metadata, "ownerReferences", Type::Array, "metadata.ownerReferences");
  const rapidjson::Value* spec = json::member(pod.root, "spec");
  if (spec == nullptr || !spec->IsObject()) {
    c.report("spec", spec == nullptr ? "is missing" : "must be an object");
    return false;
  }
  checkContainers(c, spec, "containers");
  checkContainers(c, spec, "initContainers");
  checkStringMap(c, spec, "nodeSelector", "spec.nodeSelector");
  checkAffinity(c, spec);
  checkTolerations(c, spec);
  c.expect(spec, "priorityClassName", Type::String, "spec.priorityClassName");
  c.expect(spec, "runtimeClassName", Type::String, "spec.runtimeClassName");
  c.expect(spec, "schedulerName", Type::String, "spec.schedulerName");
  c.expect(spec, "activeDeadlineSeconds", Type::Integer, "spec.activeDeadlineSeconds");
  c.expect(spec, "resourceClaims", Type::Array, "spec.resourceClaims");
  return c.ok();
}

}  // namespace gpua::engine
