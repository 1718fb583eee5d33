// YAML-level problems: syntax errors, empty files, several documents in one file.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::load;

TEST(LoaderSyntax, SyntaxErrorHasItsPosition) {
  auto r = load(doc("  pools: [a,\n"));
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].format(), "p.yaml:6:1: YAML syntax error: end of sequence flow not found");
}

TEST(LoaderSyntax, TabIndentationIsASyntaxError) {
  auto r = load(doc("  pools:\n\t- name: x\n"));
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].file, "p.yaml");
  EXPECT_EQ(r.errors[0].line, 6);
  EXPECT_NE(r.errors[0].message.find("YAML syntax error"), std::string::npos);
}

TEST(LoaderSyntax, FileWithoutDocumentsIsAnError) {
  for (const char* text : {"", "# only a comment\n", "---\n---\n"}) {
    auto r = load(text, "empty.yaml");
    ASSERT_FALSE(r.ok()) << text;
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].format(),
              "empty.yaml: no GpuPolicy document in file (hint: add a document with apiVersion: "
              "gpu-admission.io/v1 and kind: GpuPolicy, or remove the file)");
  }
}

// Found by fuzz_policy: yaml-cpp 0.7's LoadAll never returned on this input (the reloader thread
// and `lint` hung). The loader splits documents itself; this must end with one diagnostic.
TEST(LoaderSyntax, InputThatHungYamlCppLoadAllEndsWithADiagnostic) {
  auto r = load(",,#,lC ", "fuzz.yaml");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].file, "fuzz.yaml");
}

TEST(LoaderSyntax, DocumentsOfOneFileMergeAndKeepTheirLineNumbers) {
  const std::string text = doc("  pools:\n  - {name: a, gpu: L4}\n", "first") + "---\n" +
                           doc("  pools:\n  - {name: b, gpu: T44}\n", "second");
  auto r = load(text);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  // Second document: header on lines 8-11, the pool on line 13.
  EXPECT_EQ(r.errors[0].format(),
            "p.yaml:13:20: spec.pools[0].gpu: unknown GPU model 'T44' (hint: did you mean 'T4'?)");

  auto ok = load(doc("  pools:\n  - {name: a, gpu: L4}\n", "first") + "---\n" +
                 doc("  pools:\n  - {name: b, gpu: T4}\n", "second"));
  ASSERT_TRUE(ok.ok()) << testing::allErrors(ok);
  EXPECT_EQ(ok.policy->name, "first");
  ASSERT_EQ(ok.policy->pools.size(), 2u);
  EXPECT_EQ(ok.policy->pools[1].name, "b");
}

TEST(LoaderSyntax, NoSourcesIsAnError) {
  auto r = loadPolicySources({});
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "no policy files given");
}

TEST(LoaderSyntax, HostileInputNeverThrowsAndNeverYieldsAPolicy) {
  const std::vector<std::string> inputs{
      "\x01\x02\xff",
      "spec: *undefined_alias\n",
      "a: &x [*x]\n",
      "? [a, b]\n: c\n",
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: x}\n"
      "spec: {pools: [{name: [a], gpu: {b: c}}]}\n",
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: x}\n"
      "spec: {classes: [[]], quotas: [{name: q, perClass: [1]}], rollout: 3}\n",
      std::string(200, '[') + std::string(200, ']'),
  };
  for (const auto& text : inputs) {
    LoadResult r;
    EXPECT_NO_THROW(r = load(text)) << text;
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_FALSE(r.errors.empty()) << text;
  }
}

}  // namespace
}  // namespace gpua::policy
