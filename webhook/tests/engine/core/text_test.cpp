#include "engine/core/text.hpp"

#include <gtest/gtest.h>

#include <cctype>

#include "text/ascii.hpp"

namespace gpua::engine {
namespace {

TEST(Text, NumbersWithoutUselessDecimals) {
  EXPECT_EQ(text::number(14), "14");
  EXPECT_EQ(text::number(2.0 / 7), "0.29");
  EXPECT_EQ(text::number(1.5), "1.5");
  EXPECT_EQ(text::number(0), "0");
  EXPECT_EQ(text::number(-0.001), "0");
  EXPECT_EQ(text::number(1.0 / 0.0), "0");
}

TEST(Text, OneLineReplacesControlsAndKeepsValidUtf8) {
  EXPECT_EQ(text::oneLine("a\nb\tc\x7f", 100), "a b c ");
  EXPECT_EQ(text::oneLine("caf\xc3\xa9 \xf0\x9f\x98\x80", 100), "caf\xc3\xa9 \xf0\x9f\x98\x80");
  EXPECT_EQ(text::oneLine("bad\xff\xc3x", 100),
            "bad?"
            "?x");                                       // split: no trigraph
  EXPECT_EQ(text::oneLine("\xed\xa0\x80", 100), "???");  // a UTF-16 surrogate is not UTF-8
}

// Protocol tokens compare as ASCII: every pair of byte values, as the C locale's std::tolower
// compares them (the server never sets another locale), and tokens longer than one byte.
TEST(Text, EqualsIgnoreCaseIsTheCLocalesToLowerForEveryPairOfBytes) {
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; ++b) {
      const char x = static_cast<char>(a), y = static_cast<char>(b);
      ASSERT_EQ(gpua::text::equalsIgnoreCase({&x, 1}, {&y, 1}), std::tolower(a) == std::tolower(b))
          << a << " " << b;
    }
  EXPECT_TRUE(gpua::text::equalsIgnoreCase("Application/JSON", "application/json"));
  EXPECT_FALSE(gpua::text::equalsIgnoreCase("application/jsonx", "application/json"));
  EXPECT_FALSE(gpua::text::equalsIgnoreCase("applic@tion/json", "applic`tion/json"));
}

TEST(Text, CutsAtCharacterBoundary) {
  EXPECT_EQ(text::oneLine("abcdef", 3), "abc...");
  EXPECT_EQ(text::oneLine("ab\xc3\xa9", 3), "ab...");  // never half of the é
  EXPECT_EQ(text::quoted(std::string(200, 'x')).size(), 80u + 2 + 3);
}

// 16 bytes a step, then byte by byte: every byte value at every position of 40 bytes decides as
// the byte-by-byte rule (printable ASCII, 0x20 to 0x7E, within the length) does.
TEST(TextIsOneLine, EveryByteAtEveryPositionDecidesAsByteByByte) {
  for (unsigned b = 0; b < 256; ++b) {
    for (std::size_t pos = 0; pos < 40; ++pos) {
      std::string s(40, 'a');
      s[pos] = static_cast<char>(b);
      const bool printable = b >= 0x20 && b < 0x7F;
      ASSERT_EQ(text::isOneLine(s, 40), printable) << "byte " << b << " at " << pos;
      ASSERT_FALSE(text::isOneLine(s, 39)) << "longer than the limit";
    }
  }
}

}  // namespace
}  // namespace gpua::engine
