#include "server/unproven_connections.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpua::server {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Conn {
  int id;
};

TEST(UnprovenConnections, BareSocketsGoOldestFirstTalkingOnesAfterTheirGrace) {
  UnprovenConnections<Conn> u;
  const auto t0 = Clock::now();
  auto a = std::make_shared<Conn>(Conn{1});
  auto b = std::make_shared<Conn>(Conn{2});
  auto c = std::make_shared<Conn>(Conn{3});
  const auto ka = u.add(a, "10.0.0.1", t0);
  u.add(b, "10.0.0.1", t0);
  u.add(c, "10.0.0.2", t0);
  u.talk(ka);  // a began its handshake: not evictable within the grace
  EXPECT_EQ(u.takeOldest(nullptr, t0, 1s)->id, 2);
  EXPECT_EQ(u.takeOldest(nullptr, t0, 1s)->id, 3);
  EXPECT_EQ(u.takeOldest(nullptr, t0, 1s), nullptr) << "a has had less than its grace";
  EXPECT_EQ(u.takeOldest(nullptr, t0 + 2s, 1s)->id, 1);
  EXPECT_EQ(u.size(), 0u);
}

TEST(UnprovenConnections, PerSourceTakesOnlyThatSourcesConnections) {
  UnprovenConnections<Conn> u;
  const auto t0 = Clock::now();
  auto a = std::make_shared<Conn>(Conn{1});
  auto b = std::make_shared<Conn>(Conn{2});
  u.add(a, "10.0.0.1", t0);
  u.add(b, "10.0.0.2", t0);
  const std::string second = "10.0.0.2", third = "10.0.0.3";
  EXPECT_EQ(u.takeOldest(&third, t0, 1s), nullptr);
  EXPECT_EQ(u.takeOldest(&second, t0, 1s)->id, 2);
  EXPECT_EQ(u.size(), 1u);
}

TEST(UnprovenConnections, ProvenDroppedAndGoneConnectionsAreNeverTaken) {
  UnprovenConnections<Conn> u;
  const auto t0 = Clock::now();
  auto a = std::make_shared<Conn>(Conn{1});
  auto b = std::make_shared<Conn>(Conn{2});
  const auto ka = u.add(a, "s", t0);
  {
    auto gone = std::make_shared<Conn>(Conn{9});
    u.add(gone, "s", t0);
  }
  u.add(b, "s", t0);
  u.drop(ka);  // proven: a request header arrived
  EXPECT_EQ(u.takeOldest(nullptr, t0, 1s)->id, 2) << "the expired one is skipped";
  EXPECT_EQ(u.takeOldest(nullptr, t0, 1s), nullptr);
  u.drop(ka);  // twice is harmless
}

}  // namespace
}  // namespace gpua::server
