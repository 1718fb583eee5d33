// The reader that keeps only the fields a policy can read (admission::ReviewReader::PolicyFields,
// engine/pod/pod_fields.hpp) against the full document, its oracle: for any bytes, both give the
// same answer at every endpoint, byte for byte (status, error kind, body), and the same quota
// charge. The input is tried as a whole AdmissionReview and as the object of a Pod CREATE, so the
// pod table is exercised even before the fuzzer finds the envelope.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "admission/review.hpp"
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

void compare(std::string_view body) {
  using admission::Endpoint;
  using admission::ReviewReader;
  for (Endpoint e : {Endpoint::Mutate, Endpoint::Validate, Endpoint::Both}) {
    const auto filtered = admission::review(body, e, shippedPolicy(), usage(), engine::noSupply(),
                                            ReviewReader::PolicyFields);
    const auto full = admission::review(body, e, shippedPolicy(), usage(), engine::noSupply(),
                                        ReviewReader::FullDocument);
    if (filtered.httpStatus != full.httpStatus || filtered.errorKind != full.errorKind)
      fail("status differs: " + full.errorKind + " vs " + filtered.errorKind);
    if (filtered.body != full.body)
      fail("body differs:\n  full:     " + full.body + "\n  filtered: " + filtered.body);
    if (chargeOf(filtered) != chargeOf(full))
      fail("quota charge differs: " + chargeOf(full) + " vs " + chargeOf(filtered));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  compare(input);
  compare(std::string(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
                      R"("request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},)"
                      R"("namespace":"team-a","operation":"CREATE","object":)") +
          std::string(input) + "}}");
  return 0;
}
