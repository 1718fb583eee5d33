#include "kube/json.hpp"

#include <string>

namespace gpua::kube::json {

Labels labelsOf(const Value& object) {
  Labels labels;
  const Value* l = objectMember(objectMember(&object, "metadata"), "labels");
  if (l == nullptr) return labels;
  for (const auto& m : l->GetObject())
    if (m.value.IsString()) labels.emplace(std::string(view(m.name)), std::string(view(m.value)));
  return labels;
}

}  // namespace gpua::kube::json
