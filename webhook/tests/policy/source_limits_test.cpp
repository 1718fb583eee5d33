// The limits of policy/source_limits.hpp: bytes per file and per load, documents per file, YAML
// nodes per load with aliases expanded. Each refuses with one diagnostic naming the file (and the
// line where there is one), the limit and the figure found, before the costly stage runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "policy/source_limits.hpp"
#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::allErrors;
using testing::doc;
using testing::load;

namespace fs = std::filesystem;

std::string repeat(std::string_view text, std::size_t times) {
  std::string out;
  out.reserve(text.size() * times);
  for (std::size_t i = 0; i < times; ++i) out.append(text);
  return out;
}

// A valid policy file of exactly `bytes` bytes: a pool named `name`, then a comment to fill.
std::string policyOfSize(std::size_t bytes, const std::string& name = "p") {
  std::string text = doc(std::string("  pools: [{gpu: L4, name: ").append(name).append("}]\n"));
  const std::size_t fill = bytes - text.size() - 2;  // less "#" and "\n"
  text.append("#").append(fill, 'x').append("\n");
  return text;
}

// One class (lines 5-11) matching `matchers` namespace matchers, one a line from line 12: the
// first lists 1,000 names, the others are aliases of that list. 1,003 nodes per matcher once
// expanded, 30 before them.
std::string aliasedClass(std::size_t matchers, const std::string& name = "test") {
  std::string names;
  for (int i = 0; i < 1000; ++i) names.append(i ? ", n" : "n").append(std::to_string(i));
  std::string spec =
      "  pools: [{name: p, gpu: L4}]\n"
      "  classes:\n"
      "  - &c\n"
      "    name: c\n"
      "    pools: [p]\n"
      "    match:\n"
      "      any: &m\n";
  spec.append("      - {namespaces: &n [").append(names).append("]}\n");
  spec.append(repeat("      - {namespaces: *n}\n", matchers - 1));
  return doc(spec, name);
}

void expectOneError(const LoadResult& r, const std::string& expected) {
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u) << allErrors(r);
  EXPECT_EQ(r.errors[0].format(), expected);
}

TEST(SourceLimits, FileBytesAreLimited) {
  ASSERT_EQ(policyOfSize(kMaxPolicyFileBytes).size(), kMaxPolicyFileBytes);
  auto atLimit = load(policyOfSize(kMaxPolicyFileBytes));
  EXPECT_TRUE(atLimit.ok()) << allErrors(atLimit);
  expectOneError(load(policyOfSize(kMaxPolicyFileBytes + 1)),
                 "p.yaml: file is 1048577 bytes, more than the limit of 1048576 bytes per policy "
                 "file (hint: a policy file is a few KB; check that the path names policy files)");
}

// The 40,000 separators took 23 s to split before (each document was padded with the newlines
// before it); they are counted in one pass and refused at the first document past the limit.
TEST(SourceLimits, FortyThousandSeparatorsAreTooManyDocuments) {
  expectOneError(load(repeat("---\n", 40000) + doc("  pools: [{name: p, gpu: L4}]\n")),
                 "p.yaml:257:1: file has 40000 YAML documents, more than the limit of 256 per "
                 "file (hint: each line \"---\" starts a document; write fewer, larger documents "
                 "or more files)");
}

TEST(SourceLimits, EmptyDocumentsCountTowardsTheDocumentLimit) {
  const std::string policy = doc("  pools: [{name: p, gpu: L4}]\n");
  // 256 documents: the first "---" opens the first document, it does not end one.
  auto atLimit = load(repeat("---\n", kMaxDocumentsPerFile) + policy);
  EXPECT_TRUE(atLimit.ok()) << allErrors(atLimit);
  auto over = load(policy + repeat("---\n", kMaxDocumentsPerFile));
  ASSERT_EQ(over.errors.size(), 1u) << allErrors(over);
  EXPECT_EQ(over.errors[0].line, 5 + static_cast<int>(kMaxDocumentsPerFile));  // 256th "---"
  EXPECT_NE(over.errors[0].message.find("257 YAML documents"), std::string::npos);
}

// A syntax error in a document after others keeps its line in the file, now that documents
// are parsed alone and the lines before them added back instead of padded in.
TEST(SourceLimits, ASyntaxErrorInALaterDocumentKeepsItsFileLine) {
  const std::string first = doc("  pools: [{name: a, gpu: L4}]\n", "first");  // lines 1-5
  expectOneError(load(first + "---\n" + doc("  pools: [b,\n", "second")),
                 "p.yaml:12:1: YAML syntax error: end of sequence flow not found");
}

// A billion laughs within the policy schema: 1,000 classes each matching 1,000 matchers of
// 1,000 names, in 38 KB. Walked by the parse code, every alias is visited again: 10^9 names,
// tens of GB, before. Counted from the parser's events, it is refused at the node past the
// limit without being expanded.
TEST(SourceLimits, BillionLaughsIsRefusedBeforeItIsExpanded) {
  const std::string bomb = aliasedClass(1000) + repeat("  - *c\n", 999);
  ASSERT_LT(bomb.size(), 40'000u);
  expectOneError(load(bomb),
                 "p.yaml:111:22: policy files reach 1003010020 YAML nodes with this document, "
                 "more than the limit of 100000 for all policy files of one load (hint: each alias "
                 "(*name) counts as all the nodes it repeats; write a large repeated part once "
                 "instead)");
}

// Many small files cannot add up to what one file may not hold: the count is per load.
TEST(SourceLimits, TheNodeLimitIsForAllFilesOfOneLoad) {
  const PolicySource a{"a.yaml", aliasedClass(60, "a")};  // 60,210 nodes
  auto alone = loadPolicySources({a});
  EXPECT_TRUE(alone.ok()) << allErrors(alone);
  const PolicySource b{"b.yaml", aliasedClass(60, "b")};
  expectOneError(loadPolicySources({a, b}),
                 "b.yaml:51:22: policy files reach 120420 YAML nodes with this document, more "
                 "than the limit of 100000 for all policy files of one load (hint: each alias "
                 "(*name) counts as all the nodes it repeats; write a large repeated part once "
                 "instead)");
}

TEST(SourceLimits, AnAliasInsideTheNodeItRepeatsIsRefused) {
  expectOneError(load(doc("  classes:\n  - &c {name: c, match: {any: [*c]}}\n")),
                 "p.yaml:6:32: alias repeats a node that contains it, so the document never ends "
                 "(hint: an alias (*name) may only repeat a node that ends before it)");
}

class SourceLimitsFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           std::string("gpua-source-limits-")
               .append(::testing::UnitTest::GetInstance()->current_test_info()->name())
               .append("-")
               .append(std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

// A sparse 8 MiB file: refused on its size, before a byte is read.
TEST_F(SourceLimitsFiles, AFileOverTheLimitIsRefusedOnItsSize) {
  const std::string big = write("big.yaml", "");
  fs::resize_file(big, 8u << 20);
  expectOneError(loadPolicyPaths({big}),
                 std::string(big).append(
                     ": file is 8388608 bytes, more than the limit of 1048576 bytes per policy "
                     "file (hint: a policy file is a few KB; check that the path names policy "
                     "files)"));
}

// A file without a size (a device, a pipe) is read up to one byte past the limit, never whole.
TEST_F(SourceLimitsFiles, AFileWithoutASizeIsReadOnlyToTheLimit) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  expectOneError(loadPolicyPaths({"/dev/zero"}),
                 "/dev/zero: file is at least 1048577 bytes, more than the limit of 1048576 bytes "
                 "per policy file (hint: a policy file is a few KB; check that the path names "
                 "policy files)");
}

// Five files of 900,000 bytes: the fifth passes 4 MiB. It is named, with the sum, and the
// files after it are not read.
TEST_F(SourceLimitsFiles, ADirectoryOverTheLoadLimitNamesTheFileThatPassesIt) {
  for (int i = 1; i <= 6; ++i)
    write(std::to_string(i).append(".yaml"),
          policyOfSize(900'000, std::string("p").append(std::to_string(i))));
  auto four = loadPolicyPaths({(dir_ / "1.yaml").string(), (dir_ / "2.yaml").string(),
                               (dir_ / "3.yaml").string(), (dir_ / "4.yaml").string()});
  EXPECT_TRUE(four.ok()) << allErrors(four);
  expectOneError(
      loadPolicyPaths({dir_.string()}),
      (dir_ / "5.yaml")
          .string()
          .append(": policy files reach 4500000 bytes with this file, more than the limit of "
                  "4194304 bytes for all policy files of one load"));
}

}  // namespace
}  // namespace gpua::policy
