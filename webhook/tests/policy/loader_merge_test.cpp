// Several files merge into one policy; duplicates and settings written twice are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::errorAt;

namespace fs = std::filesystem;

const PolicySource kPools{"pools.yaml",
                          doc("  pools:\n"
                              "  - {name: h100, gpu: H100-80GB}\n"
                              "  - {name: l4, gpu: L4, sharing: time-slicing, replicas: 4}\n",
                              "pools")};
const PolicySource kClasses{
    "classes.yaml", doc("  classes:\n"
                        "  - {name: train, match: {any: [{labelKeys: [a]}]}, pools: [h100]}\n"
                        "  - {name: dev, match: {any: [{labelKeys: [b]}]}, pools: [l4]}\n"
                        "  unclassifiedGpuPods: dev\n"
                        "  quotas:\n"
                        "  - {name: q, perClass: {train: 4}}\n",
                        "classes")};

TEST(LoaderMerge, ReferencesResolveAcrossFiles) {
  auto r = loadPolicySources({kPools, kClasses});
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  const PolicySet& p = *r.policy;
  EXPECT_EQ(p.name, "pools");  // metadata.name of the first document
  EXPECT_EQ(p.sourceFiles, (std::vector<std::string>{"pools.yaml", "classes.yaml"}));
  ASSERT_EQ(p.classes.size(), 2u);
  EXPECT_EQ(p.classes[1].resolvedResource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(p.classes[1].gpuEquivalentPerUnit, 0.25);
  EXPECT_EQ(p.unclassifiedGpuPods.classIndex, 1u);
}

TEST(LoaderMerge, ListsConcatenateInFileOrder) {
  const PolicySource more{"more.yaml", doc("  pools:\n  - {name: t4, gpu: T4}\n", "more")};
  auto r = loadPolicySources({more, kPools});
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  ASSERT_EQ(r.policy->pools.size(), 3u);
  EXPECT_EQ(r.policy->pools[0].name, "t4");
  EXPECT_EQ(r.policy->pools[1].name, "h100");
  EXPECT_EQ(r.policy->name, "more");
}

TEST(LoaderMerge, DuplicateNameAcrossFilesPointsAtBoth) {
  const PolicySource again{"again.yaml", doc("  pools:\n  - {name: l4, gpu: L4}\n", "again")};
  auto r = loadPolicySources({kPools, kClasses, again});
  ASSERT_FALSE(r.ok());
  const Diagnostic* d = errorAt(r, "spec.pools[0].name");
  ASSERT_NE(d, nullptr) << testing::allErrors(r);
  EXPECT_EQ(d->format(),
            "again.yaml:6:12: spec.pools[0].name: duplicate pool 'l4' (hint: first defined at "
            "pools.yaml:7:12; names must be unique)");
}

TEST(LoaderMerge, SettingWrittenInTwoFilesIsAnError) {
  const PolicySource second{"second.yaml", doc("  unclassifiedGpuPods: deny\n", "second")};
  auto r = loadPolicySources({kPools, kClasses, second});
  ASSERT_FALSE(r.ok());
  const Diagnostic* d = errorAt(r, "spec.unclassifiedGpuPods");
  ASSERT_NE(d, nullptr) << testing::allErrors(r);
  EXPECT_EQ(d->format(),
            "second.yaml:5:24: spec.unclassifiedGpuPods: 'spec.unclassifiedGpuPods' is already "
            "set (hint: first set at classes.yaml:8:24; set it in one document only)");
}

TEST(LoaderMerge, OneBrokenFileRefusesTheWholeSet) {
  const PolicySource broken{"broken.yaml", doc("  quotaUnavailable: sometimes\n", "broken")};
  auto r = loadPolicySources({kPools, broken, kClasses});
  EXPECT_EQ(r.policy, nullptr);
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].file, "broken.yaml");
}

TEST(LoaderMerge, ErrorsAreSortedByFileThenPosition) {
  const PolicySource a{"a.yaml", doc("  pools:\n  - {name: x, gpu: Q}\n  - {name: y, gpu: R}\n")};
  const PolicySource b{"b.yaml", doc("  pools:\n  - {name: z, gpu: S}\n")};
  auto r = loadPolicySources({b, a});
  ASSERT_EQ(r.errors.size(), 3u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].file, "b.yaml");
  EXPECT_EQ(r.errors[1].file, "a.yaml");
  EXPECT_EQ(r.errors[1].line, 6);
  EXPECT_EQ(r.errors[2].line, 7);
}

TEST(LoaderMerge, RevisionIsStableAndFollowsContentAndNames) {
  auto first = loadPolicySources({kPools, kClasses});
  auto again = loadPolicySources({kPools, kClasses});
  PolicySource renamed = kPools;
  renamed.fileName = "other.yaml";
  PolicySource sameNameElsewhere = kPools;
  sameNameElsewhere.fileName = "/etc/gpu-admission/pools.yaml";
  PolicySource edited = kPools;
  edited.text += "# a comment\n";
  auto byName = loadPolicySources({renamed, kClasses});
  auto byDir = loadPolicySources({sameNameElsewhere, kClasses});
  auto byText = loadPolicySources({edited, kClasses});
  ASSERT_TRUE(first.ok() && again.ok() && byName.ok() && byDir.ok() && byText.ok());
  const std::string& rev = first.policy->revision;
  EXPECT_EQ(rev.size(), 16u);
  EXPECT_EQ(rev.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(again.policy->revision, rev);
  EXPECT_EQ(byDir.policy->revision, rev);  // only the base name counts
  EXPECT_NE(byName.policy->revision, rev);
  EXPECT_NE(byText.policy->revision, rev);
}

class LoaderPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("gpua-policy-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

TEST_F(LoaderPaths, DirectoryLoadsPolicyFilesInNameOrder) {
  write("20-classes.yml", kClasses.text);
  write("10-pools.yaml", kPools.text);
  write("README.md", "not a policy");
  write(".hidden.yaml", "garbage: [");
  auto r = loadPolicyPaths({dir_.string()});
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  EXPECT_EQ(r.policy->sourceFiles, (std::vector<std::string>{(dir_ / "10-pools.yaml").string(),
                                                             (dir_ / "20-classes.yml").string()}));
  EXPECT_EQ(r.policy->name, "pools");
}

TEST_F(LoaderPaths, FilesCanBeNamedOneByOne) {
  write("a.yaml", kPools.text);
  write("b.yaml", kClasses.text);
  auto r = loadPolicyPaths({(dir_ / "a.yaml").string(), (dir_ / "b.yaml").string()});
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  EXPECT_EQ(r.policy->classes.size(), 2u);
}

TEST_F(LoaderPaths, MissingFileAndEmptyDirectoryAreDiagnostics) {
  const std::string missing = (dir_ / "nope.yaml").string();
  auto r = loadPolicyPaths({missing});
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].format(), missing + ": cannot read: no such file or directory");

  auto empty = loadPolicyPaths({dir_.string()});
  ASSERT_FALSE(empty.ok());
  ASSERT_EQ(empty.errors.size(), 1u);
  EXPECT_EQ(empty.errors[0].format(), dir_.string() + ": no *.yaml or *.yml files in directory");
}

TEST_F(LoaderPaths, UnreadablePathRefusesEvenWhenOtherFilesLoad) {
  write("a.yaml", kPools.text);
  auto r = loadPolicyPaths({(dir_ / "a.yaml").string(), (dir_ / "gone.yaml").string()});
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].file, (dir_ / "gone.yaml").string());
}

TEST_F(LoaderPaths, AnEntryThatCannotBeStatedIsADiagnosticNotAnException) {
  write("a.yaml", kPools.text);
  fs::create_symlink("loop.yaml", dir_ / "loop.yaml");  // stat fails with ELOOP
  fs::create_symlink("loop.md", dir_ / "loop.md");      // not a policy name: never stat'ed
  fs::create_symlink("gone", dir_ / "gone.yaml");       // dangling: a removed file, skipped
  LoadResult r;
  ASSERT_NO_THROW(r = loadPolicyPaths({dir_.string()}));
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].file, (dir_ / "loop.yaml").string());
  EXPECT_EQ(r.errors[0].message.rfind("cannot stat: ", 0), 0u) << r.errors[0].message;
  // A file named directly goes the same way.
  ASSERT_NO_THROW(r = loadPolicyPaths({(dir_ / "loop.yaml").string()}));
  ASSERT_FALSE(r.ok());
}

// An entry that cannot be stat'ed for another reason than being gone (a dangling link is a file
// the kubelet removed) is a diagnostic naming it, never skipped. A symlink loop (ELOOP) stands
// for them all (EACCES behind a locked directory too): unlike permissions, it holds for root,
// so the test runs in CI.
TEST_F(LoaderPaths, AnEntryThatCannotBeStatedIsADiagnosticNamingIt) {
  write("a.yaml", kPools.text);
  fs::create_symlink("b.yaml", dir_ / "b.yaml");  // b.yaml -> b.yaml
  LoadResult r;
  EXPECT_NO_THROW(r = loadPolicyPaths({dir_.string()}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors.at(0).file, (dir_ / "b.yaml").string());
  EXPECT_NE(r.errors.at(0).message.find("cannot stat"), std::string::npos)
      << r.errors.at(0).message;
}

TEST_F(LoaderPaths, TheFingerprintCoversNamesBytesAndErrors) {
  write("a.yaml", kPools.text);
  const auto first = readPolicyPaths({dir_.string()});
  EXPECT_EQ(first.fingerprint(), readPolicyPaths({dir_.string()}).fingerprint());
  write("a.yaml", kPools.text + "\n");
  EXPECT_NE(first.fingerprint(), readPolicyPaths({dir_.string()}).fingerprint());
  fs::create_symlink("loop.yaml", dir_ / "loop.yaml");
  const auto broken = readPolicyPaths({dir_.string()});
  EXPECT_EQ(broken.errors.size(), 1u);
  EXPECT_NE(broken.fingerprint(), first.fingerprint());
}

}  // namespace
}  // namespace gpua::policy
