// The policy an authoring command runs against: loaded, or an error carrying every diagnostic.
#include "authoring/policy_files.hpp"

#include <gtest/gtest.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::ScratchDir;

TEST(PolicyFiles, LoadsAPolicyDirectory) {
  ScratchDir dir;
  dir.write("policies/p.yaml", testing::kPolicy);
  const auto policy = loadPolicies({(dir.path() / "policies").string()});
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->classes.size(), 2u);
}

TEST(PolicyFiles, APolicyThatDoesNotLoadCarriesItsDiagnostics) {
  ScratchDir dir;
  const std::string a = dir.write("a.yaml", "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\n");
  const std::string b = (dir.path() / "missing.yaml").string();
  try {
    loadPolicies({a, b});
    FAIL() << "a broken policy loaded";
  } catch (const PolicyLoadError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(std::string(e.what()), "policy " + a + ", " + b + " does not load: " +
                                         std::to_string(e.diagnostics().size()) +
                                         " error(s) (run 'gpu-admission lint' for hints)");
    bool missingNamed = false;
    for (const auto& d : e.diagnostics()) missingNamed = missingNamed || d.file == b;
    EXPECT_TRUE(missingNamed) << e.diagnostics().front().format();
  }
}

}  // namespace
}  // namespace gpua::authoring
