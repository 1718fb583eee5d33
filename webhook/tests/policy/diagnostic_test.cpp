#include "policy/diagnostic.hpp"

#include <gtest/gtest.h>

namespace gpua::policy {
namespace {

TEST(Diagnostic, FormatsFileLineColumnKeyPathMessageAndHint) {
  Diagnostic d{"policies/cluster.yaml", 12, 7, "spec.classes[1].pools[0]", "unknown pool \"x\"",
               "did you mean 'y'?"};
  EXPECT_EQ(d.format(),
            "policies/cluster.yaml:12:7: spec.classes[1].pools[0]: unknown pool \"x\" "
            "(hint: did you mean 'y'?)");
}

TEST(Diagnostic, OmitsHintAndKeyPathWhenEmpty) {
  Diagnostic d{"a.yaml", 3, 1, "", "YAML syntax error: bad", ""};
  EXPECT_EQ(d.format(), "a.yaml:3:1: YAML syntax error: bad");
}

TEST(Diagnostic, OmitsPositionWhenUnknown) {
  Diagnostic d{"policies", 0, 0, "", "no *.yaml or *.yml files in directory", ""};
  EXPECT_EQ(d.format(), "policies: no *.yaml or *.yml files in directory");
}

TEST(Diagnostic, NamesAPlaceholderWhenTheFileIsUnknown) {
  Diagnostic d{"", 0, 0, "", "no policy files given", ""};
  EXPECT_EQ(d.format(), "<policy>: no policy files given");
}

}  // namespace
}  // namespace gpua::policy
