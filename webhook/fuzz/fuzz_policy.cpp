// The policy YAML loader: any bytes load or fail with diagnostics, never crash or throw. A
// policy that loads is deterministic (same bytes, same revision) and every diagnostic has a
// message; the rollout summary the reloader logs works on whatever loaded.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "policy/loader.hpp"
#include "policy/rollout_summary.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "policy oracle: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace gpua::policy;
  const std::string text(reinterpret_cast<const char*>(data), size);
  LoadResult first;
  try {
    first = loadPolicySources({{"fuzz.yaml", text}});
  } catch (...) {
    fail("loadPolicySources threw");
  }
  if (first.ok() != first.errors.empty()) fail("a policy and errors, or neither");
  for (const auto& d : first.errors)
    if (d.message.empty()) fail("a diagnostic without a message");
  if (!first.ok()) return 0;
  const LoadResult second = loadPolicySources({{"fuzz.yaml", text}});
  if (!second.ok() || second.policy->revision != first.policy->revision)
    fail("the same bytes loaded differently");
  if (describeRollout(*first.policy).empty()) fail("no rollout summary");
  return 0;
}
