#include <gtest/gtest.h>

#include <algorithm>

#include "admission/audit_annotations.hpp"
#include "admission/text_sanitizer.hpp"
#include "admission/warning_split.hpp"
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

// Lines that start a warning (the others continue the one before).
std::size_t warningsIn(const std::vector<std::string>& lines) {
  return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [](const auto& l) {
    return !l.starts_with(kWarningContinuedMark);
  }));
}

std::size_t characters(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

TEST(SanitizeWarnings, CapsEachWarningAndTheTotal) {
  std::vector<std::string> many;
  for (int i = 0; i < 100; ++i) many.push_back(std::to_string(i) + std::string(400, 'w'));
  const auto w = sanitizeWarnings(many);
  std::size_t total = 0;
  for (const auto& s : w) {
    EXPECT_LE(s.size(), 120u);
    total += s.size();
  }
  EXPECT_LE(total, kMaxWarningTotalBytes);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w.front().substr(0, 2), "0w");
  EXPECT_NE(w.back().find("more warning(s) omitted"), std::string::npos);
  // The note counts exactly the warnings that were left out (each one whole or not at all).
  const std::size_t omitted = std::stoul(w.back());
  EXPECT_EQ(warningsIn(w) - 1 + omitted, many.size());
  EXPECT_TRUE(w[w.size() - 2].ends_with(std::string(10, 'w'))) << "a warning cut short";
}

// A warning aims at 120 characters (docs/policy-reference.md). A warn-mode violation is longer:
// it becomes several lines that keep all of it in order, the numbers in the first and the fix
// in the last.
TEST(SanitizeWarnings, SplitsALongWarningIntoLinesOf120AtClauses) {
  const std::string quota =
      "gpu-admission (warn mode): pod \"trainer-0\" needs 4 GPU-equivalents of class training but "
      "quota \"team-vision\" (namespaces with team=vision) allows 12 for class training and 10 "
      "are in use: wait for running GPU pods to finish, or ask the platform team to raise quota "
      "\"team-vision\"";
  const auto w = sanitizeWarnings({quota, "short one"});
  ASSERT_GE(w.size(), 4u);
  for (const auto& line : w) EXPECT_LE(line.size(), 120u) << line;
  const std::vector<std::string> parts(w.begin(), w.end() - 1);
  EXPECT_EQ(joinWarningLines(parts), std::vector<std::string>{quota});
  EXPECT_NE(w[0].find("needs 4 GPU-equivalents"), std::string::npos) << w[0];
  EXPECT_TRUE(w[0].ends_with(" ...")) << w[0];  // cut after a space: the space stays
  EXPECT_TRUE(w[1].starts_with("... ")) << w[1];
  EXPECT_NE(parts.back().find("raise quota"), std::string::npos);
  EXPECT_EQ(w.back(), "short one");
  // Cut after a clause where one is near the end of the line.
  EXPECT_NE(w[1].find("in use: ..."), std::string::npos) << w[1];
  EXPECT_EQ(joinWarningLines(w), (std::vector<std::string>{quota, "short one"}));
}

TEST(SanitizeWarnings, SplitsWithoutSpacesOnCharacterBoundariesOnly) {
  std::string text;
  for (int i = 0; i < 150; ++i) text += "\xc3\xa9\xe2\x82\xac";  // e-acute and the euro sign
  text += "\x1b[31m";  // an escape sequence from a label value
  const auto w = sanitizeWarnings({text});
  ASSERT_GT(w.size(), 1u);
  for (const auto& line : w) {
    EXPECT_LE(line.size(), 120u);
    EXPECT_LE(characters(line), 120u);
    EXPECT_EQ(sanitizeLine(line, 1000), line) << "invalid UTF-8 or a control character";
  }
  EXPECT_EQ(joinWarningLines(w),
            std::vector<std::string>{sanitizeLine(text, kMaxWarningTextBytes)});
}

TEST(SanitizeWarnings, ShortWarningsStayAsTheyAre) {
  const std::string exact(120, 'x');
  EXPECT_EQ(sanitizeWarnings({exact, "GPU quota not checked: Kubernetes API unreachable"}),
            (std::vector<std::string>{exact, "GPU quota not checked: Kubernetes API unreachable"}));
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
  EXPECT_EQ(out, (engine::AnnotationMap{{"a-b", "first"}, {"violation", "line1 line2"}}));
}

// The writers' fast paths: "clean" must mean the sanitizer returns the input itself, and every
// reason the sanitizer changes something must make it unclean.
TEST(CleanChecks, AgreeWithTheSanitizers) {
  for (const std::string& line :
       std::vector<std::string>{"plain words", "", " lead", "trail ", "two  spaces", "tab\there",
                                "caf\xc3\xa9", "del\x7f", std::string(121, 'x'),
                                // past the first 16-byte block of the printable-ASCII test
                                std::string(20, 'a') + "  b", std::string(20, 'a') + "\xc3\xa9",
                                std::string(33, 'a') + "\x1f" + "b", std::string(40, 'a')}) {
    SCOPED_TRACE(line);
    const bool printableAscii =
        std::all_of(line.begin(), line.end(), [](char c) { return c >= ' ' && c <= '~'; });
    // Clean is the ASCII subset of "left as it is" (other UTF-8 takes the careful path).
    EXPECT_EQ(isCleanLine(line, 120), sanitizeLine(line, 120) == line && printableAscii);
  }
  using W = std::vector<std::string>;
  const std::string long120(120, 'w'), long121(121, 'w');
  for (const W& ws : {W{}, W{"one", "two"}, W{"same", "same"}, W{"one", ""}, W{"a  b"}, W{long120},
                      W{long121}, W(35, long120), W(16, "x"), W(17, "x")}) {
    const bool clean = warningsAreClean(ws);
    if (clean) {
      EXPECT_EQ(sanitizeWarnings(ws), ws);
    }
    if (sanitizeWarnings(ws) != ws) {
      EXPECT_FALSE(clean);
    }
  }
  EXPECT_TRUE(warningsAreClean({"one", "two"}));
  EXPECT_FALSE(warningsAreClean({"same", "same"}));
  EXPECT_FALSE(warningsAreClean({long121}));
  EXPECT_FALSE(warningsAreClean(W(35, long120)));
  using A = engine::AnnotationMap;
  for (const A& a :
       {A{}, A{{"violation", "ok"}}, A{{"a/b", "x"}}, A{{"k", "line1\nline2"}}, A{{"k", ""}}}) {
    const bool clean = auditAnnotationsAreClean(a);
    EXPECT_EQ(clean, sanitizeAuditAnnotations(a) == a);
  }
}

}  // namespace
}  // namespace gpua::admission
