// The reservation ConfigMap: its entries' JSON both ways, and the store's GET/POST/PUT against
// a fake apiserver with the real resourceVersion conflicts.
#include "cluster/reservation_store.hpp"

#include <gtest/gtest.h>

#include "support/fake_api_server.hpp"

namespace gpua::cluster {
namespace {

using engine::Reservation;
using engine::ReservationStore;
using std::chrono::seconds;
using std::chrono::steady_clock;

Reservation entry(const std::string& uid) {
  return {uid,        "ml/" + uid,       "ml",
          "training", 2.0 / 7,           {{"nvidia.com/mig-1g.10gb", 2}},
          {"dev"},    1'796'376'000'123, "gpu-admission-7f9c-abcde"};
}

TEST(ReservationCodec, EntriesRoundTripThroughTheConfigMap) {
  const auto json = encodeReservationConfigMap("gpu-admission", "42", {entry("u1"), entry("u2")});
  // The apiserver answers with what was written (and a resourceVersion).
  auto decoded = decodeReservationConfigMap(json);
  ASSERT_EQ(decoded.error, "");
  EXPECT_EQ(decoded.book.version, "42");
  ASSERT_EQ(decoded.book.entries.size(), 2u);
  EXPECT_EQ(decoded.book.entries[0], entry("u1"));
  EXPECT_EQ(decoded.book.entries[1], entry("u2"));
}

TEST(ReservationCodec, AnEntryReadsAsPeopleReadIt) {
  EXPECT_EQ(encodeReservation(entry("u1")),
            R"({"pod":"ml/u1","namespace":"ml","class":"training",)"
            R"("gpuEquivalents":0.2857142857142857,"units":{"nvidia.com/mig-1g.10gb":2},)"
            R"("quotas":["dev"],"since":"2026-12-04T09:20:00.123Z",)"
            R"("replica":"gpu-admission-7f9c-abcde"})");
  EXPECT_EQ(rfc3339Millis(0), "1970-01-01T00:00:00.000Z");
}

TEST(ReservationCodec, BadEntriesNameTheKeyAndTheProblem) {
  const auto bad = [](const std::string& value) {
    return decodeReservationConfigMap(R"({"metadata":{"resourceVersion":"7"},"data":{"u1":)" +
                                      value + "}}")
        .error;
  };
  EXPECT_EQ(bad(R"("{\"namespace\":\"ml\",\"gpuEquivalents\":-1}")"),
            "ConfigMap gpu-admission-quota-reservations: data.u1: \"gpuEquivalents\" is not a "
            "non-negative number");
  EXPECT_EQ(bad(R"("{\"namespace\":\"ml\",\"gpuEquivalents\":1,\"since\":\"yesterday\"}")"),
            "ConfigMap gpu-admission-quota-reservations: data.u1: \"since\" is not an RFC 3339 "
            "time");
  EXPECT_EQ(bad(R"("{\"gpuEquivalents\":1}")"),
            "ConfigMap gpu-admission-quota-reservations: data.u1: \"namespace\" is missing");
  EXPECT_NE(bad(R"("not json")").find("data.u1: invalid JSON"), std::string::npos);
  EXPECT_EQ(decodeReservationConfigMap(R"({"metadata":{}})").error,
            "ConfigMap gpu-admission-quota-reservations: metadata.resourceVersion is missing");
}

class ReservationStoreTest : public ::testing::Test {
 protected:
  ApiConfig api() const {
    ApiConfig c;
    c.host = "127.0.0.1";
    c.port = std::to_string(server.port());
    c.caPem = server.caPem();
    c.origin = "test";
    return c;
  }
  static steady_clock::time_point soon() { return steady_clock::now() + seconds(5); }

  testing::FakeApiServer server;
};

TEST_F(ReservationStoreTest, CreatesOnFirstWriteThenUpdatesAtTheVersionRead) {
  ConfigMapReservationStore store(api(), "gpu-admission");
  EXPECT_EQ(store.where(), "ConfigMap gpu-admission/gpu-admission-quota-reservations");
  auto first = store.read(soon());
  ASSERT_TRUE(std::holds_alternative<engine::ReservationBook>(first));
  EXPECT_EQ(std::get<engine::ReservationBook>(first).version, "");  // 404: none yet
  auto created = store.write("", {entry("u1")}, soon());
  ASSERT_TRUE(std::holds_alternative<ReservationStore::Written>(created));
  const auto v1 = std::get<ReservationStore::Written>(created).version;
  EXPECT_FALSE(v1.empty());
  EXPECT_EQ(server.count("POST /api/v1/namespaces/gpu-admission/configmaps "), 1);

  auto updated = store.write(v1, {entry("u1"), entry("u2")}, soon());
  ASSERT_TRUE(std::holds_alternative<ReservationStore::Written>(updated));
  auto read = store.read(soon());
  ASSERT_TRUE(std::holds_alternative<engine::ReservationBook>(read));
  const auto& book = std::get<engine::ReservationBook>(read);
  EXPECT_EQ(book.version, std::get<ReservationStore::Written>(updated).version);
  ASSERT_EQ(book.entries.size(), 2u);
  EXPECT_EQ(book.entries[1], entry("u2"));
}

TEST_F(ReservationStoreTest, AStaleVersionOrASecondCreateIsAConflict) {
  ConfigMapReservationStore a(api(), "gpu-admission"), b(api(), "gpu-admission");
  auto created = a.write("", {entry("u1")}, soon());
  ASSERT_TRUE(std::holds_alternative<ReservationStore::Written>(created));
  EXPECT_TRUE(std::holds_alternative<ReservationStore::Conflict>(b.write("", {}, soon())));
  const auto v1 = std::get<ReservationStore::Written>(created).version;
  ASSERT_TRUE(std::holds_alternative<ReservationStore::Written>(b.write(v1, {}, soon())));
  EXPECT_TRUE(
      std::holds_alternative<ReservationStore::Conflict>(a.write(v1, {entry("u2")}, soon())));
}

TEST_F(ReservationStoreTest, AnUnreachableApiIsAFailureWithinTheDeadline) {
  ConfigMapReservationStore store(api(), "gpu-admission");
  server.setReachable(false);
  const auto started = steady_clock::now();
  auto r = store.read(steady_clock::now() + std::chrono::milliseconds(500));
  ASSERT_TRUE(std::holds_alternative<ReservationStore::Failure>(r));
  EXPECT_LT(steady_clock::now() - started, seconds(3));
  EXPECT_NE(std::get<ReservationStore::Failure>(r).message.find(
                "GET ConfigMap gpu-admission/gpu-admission-quota-reservations: "),
            std::string::npos)
      << std::get<ReservationStore::Failure>(r).message;
  auto late = store.read(steady_clock::now() - seconds(1));
  EXPECT_EQ(std::get<ReservationStore::Failure>(late).message,
            "GET ConfigMap gpu-admission/gpu-admission-quota-reservations: no time left before "
            "the webhook's deadline");
}

}  // namespace
}  // namespace gpua::cluster
