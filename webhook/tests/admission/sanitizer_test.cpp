#include <gtest/gtest.h>

#include "admission/audit_annotations.hpp"
#include "admission/text_sanitizer.hpp"
#include "admission/warnings.hpp"

namespace gpua::admission {
namespace {

TEST(SanitizeLine, ReplacesControlCharactersAndNewlinesWithOneSpace) {
  EXPECT_EQ(sanitizeLine("a\nb\r\n\tc\x01\x7f"
                         "d",
                         100),
            "a b c d");
  EXPECT_EQ(sanitizeLine("  lead and trail \n", 100), "lead and trail");
  EXPECT_EQ(sanitizeLine("c1\xC2\x85"
                         "x",
                         100),
            "c1 x");  // U+0085 NEL is a C1 control
}

TEST(SanitizeLine, ReplacesInvalidUtf8) {
  EXPECT_EQ(sanitizeLine("ok\xff"
                         "ok",
                         100),
            "ok\xEF\xBF\xBDok");
  EXPECT_EQ(sanitizeLine("\xC0\xAF", 100), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(sanitizeLine("\xED\xA0\x80", 100).find("\xED\xA0\x80"), std::string::npos);
  EXPECT_EQ(sanitizeLine("gr\xC3\xBC\xC3\x9F"
                         "e \xE2\x9C\x93",
                         100),
            "gr\xC3\xBC\xC3\x9F"
            "e \xE2\x9C\x93");
}

TEST(SanitizeLine, TruncatesAtACharacterBoundaryWithEllipsis) {
  const std::string s = sanitizeLine(std::string(300, 'x'), 120);
  EXPECT_EQ(s.size(), 120u);
  EXPECT_EQ(s.substr(117), "...");
  std::string umlauts;
  for (int i = 0; i < 100; ++i) umlauts += "\xC3\xBC";
  const std::string u = sanitizeLine(umlauts, 10);
  EXPECT_LE(u.size(), 10u);
  EXPECT_EQ(u, "\xC3\xBC\xC3\xBC\xC3\xBC...");
}

TEST(SanitizeLine, CleanTextIsReturnedAsItIsAndAlmostCleanTextIsStillCleaned) {
  // The fast path (text returned unchanged) must agree with the full cleaning at its edges.
  const std::string clean = "gpu-admission: added toleration nvidia.com/gpu (class training)";
  EXPECT_EQ(sanitizeLine(clean, clean.size()), clean);
  EXPECT_EQ(sanitizeLine(clean, clean.size() - 1).size(), clean.size() - 1);
  EXPECT_EQ(sanitizeLine(clean, clean.size() - 1).substr(clean.size() - 4), "...");
  EXPECT_EQ(sanitizeLine("a  b", 100), "a b");
  EXPECT_EQ(sanitizeLine(" a b", 100), "a b");
  EXPECT_EQ(sanitizeLine("a b ", 100), "a b");
  EXPECT_EQ(sanitizeLine("~!@#$%^&*()_+{}|:<>?`-=[]\\;',./\"", 100),
            "~!@#$%^&*()_+{}|:<>?`-=[]\\;',./\"");
  EXPECT_EQ(sanitizeLine("del\x7f", 100), "del");
  EXPECT_EQ(sanitizeLine("caf\xc3\xa9", 100), "caf\xc3\xa9");
  EXPECT_EQ(sanitizeLine("", 100), "");
  EXPECT_EQ(sanitizeLine(" ", 100), "");
}

TEST(SanitizeWarnings, CleansDropsEmptyAndDuplicates) {
  const auto w = sanitizeWarnings({"one\nline", "", "\n\t", "one line", "two"});
  EXPECT_EQ(w, (std::vector<std::string>{"one line", "two"}));
}

TEST(SanitizeWarnings, CapsEachWarningAndTheTotal) {
  std::vector<std::string> many;
  for (int i = 0; i < 100; ++i) many.push_back(std::to_string(i) + std::string(400, 'w'));
  const auto w = sanitizeWarnings(many);
  std::size_t total = 0;
  for (const auto& s : w) {
    EXPECT_LE(s.size(), kMaxWarningBytes);
    total += s.size();
  }
  EXPECT_LE(total, kMaxWarningTotalBytes);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w.front().substr(0, 2), "0w");
  EXPECT_NE(w.back().find("more warning(s) omitted"), std::string::npos);
  // The note counts exactly the warnings that were left out.
  const std::size_t omitted = std::stoul(w.back());
  EXPECT_EQ(w.size() - 1 + omitted, many.size());
}

TEST(AuditAnnotations, KeyRules) {
  EXPECT_TRUE(isValidAuditAnnotationKey("class"));
  EXPECT_TRUE(isValidAuditAnnotationKey("policy-revision_1.x"));
  EXPECT_FALSE(isValidAuditAnnotationKey(""));
  EXPECT_FALSE(isValidAuditAnnotationKey("gpu-admission.io/class"));
  EXPECT_FALSE(isValidAuditAnnotationKey("-leading"));
  EXPECT_FALSE(isValidAuditAnnotationKey("has space"));
  EXPECT_TRUE(isValidAuditAnnotationKey(std::string(63, 'k')));
  EXPECT_FALSE(isValidAuditAnnotationKey(std::string(64, 'k')));
}

TEST(AuditAnnotations, SanitizedKeysAreAlwaysValid) {
  const std::vector<std::string> keys = {"gpu-admission.io/class", "a b",
                                         std::string(100, 'z') + "x", "__x__", "ok"};
  for (const auto& k : keys) {
    const std::string s = sanitizeAuditAnnotationKey(k);
    EXPECT_TRUE(isValidAuditAnnotationKey(s)) << k << " -> " << s;
  }
  EXPECT_EQ(sanitizeAuditAnnotationKey("gpu-admission.io/class"), "gpu-admission.io-class");
  EXPECT_EQ(sanitizeAuditAnnotationKey("///"), "");
}

TEST(AuditAnnotations, MapDropsEmptyKeysKeepsFirstOnCollisionAndCleansValues) {
  const auto out = sanitizeAuditAnnotations(
      {{"a/b", "first"}, {"a?b", "second"}, {"/", "gone"}, {"violation", "line1\nline2"}});
  EXPECT_EQ(out,
            (std::map<std::string, std::string>{{"a-b", "first"}, {"violation", "line1 line2"}}));
}

}  // namespace
}  // namespace gpua::admission
