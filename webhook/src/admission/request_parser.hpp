// AdmissionReview v1 request -> the facts the engine and the logs need. Parsing is strict about
// the envelope (a wrong apiVersion/kind is a caller bug we must not paper over) and lenient about
// everything the engine itself judges (the object's content).
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <variant>

#include "admission/request_error.hpp"
#include "engine/context/usage.hpp"
#include "engine/decide.hpp"
#include "policy/policy_set.hpp"

namespace gpua::admission {

struct AdmissionRequest {
  std::string uid;
  std::string operation;    // CREATE | UPDATE | DELETE | CONNECT ("" when absent)
  std::string group;        // request.kind.group: "" for core
  std::string kind;         // request.kind.kind
  std::string subResource;  // request.subResource: "" for the main resource
  std::string name;         // request.name, else object metadata.name, else generateName
  engine::RequestContext context;
  const rapidjson::Value* object = nullptr;  // request.object (points into the document)
};

// Parses `buffer` in situ into `doc` (both must outlive any use of the document). Refuses
// empty input, control bytes other than TAB, LF and CR (NUL included), nesting deeper than
// kMaxJsonDepth (before the recursive parser goes deeper), invalid JSON and trailing data.
std::optional<RequestError> parseJsonInSitu(std::string& buffer, rapidjson::Document& doc);

// Checks the AdmissionReview envelope and extracts the request. Namespace labels come from
// `usage`.
std::variant<AdmissionRequest, RequestError> readAdmissionRequest(
    const rapidjson::Value& root, const engine::UsageSnapshot& usage);

// True for a CREATE of a Pod or of a workload whose pod templates the engine validates
// (engine::isReviewableKind: the built-in workload kinds and policy.templateKinds), and for an
// UPDATE of a workload whose templates the policy mutates (spec.mutateTemplates). Subresources
// (scale, status) never. Everything else is admitted unchanged without asking the engine.
bool routesToEngine(const AdmissionRequest& request, const policy::PolicySet& policy);

}  // namespace gpua::admission
