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
