#include "kube/json_special.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpua::kube {
namespace {

bool special(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20;
}

// Blocks of 16 bytes, then byte by byte: every byte value at every position of 40 bytes, and
// ranges ending anywhere, find what a byte-by-byte search finds.
TEST(JsonSpecial, EveryByteAtEveryPositionIsFoundAsByteByByte) {
  for (unsigned b = 0; b < 256; ++b) {
    for (std::size_t pos = 0; pos < 40; ++pos) {
      std::string text(40, 'a');
      text[pos] = static_cast<char>(b);
      for (std::size_t length : {pos, pos + 1, std::size_t{40}}) {
        const char* begin = text.data();
        const char* end = begin + length;
        const std::size_t want =
            pos < length && special(static_cast<unsigned char>(b)) ? pos : length;
        ASSERT_EQ(static_cast<std::size_t>(findJsonSpecial(begin, end) - begin), want)
            << "byte " << b << " at " << pos << ", length " << length;
      }
    }
  }
}

TEST(JsonSpecial, AnEmptyRangeHasNone) {
  const char* text = "\"";
  EXPECT_EQ(findJsonSpecial(text, text), text);
}

}  // namespace
}  // namespace gpua::kube
