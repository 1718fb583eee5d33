// Helpers for the admission tests: building AdmissionReview requests and reading responses.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace gpua::admission::testing {

struct RequestSpec {
  std::string uid = "705ab4f5-6393-11e8-b7cc-42010a800002";
  std::string operation = "CREATE";
  std::string group;  // request.kind.group
  std::string kind = "Pod";
  std::string nameSpace = "team-a";
  std::string object =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team-a"},"spec":{"containers":[{"name":"c","image":"i"}]}})";
  bool dryRun = false;
  std::string subResource;  // "scale", "status"...; empty = the object itself
};

inline std::string reviewJson(const RequestSpec& s) {
  std::string out = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)";
  out += R"("uid":")" + s.uid + R"(",)";
  out += R"("kind":{"group":")" + s.group + R"(","version":"v1","kind":")" + s.kind + R"("},)";
  out += R"("resource":{"group":")" + s.group + R"(","version":"v1","resource":"pods"},)";
  out += R"("operation":")" + s.operation + R"(",)";
  if (!s.subResource.empty()) out += R"("subResource":")" + s.subResource + R"(",)";
  if (!s.nameSpace.empty()) out += R"("namespace":")" + s.nameSpace + R"(",)";
  out += R"("userInfo":{"username":"alice","groups":["devs"]},)";
  out += std::string(R"("dryRun":)") + (s.dryRun ? "true" : "false");
  if (!s.object.empty()) out += R"(,"object":)" + s.object;
  out += "}}";
  return out;
}

// Parses a response body; fails the calling test (via the returned document's error) otherwise.
inline rapidjson::Document parseBody(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.data(), body.size());
  return d;
}

}  // namespace gpua::admission::testing
