// The readers against their oracle, RapidJSON's reader building the full document: the request
// path's scanner (admission::ReviewReader::ScannedDocument, kube/json_scanner.hpp) and the scanner
// keeping only the fields a policy can read (ReviewReader::PolicyFields,
// engine/pod/pod_fields.hpp). For any bytes: the scanner's document is the oracle's, value for
// value and number type for number type, and its parse verdict, offset and message are the
// oracle's; every reader gives the same answer at every endpoint, byte for byte (status, error
// kind, body), and the same quota charge. The input is tried as a whole AdmissionReview and as the
// object of a Pod CREATE, so the pod table is exercised even before the fuzzer finds the envelope.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "../tests/support/json_typed_dump.hpp"
#include "admission/review.hpp"
#include "kube/json_parse.hpp"
#include "shipped_policy.hpp"

namespace {

using namespace gpua;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "review reader oracle: %s\n", what.c_str());
  std::abort();
}

using fuzz::shippedPolicy;

// Enforced rollout and a quota that covers the namespace, so denials and charges happen.
const engine::UsageSnapshot& usage() {
  static const engine::UsageSnapshot u = [] {
    engine::UsageSnapshot s;
    s.available = true;
    s.namespaceLabels["team-a"] = {{"env", "dev"}, {"team", "vision"}};
    s.namespaces["team-a"].gpuEquivalents = 3;
    return s;
  }();
  return u;
}

std::string chargeOf(const admission::ReviewResult& r) {
  if (!r.decision || !r.decision->quotaCharge) return "-";
  const auto& c = *r.decision->quotaCharge;
  std::string out = c.podUid + "|" + c.podName + "|" + c.namespaceName;
  for (const auto& [resource, units] : c.units) out += "|" + resource + "=" + std::to_string(units);
  return out;
}

// The JSON reader alone: the same verdict and words, and on success the same document.
void compareJson(std::string_view input) {
  std::string a(input), b(input);
  rapidjson::Document da, db;
  const auto mine = kube::parseJsonInSitu(a, da, kube::kMaxJsonDepth, kube::InSituReader::Scanner);
  const auto oracle =
      kube::parseJsonInSitu(b, db, kube::kMaxJsonDepth, kube::InSituReader::RapidJson);
  if (mine.problem != oracle.problem || mine.offset != oracle.offset ||
      mine.message != oracle.message)
    fail("parse verdict differs: " + oracle.message + " vs " + mine.message);
  if (oracle.ok() && testing::typedDump(da) != testing::typedDump(db))
    fail("document differs:\n  oracle:  " + testing::typedDump(db) +
         "\n  scanner: " + testing::typedDump(da));
}

void compare(std::string_view body) {
  using admission::Endpoint;
  using admission::ReviewReader;
  for (Endpoint e : {Endpoint::Mutate, Endpoint::Validate, Endpoint::Both}) {
    const auto full = admission::review(body, e, shippedPolicy(), usage(), engine::noSupply(),
                                        ReviewReader::FullDocument);
    for (ReviewReader reader : {ReviewReader::ScannedDocument, ReviewReader::PolicyFields}) {
      const auto other =
          admission::review(body, e, shippedPolicy(), usage(), engine::noSupply(), reader);
      if (other.httpStatus != full.httpStatus || other.errorKind != full.errorKind)
        fail("status differs: " + full.errorKind + " vs " + other.errorKind);
      if (other.body != full.body)
        fail("body differs:\n  full:  " + full.body + "\n  other: " + other.body);
      if (chargeOf(other) != chargeOf(full))
        fail("quota charge differs: " + chargeOf(full) + " vs " + chargeOf(other));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  compareJson(input);
  compare(input);
  compare(std::string(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
                      R"("request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},)"
                      R"("namespace":"team-a","operation":"CREATE","object":)") +
          std::string(input) + "}}");
  return 0;
}
