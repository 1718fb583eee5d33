#include "engine/pod/pod_shape.hpp"
#include "policy/rule_ids.hpp"

#include <string>
#include <string_view>

#include "engine/core/json_util.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

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

// A field name, built only when a message needs it: the well-typed path allocates nothing.
struct Field {
  Field(std::string_view b) : base(b) {}  // NOLINT: implicit on purpose, names read naturally
  Field(std::string_view b, int i, std::string_view s) : base(b), index(i), suffix(s) {}

  std::string_view base;  // "spec.containers", "spec.affinity..."
  int index = -1;         // list element, or -1
  std::string_view suffix;

  std::string str() const {
    std::string out(base);
    // GCC 12 at -O3 reports a false -Wrestrict inside libstdc++ for "literal" + string&&
    // (GCC bug 105329); the pragma covers this statement only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
    if (index >= 0) out += "[" + std::to_string(index) + "]";
#pragma GCC diagnostic pop
    out += suffix;
    return out;
  }
};

// Collects findings for one pod; a few are enough to explain a denial.
class ShapeChecker {
 public:
  ShapeChecker(const PodView& pod, Violations& out) : pod_(pod), out_(out) {}

  // The member `key` of `parent` when it has type `t`; nullptr when absent, null or ill-typed
  // (and then reported).
  const rapidjson::Value* expect(const rapidjson::Value* parent, std::string_view key, Type t,
                                 const Field& field) {
    const rapidjson::Value* v = json::member(parent, key);
    if (v == nullptr || v->IsNull()) return nullptr;
    if (hasType(*v, t)) return v;
    report(field.str(), std::string("must be ") + typeName(t));
    return nullptr;
  }

  void report(const std::string& field, const std::string& what) {
    ok_ = false;
    if (reported_++ >= 3) return;
    out_.push_back({rules::kInvalidPod, pod_.subject + ": field " + pod_.fieldPrefix + field + " " +
                                            what +
                                            ": fix the manifest (Kubernetes would reject it)"});
  }

  bool ok() const { return ok_; }

 private:
  const PodView& pod_;
  Violations& out_;
  bool ok_ = true;
  int reported_ = 0;
};

void checkStringMap(ShapeChecker& c, const rapidjson::Value* parent, std::string_view key,
                    std::string_view field) {
  const rapidjson::Value* map = c.expect(parent, key, Type::Object, {field});
  if (map == nullptr) return;
  for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it)
    if (!it->value.IsString()) {
      c.report(std::string(field) + "." + std::string(json::view(it->name)), "must be a string");
      return;
    }
}

void checkContainers(ShapeChecker& c, const rapidjson::Value* spec, std::string_view key,
                     std::string_view field) {
  const rapidjson::Value* containers = c.expect(spec, key, Type::Array, {field});
  if (containers == nullptr) return;
  for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
    const int index = static_cast<int>(i);
    const rapidjson::Value& container = (*containers)[i];
    if (!container.IsObject()) {
      c.report(Field{field, index, ""}.str(), "must be an object");
      continue;
    }
    c.expect(&container, "name", Type::String, {field, index, ".name"});
    c.expect(&container, "env", Type::Array, {field, index, ".env"});
    const rapidjson::Value* resources =
        c.expect(&container, "resources", Type::Object, {field, index, ".resources"});
    c.expect(resources, "requests", Type::Object, {field, index, ".resources.requests"});
    c.expect(resources, "limits", Type::Object, {field, index, ".resources.limits"});
    c.expect(resources, "claims", Type::Array, {field, index, ".resources.claims"});
  }
}

void checkAffinity(ShapeChecker& c, const rapidjson::Value* spec) {
  const auto* affinity = c.expect(spec, "affinity", Type::Object, {"spec.affinity"});
  const auto* node =
      c.expect(affinity, "nodeAffinity", Type::Object, {"spec.affinity.nodeAffinity"});
  constexpr std::string_view kRequired =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  constexpr std::string_view kTerms =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms";
  const auto* required =
      c.expect(node, "requiredDuringSchedulingIgnoredDuringExecution", Type::Object, {kRequired});
  const auto* terms = c.expect(required, "nodeSelectorTerms", Type::Array, {kTerms});
  if (terms == nullptr) return;
  for (rapidjson::SizeType i = 0; i < terms->Size(); ++i) {
    const int index = static_cast<int>(i);
    if (!(*terms)[i].IsObject()) {
      c.report(Field{kTerms, index, ""}.str(), "must be an object");
      continue;
    }
    const auto* exprs = c.expect(&(*terms)[i], "matchExpressions", Type::Array,
                                 {kTerms, index, ".matchExpressions"});
    if (exprs == nullptr) continue;
    for (const auto& e : exprs->GetArray())
      if (!e.IsObject()) {
        c.report(Field{kTerms, index, ".matchExpressions"}.str(), "must hold objects");
        break;
      }
  }
}

void checkTolerations(ShapeChecker& c, const rapidjson::Value* spec) {
  const auto* tolerations = c.expect(spec, "tolerations", Type::Array, {"spec.tolerations"});
  if (tolerations == nullptr) return;
  for (rapidjson::SizeType i = 0; i < tolerations->Size(); ++i)
    if (!(*tolerations)[i].IsObject())
      c.report(Field{"spec.tolerations", static_cast<int>(i), ""}.str(), "must be an object");
}

}  // namespace

bool checkPodShape(const PodView& pod, Violations& violations) {
  ShapeChecker c(pod, violations);
  const rapidjson::Value* metadata = c.expect(pod.root, "metadata", Type::Object, {"metadata"});
  checkStringMap(c, metadata, "labels", "metadata.labels");
  checkStringMap(c, metadata, "annotations", "metadata.annotations");
  c.expect(metadata, "ownerReferences", Type::Array, {"metadata.ownerReferences"});
  const rapidjson::Value* spec = json::member(pod.root, "spec");
  if (spec == nullptr || !spec->IsObject()) {
    c.report("spec", spec == nullptr ? "is missing" : "must be an object");
    return false;
  }
  checkContainers(c, spec, "containers", "spec.containers");
  checkContainers(c, spec, "initContainers", "spec.initContainers");
  checkStringMap(c, spec, "nodeSelector", "spec.nodeSelector");
  checkAffinity(c, spec);
  checkTolerations(c, spec);
  c.expect(spec, "priorityClassName", Type::String, {"spec.priorityClassName"});
  c.expect(spec, "runtimeClassName", Type::String, {"spec.runtimeClassName"});
  c.expect(spec, "schedulerName", Type::String, {"spec.schedulerName"});
  c.expect(spec, "activeDeadlineSeconds", Type::Integer, {"spec.activeDeadlineSeconds"});
  c.expect(spec, "resourceClaims", Type::Array, {"spec.resourceClaims"});
  return c.ok();
}

}  // namespace gpua::engine
