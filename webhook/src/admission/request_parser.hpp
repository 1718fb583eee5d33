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

// Who reads a review and what document they build. FullDocument: RapidJSON's reader, everything
// (the oracle). ScannedDocument: the scanner (kube/json_scanner.hpp), everything: the request
// path (about 40% fewer instructions than the oracle's parse on the typical review,
// docs/performance.md). PolicyFields: the scanner keeping only what the codec reads of the
// envelope and, for a Pod, only engine/pod/pod_fields.hpp's fields of the object (other kinds
// whole), dropped values skipped unbuilt; it holds the table to account (a rule reading a field
// outside it decides differently here), but is not the default: the filter's per-value work
// costs more than the values it leaves unbuilt save, since most of a pod is readable. The
// differential test and the fuzz target hold every reader to the oracle's answers, byte for byte.
enum class ReviewReader { FullDocument, ScannedDocument, PolicyFields };

// Parses `buffer` in situ into `doc` (both must outlive any use of the document). Refuses
// empty input, control bytes other than TAB, LF and CR (NUL included), nesting deeper than
// kMaxJsonDepth (before the recursive parser goes deeper), invalid JSON and trailing data:
// the same errors at the same offsets whichever reader builds the document.
std::optional<RequestError> parseJsonInSitu(std::string& buffer, rapidjson::Document& doc,
                                            ReviewReader reader = ReviewReader::ScannedDocument);

// Checks the AdmissionReview envelope and extracts the request. Namespace labels come from
// `usage`.
std::variant<AdmissionRequest, RequestError> readAdmissionRequest(
    const rapidjson::Value& root, const engine::UsageSnapshot& usage);
// The same into `into`, every field it reads overwritten (a request object reused from request
// to request keeps its strings' capacity); on an error `into` is partly filled.
std::optional<RequestError> readAdmissionRequest(const rapidjson::Value& root,
                                                 const engine::UsageSnapshot& usage,
                                                 AdmissionRequest& into);

// True for a CREATE of a Pod or of a workload whose pod templates the engine validates
// (engine::isReviewableKind: the built-in workload kinds and policy.templateKinds), and for an
// UPDATE of a workload whose templates the policy mutates (spec.mutateTemplates). Subresources
// (scale, status) never. Everything else is admitted unchanged without asking the engine.
bool routesToEngine(const AdmissionRequest& request, const policy::PolicySet& policy);

}  // namespace gpua::admission
