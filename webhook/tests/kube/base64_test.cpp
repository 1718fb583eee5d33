#include "kube/base64.hpp"

#include <gtest/gtest.h>

#include <random>

namespace gpua::kube {
namespace {

TEST(Base64, Rfc4648TestVectors) {
  EXPECT_EQ(base64Encode(""), "");
  EXPECT_EQ(base64Encode("f"), "Zg==");
  EXPECT_EQ(base64Encode("fo"), "Zm8=");
  EXPECT_EQ(base64Encode("foo"), "Zm9v");
  EXPECT_EQ(base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64Encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, UsesTheStandardAlphabetNotUrlSafe) {
  EXPECT_EQ(base64Encode("\xfb\xff\xbf"), "+/+/");
}

TEST(Base64, AppendKeepsExistingContent) {
  std::string out = "\"";
  base64Append(out, "foobar");
  EXPECT_EQ(out, "\"Zm9vYmFy");
}

TEST(Base64, RandomBytesRoundTrip) {
  std::mt19937 rng(42);
  for (std::size_t len = 0; len < 300; ++len) {
    std::string bytes(len, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng() & 0xff);
    const std::string encoded = base64Encode(bytes);
    EXPECT_EQ(encoded.size() % 4, 0u);
    const auto decoded = base64Decode(encoded);
    ASSERT_TRUE(decoded.has_value()) << len;
    EXPECT_EQ(*decoded, bytes) << len;
  }
}

// RFC 4648 section 4 bit by bit: the encoder's word-at-a-time steps checked against the
// definition for every length and alignment of the fast loop and its tail.
std::string referenceEncode(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned bits = 0, count = 0;
  for (const char c : bytes) {
    bits = (bits << 8) | static_cast<unsigned char>(c);
    count += 8;
    while (count >= 6) out.push_back(kAlphabet[(bits >> (count -= 6)) & 63]);
  }
  if (count > 0) out.push_back(kAlphabet[(bits << (6 - count)) & 63]);
  while (out.size() % 4 != 0) out.push_back('=');
  return out;
}

TEST(Base64, EncodesEveryLengthAsTheDefinitionDoes) {
  std::mt19937 rng(7);
  for (std::size_t len = 0; len < 200; ++len) {
    std::string bytes(len, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng() & 0xff);
    std::string out = "x";
    base64Append(out, bytes);
    EXPECT_EQ(out.substr(0, 1), "x");
    EXPECT_EQ(out.substr(1), referenceEncode(bytes)) << len;
  }
  EXPECT_EQ(base64Encode(std::string(9, '\xff')), "////////////");
}

// Every character of the alphabet at every position of the 16-byte steps: groups whose four
// 6-bit indices are all one value, long enough for several steps and a tail.
TEST(Base64, EveryIndexAtEveryPositionOfAStep) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (unsigned v = 0; v < 64; ++v) {
    const unsigned group = v << 18 | v << 12 | v << 6 | v;
    std::string bytes;
    for (int g = 0; g < 11; ++g)
      bytes +=
          {static_cast<char>(group >> 16), static_cast<char>(group >> 8), static_cast<char>(group)};
    EXPECT_EQ(base64Encode(bytes), std::string(44, kAlphabet[v])) << v;
  }
}

TEST(Base64, DecodeRejectsMalformedInput) {
  EXPECT_FALSE(base64Decode("Zm9").has_value());       // not a multiple of 4
  EXPECT_FALSE(base64Decode("Zm9v-_==").has_value());  // URL-safe alphabet
  EXPECT_FALSE(base64Decode("Zg==Zm9v").has_value());  // padding in the middle
  EXPECT_FALSE(base64Decode("Z===").has_value());      // too much padding
  EXPECT_FALSE(base64Decode("Zm=v").has_value());      // data after padding
  EXPECT_EQ(base64Decode("Zm9vYg=="), "foob");
}

}  // namespace
}  // namespace gpua::kube
