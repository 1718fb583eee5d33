#include "inventory/dra_decode.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpua::inventory {
namespace {

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(DraDecode, ClaimWithExactlyFirstAvailableAndAllocation) {
  const auto d = parse(R"({"kind":"ResourceClaim","metadata":{"name":"c","namespace":"ml"},
    "spec":{"devices":{"requests":[
      {"name":"a","exactly":{"deviceClassName":"gpu.nvidia.com","allocationMode":"ExactCount","count":2,
        "selectors":[{"cel":{"expression":"device.driver == 'gpu.nvidia.com'"}}]}},
      {"name":"b","firstAvailable":[{"name":"s","deviceClassName":"mig.nvidia.com"},
                                    {"name":"w","deviceClassName":"gpu.nvidia.com","allocationMode":"All"}]}]}},
    "status":{"allocation":{"devices":{"results":[{"request":"b/s","driver":"gpu.nvidia.com","pool":"n1","device":"mig-0"}]}},
      "reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]}})");
  const auto c = decodeResourceClaim(d);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->namespaceName, "ml");
  ASSERT_EQ(c->requests.size(), 2u);
  EXPECT_EQ(c->requests[0].alternatives[0].count, 2);
  EXPECT_EQ(c->requests[0].alternatives[0].selectors.size(), 1u);
  ASSERT_EQ(c->requests[1].alternatives.size(), 2u);
  EXPECT_EQ(c->requests[1].alternatives[0].name, "s");
  EXPECT_TRUE(c->requests[1].alternatives[1].all);
  EXPECT_TRUE(c->allocated);
  ASSERT_EQ(c->devices.size(), 1u);
  EXPECT_EQ(c->devices[0].request, "b/s");
  EXPECT_EQ(c->reservedFor, std::vector<std::string>{"u1"});
}

TEST(DraDecode, MistypedFieldsReadAsAbsentAndNamelessObjectsAreDropped) {
  EXPECT_FALSE(decodeResourceClaim(parse(R"({"metadata":{"name":"c"}})")));  // no namespace
  EXPECT_FALSE(decodeDeviceClass(parse(R"({"metadata":{}})")));
  EXPECT_FALSE(decodeDeviceClass(parse(R"([])")));
  const auto c = decodeResourceClaim(parse(R"({"metadata":{"name":"c","namespace":"n"},
    "spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":7}},
      {"name":"b","exactly":{"deviceClassName":"x","count":-3}}, 5]}},"status":{"allocation":7}})"));
  ASSERT_TRUE(c);
  ASSERT_EQ(c->requests.size(), 1u);                   // the class-less request is dropped
  EXPECT_EQ(c->requests[0].alternatives[0].count, 1);  // a count the API would refuse reads as 1
  EXPECT_FALSE(c->allocated);  // a mistyped allocation reads as absent, like every field
  EXPECT_TRUE(c->devices.empty());
}

TEST(DraDecode, SliceAttributesAreQualifiedByTheDriver) {
  const auto s =
      decodeResourceSlice(parse(R"({"kind":"ResourceSlice","spec":{"driver":"gpu.nvidia.com",
    "pool":{"name":"node/1"},"devices":[{"name":"mig-0","attributes":{"profile":{"string":"1g.10gb"},
    "index":{"int":3},"x.io/ok":{"bool":true},"v":{"version":"1.2.3"}}}]}})"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->nodeName, "");
  const auto& attrs = s->devices.at(engine::deviceKey("gpu.nvidia.com", "node/1", "mig-0"));
  EXPECT_EQ(attrs.at("gpu.nvidia.com/profile"), "1g.10gb");
  EXPECT_EQ(attrs.at("gpu.nvidia.com/index"), "3");
  EXPECT_EQ(attrs.at("x.io/ok"), "true");
  EXPECT_EQ(attrs.at("gpu.nvidia.com/v"), "1.2.3");
}

TEST(DraDecode, ListsOfEveryKindAndKindlessItemsOfTypedLists) {
  const auto list = parse(R"({"kind":"List","items":[
    {"kind":"DeviceClass","metadata":{"name":"gpu.nvidia.com"},"spec":{"extendedResourceName":"nvidia.com/gpu"}},
    {"kind":"ResourceClaimTemplateList","items":[{"metadata":{"name":"t","namespace":"ml"},
      "spec":{"spec":{"devices":{"requests":[{"name":"g","exactly":{"deviceClassName":"gpu.nvidia.com"}}]}}}}]},
    {"kind":"Pod","metadata":{"name":"p"}}]})");
  engine::DraObjects out;
  EXPECT_EQ(addDraObjects(list, out), 2u);
  EXPECT_TRUE(out.known);
  EXPECT_EQ(out.deviceClasses.at("gpu.nvidia.com").extendedResourceName, "nvidia.com/gpu");
  EXPECT_EQ(out.templates.at("ml/t").requests.size(), 1u);
}

TEST(DraDecode, ListsAreBoundedAsTheApiBoundsThem) {
  std::string requests;
  for (int i = 0; i < 100; ++i)
    requests += std::string(i ? "," : "") + R"({"name":"r)" + std::to_string(i) +
                R"(","exactly":{"deviceClassName":"c"}})";
  const auto c = decodeResourceClaim(
      parse(R"({"metadata":{"name":"c","namespace":"n"},"spec":{"devices":{"requests":[)" +
            requests + "]}}}"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->requests.size(), kMaxDeviceRequests);
}

}  // namespace
}  // namespace gpua::inventory
