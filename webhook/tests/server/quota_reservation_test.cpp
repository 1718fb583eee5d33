// The reservation loop against an injected store: what it reads and writes, how it counts
// reservations against a quota, and what it does on conflicts, expiry, failures and deadlines.
// Decisions go through admission::review with a real policy, as in `serve`.
#include "server/quota_reservation.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <optional>

#include "policy/loader.hpp"

namespace gpua::server {
namespace {

using engine::Reservation;
using engine::ReservationBook;
using engine::ReservationStore;
using Result = ReservationOutcome::Result;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr const char* kPolicy = R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: unit}
spec:
  pools:
  - {name: h100, gpu: H100-80GB, sharing: exclusive, nodeSelector: {gpu: h100}}
  - {name: a100, gpu: A100-80GB, sharing: mig, migProfiles: [1g.10gb], nodeSelector: {gpu: a100}}
  classes:
  - name: training
    match: {any: [{labels: {gpu-admission.io/class: training}}]}
    pools: [h100]
  - name: inference
    match: {any: [{labels: {gpu-admission.io/class: inference}}]}
    pools: [a100]
    gpus: {migProfile: 1g.10gb}
  QUOTA_UNAVAILABLE
  quotas:
  - name: dev
    namespaces: {names: [ml]}
    gpuEquivalents: 2
  rollout:
  - mode: enforce
)";

// A CREATE review of a training pod asking for `units` of `resource`.
std::string podReview(const std::string& uid, const std::string& podUid, int units = 1,
                      const std::string& resource = "nvidia.com/gpu", bool dryRun = false) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" +
         uid + R"(","kind":{"group":"","version":"v1","kind":"Pod"},"namespace":"ml",)" +
         R"("operation":"CREATE","dryRun":)" + (dryRun ? "true" : "false") +
         R"(,"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-)" + podUid +
         R"(","namespace":"ml","uid":")" + podUid + R"(","labels":{"gpu-admission.io/class":")" +
         (resource.starts_with("nvidia.com/mig") ? "inference" : "training") +
         R"("}},"spec":{"containers":[{"name":"c",)"
         R"("resources":{"limits":{")" +
         resource + R"(":")" + std::to_string(units) + R"("}}}]}}}})";
}

// An in-memory store with the apiserver's optimistic concurrency; `beforeWrite` runs just
// before each write is judged, so a test can play another replica writing first.
class FakeStore : public ReservationStore {
 public:
  ReadResult read(steady_clock::time_point) override {
    ++reads;
    if (!failure.empty()) return Failure{failure};
    return ReservationBook{version(), entries};
  }
  WriteResult write(const std::string& v, const std::vector<Reservation>& e,
                    steady_clock::time_point) override {
    ++writes;
    if (beforeWrite) beforeWrite();
    if (!failure.empty()) return Failure{failure};
    if (v != version()) return Conflict{};
    entries = e;
    ++generation;
    return Written{version()};
  }
  std::string where() const override { return "ConfigMap test/reservations"; }

  std::string version() const { return generation == 0 ? "" : std::to_string(generation); }
  // Another replica's write: one more entry, a new version.
  void otherReplicaReserves(const std::string& uid, double ge = 1) {
    entries.push_back(
        {uid, "ml/" + uid, "ml", "training", ge, {{"nvidia.com/gpu", 1}}, {"dev"}, nowMs, "other"});
    ++generation;
  }

  std::vector<Reservation> entries;
  int generation = 0;
  int reads = 0, writes = 0;
  std::string failure;
  std::function<void()> beforeWrite;
  int64_t nowMs = 1'000'000;
};

class QuotaReserverTest : public ::testing::Test {
 protected:
  void load(std::string_view quotaUnavailable = "quotaUnavailable: failOpen") {
    std::string yaml = kPolicy;
    yaml.replace(yaml.find("QUOTA_UNAVAILABLE"), 17, quotaUnavailable);
    auto loaded = policy::loadPolicySources({{"unit.yaml", yaml}});
    ASSERT_TRUE(loaded.ok()) << (loaded.errors.empty() ? "" : loaded.errors[0].format());
    policy_ = loaded.policy;
  }
  void SetUp() override {
    load();
    usage_.available = true;
    store_ = std::make_shared<FakeStore>();
    settings_.ttl = milliseconds(90'000);
    settings_.budget = milliseconds(3'000);
    settings_.replica = "replica-a";
    settings_.wallMs = [s = store_.get()] { return s->nowMs; };
    settings_.steadyNow = [this] { return now_; };
  }

  // What WebhookService does: review against the watch's usage, then reserve when needed.
  ReservationOutcome admit(QuotaReserver& reserver, const std::string& body,
                           std::optional<steady_clock::time_point> since = std::nullopt) {
    const auto reviewWith = [&](const engine::UsageSnapshot& u) {
      return admission::review(body, admission::Endpoint::Validate, *policy_, u);
    };
    auto first = reviewWith(usage_);
    if (!needsReservation(first, admission::Endpoint::Validate)) {
      ReservationOutcome none;
      none.review = std::move(first);
      return none;
    }
    return reserver.reserve(usage_, std::move(first), reviewWith, since);
  }

  std::shared_ptr<const policy::PolicySet> policy_;
  engine::UsageSnapshot usage_;
  std::shared_ptr<FakeStore> store_;
  ReservationSettings settings_;
  steady_clock::time_point now_ = steady_clock::time_point() + std::chrono::hours(1);
};

TEST_F(QuotaReserverTest, AdmitsUpToTheQuotaThenDeniesCountingReservations) {
  QuotaReserver reserver(store_, settings_);
  EXPECT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::Reserved);
  EXPECT_EQ(admit(reserver, podReview("r2", "uid-2")).result, Result::Reserved);
  const auto third = admit(reserver, podReview("r3", "uid-3"));
  EXPECT_EQ(third.result, Result::Denied);
  ASSERT_TRUE(third.review.decision.has_value());
  EXPECT_FALSE(third.review.decision->allowed());
  EXPECT_NE(third.review.body.find("quota \\\"dev\\\""), std::string::npos) << third.review.body;
  ASSERT_EQ(store_->entries.size(), 2u);
  const Reservation& r = store_->entries[0];
  EXPECT_EQ(r.podUid, "uid-1");
  EXPECT_EQ(r.pod, "ml/p-uid-1");
  EXPECT_EQ(r.className, "training");
  EXPECT_DOUBLE_EQ(r.gpuEquivalents, 1.0);
  EXPECT_EQ(r.units, (std::map<std::string, int64_t>{{"nvidia.com/gpu", 1}}));
  EXPECT_EQ(r.quotas, std::vector<std::string>{"dev"});
  EXPECT_EQ(r.replica, "replica-a");
  EXPECT_EQ(r.sinceUnixMs, store_->nowMs);
}

TEST_F(QuotaReserverTest, OneWritePerAdmissionWhenNobodyElseWrites) {
  QuotaReserver reserver(store_, settings_);
  const auto a = admit(reserver, podReview("r1", "uid-1"));
  EXPECT_EQ(a.roundTrips, 2);  // the first: read, then write
  const auto b = admit(reserver, podReview("r2", "uid-2"));
  EXPECT_EQ(b.roundTrips, 1);  // then its own last write is the version it writes on
  EXPECT_EQ(store_->reads, 1);
  EXPECT_EQ(store_->writes, 2);
}

TEST_F(QuotaReserverTest, AConflictReReadsAndJudgesWithTheOtherReplicasEntries) {
  QuotaReserver reserver(store_, settings_);
  ASSERT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::Reserved);
  // Another replica takes the last GPU-equivalent between our read and our write.
  store_->beforeWrite = [this] {
    store_->beforeWrite = nullptr;
    store_->otherReplicaReserves("uid-other");
  };
  const auto out = admit(reserver, podReview("r2", "uid-2"));
  EXPECT_EQ(out.result, Result::Denied);
  EXPECT_EQ(out.conflicts, 1);
  ASSERT_EQ(store_->entries.size(), 2u);
  EXPECT_EQ(store_->entries[1].podUid, "uid-other");
}

TEST_F(QuotaReserverTest, ConflictsRetryUntilTheWriteLands) {
  QuotaReserver reserver(store_, settings_);
  int losses = 3;
  store_->beforeWrite = [&] {
    if (losses-- > 0) ++store_->generation;  // someone rewrote the object: nothing new in it
  };
  const auto out = admit(reserver, podReview("r1", "uid-1"));
  EXPECT_EQ(out.result, Result::Reserved);
  EXPECT_EQ(out.conflicts, 3);
  EXPECT_EQ(out.roundTrips, 8);  // 4 reads and 4 writes
  EXPECT_EQ(store_->entries.size(), 1u);
}

TEST_F(QuotaReserverTest, ConflictsPastTheDeadlineFollowQuotaUnavailable) {
  QuotaReserver reserver(store_, settings_);
  store_->beforeWrite = [this] {
    ++store_->generation;
    now_ += milliseconds(1'000);
  };
  const auto out = admit(reserver, podReview("r1", "uid-1"));
  EXPECT_EQ(out.result, Result::Unavailable);
  EXPECT_EQ(out.conflicts, 3);
  EXPECT_NE(out.error.find("3 conflicting writes of ConfigMap test/reservations"),
            std::string::npos)
      << out.error;
  // failOpen: admitted with the usual warning.
  ASSERT_TRUE(out.review.decision.has_value());
  EXPECT_TRUE(out.review.decision->allowed());
  EXPECT_NE(out.review.body.find("GPU quota not checked: quota reservations unavailable"),
            std::string::npos)
      << out.review.body;
}

// The budget counts from the request's arrival: a reservation that waited for a free thread
// past it calls nothing (the apiserver has given up on the answer, or soon will) and follows
// quotaUnavailable; one that waited less keeps the rest of its budget.
TEST_F(QuotaReserverTest, TheBudgetCountsFromTheRequestsArrival) {
  QuotaReserver reserver(store_, settings_);
  const auto arrived = now_;
  now_ += milliseconds(3'000);
  const auto late = admit(reserver, podReview("r1", "uid-1"), arrived);
  EXPECT_EQ(late.result, Result::Unavailable);
  EXPECT_EQ(late.roundTrips, 0);
  EXPECT_NE(late.error.find("waited 3000 ms of a 3000 ms budget before a reservation could start"),
            std::string::npos)
      << late.error;
  ASSERT_TRUE(late.review.decision.has_value());
  EXPECT_TRUE(late.review.decision->allowed()) << "failOpen";
  EXPECT_EQ(admit(reserver, podReview("r2", "uid-2"), now_ - milliseconds(2'999)).result,
            Result::Reserved);
}

TEST_F(QuotaReserverTest, AStoreFailureDeniesWhenTheQuotaFailsClosed) {
  load("quotaUnavailable: failClosed");
  QuotaReserver reserver(store_, settings_);
  store_->failure = "GET ConfigMap test/reservations: cannot connect";
  const auto out = admit(reserver, podReview("r1", "uid-1"));
  EXPECT_EQ(out.result, Result::Unavailable);
  ASSERT_TRUE(out.review.decision.has_value());
  EXPECT_FALSE(out.review.decision->allowed());
  EXPECT_NE(out.review.body.find("could not be checked (quota reservations unavailable (GET "
                                 "ConfigMap test/reservations: cannot connect))"),
            std::string::npos)
      << out.review.body;
}

TEST_F(QuotaReserverTest, AReservationWhosePodTheWatchHoldsCountsOnce) {
  QuotaReserver reserver(store_, settings_);
  ASSERT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::Reserved);
  // The watch delivered uid-1: it is in the usage, and its reservation no longer adds to it.
  usage_.namespaces["ml"].gpuEquivalents = 1;
  usage_.namespaces["ml"].byResource["nvidia.com/gpu"] = 1;
  usage_.knownPods.insert("uid-1");
  EXPECT_EQ(admit(reserver, podReview("r2", "uid-2")).result, Result::Reserved);
  EXPECT_EQ(admit(reserver, podReview("r3", "uid-3")).result, Result::Denied);
}

TEST_F(QuotaReserverTest, APodThatEndedFreesItsShareBeforeItsReservationExpires) {
  QuotaReserver reserver(store_, settings_);
  ASSERT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::Reserved);
  ASSERT_EQ(admit(reserver, podReview("r2", "uid-2")).result, Result::Reserved);
  // uid-1 was seen and then deleted: the ledger remembers it left (knownPods), usage has 1 pod.
  usage_.namespaces["ml"].gpuEquivalents = 1;
  usage_.knownPods = {"uid-1", "uid-2"};
  EXPECT_EQ(admit(reserver, podReview("r3", "uid-3")).result, Result::Reserved);
}

TEST_F(QuotaReserverTest, AnUnclaimedReservationStopsCountingAfterItsTtl) {
  QuotaReserver reserver(store_, settings_);
  ASSERT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::Reserved);
  ASSERT_EQ(admit(reserver, podReview("r2", "uid-2")).result, Result::Reserved);
  ASSERT_EQ(admit(reserver, podReview("r3", "uid-3")).result, Result::Denied);
  store_->nowMs += 89'999;  // not yet
  ASSERT_EQ(admit(reserver, podReview("r4", "uid-4")).result, Result::Denied);
  store_->nowMs += 1;  // the creates never happened: both reservations expire
  EXPECT_EQ(admit(reserver, podReview("r5", "uid-5")).result, Result::Reserved);
  ASSERT_EQ(store_->entries.size(), 1u);  // the expired entries were dropped by that write
  EXPECT_EQ(store_->entries[0].podUid, "uid-5");
}

TEST_F(QuotaReserverTest, MigAndWholeGpusAddUpInGpuEquivalents) {
  QuotaReserver reserver(store_, settings_);
  // 1 GPU + 7 x 1g slices of an A100 (7 compute slices) = 2 GPU-equivalents: the quota is full.
  ASSERT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::Reserved);
  for (int i = 0; i < 7; ++i)
    ASSERT_EQ(admit(reserver, podReview("m" + std::to_string(i), "mig-" + std::to_string(i), 1,
                                        "nvidia.com/mig-1g.10gb"))
                  .result,
              Result::Reserved)
        << i;
  EXPECT_EQ(admit(reserver, podReview("m8", "mig-8", 1, "nvidia.com/mig-1g.10gb")).result,
            Result::Denied);
  EXPECT_NEAR(store_->entries.back().gpuEquivalents, 1.0 / 7, 1e-9);
}

TEST_F(QuotaReserverTest, ARetriedAdmissionReplacesItsOwnEntry) {
  QuotaReserver reserver(store_, settings_);
  ASSERT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::Reserved);
  // The apiserver retried the same pod (same uid): one entry, not two.
  ASSERT_EQ(admit(reserver, podReview("r1b", "uid-1")).result, Result::Reserved);
  ASSERT_EQ(store_->entries.size(), 1u);
  EXPECT_EQ(admit(reserver, podReview("r2", "uid-2")).result, Result::Reserved);
}

TEST_F(QuotaReserverTest, DryRunsMutationsAndUngovernedPodsReserveNothing) {
  QuotaReserver reserver(store_, settings_);
  EXPECT_EQ(admit(reserver, podReview("r1", "uid-1", 1, "nvidia.com/gpu", true)).result,
            Result::NotNeeded);
  const auto body = podReview("r2", "uid-2");
  const auto mutate = admission::review(body, admission::Endpoint::Mutate, *policy_, usage_);
  EXPECT_FALSE(needsReservation(mutate, admission::Endpoint::Mutate));
  const auto both = admission::review(body, admission::Endpoint::Both, *policy_, usage_);
  EXPECT_FALSE(needsReservation(both, admission::Endpoint::Both));  // /admit: a mutating webhook
  std::string noUid = podReview("r4", "uid-4");
  noUid.replace(noUid.find(R"(,"uid":"uid-4")"), 14, "");
  EXPECT_EQ(admit(reserver, noUid).result, Result::NotNeeded);
  std::string other = podReview("r3", "uid-3");
  other.replace(other.find(R"("namespace":"ml")"), 16, R"("namespace":"web")");
  EXPECT_EQ(admit(reserver, other).result, Result::NotNeeded);
  EXPECT_EQ(store_->reads + store_->writes, 0);
}

TEST_F(QuotaReserverTest, WithoutLiveUsageNothingIsReserved) {
  QuotaReserver reserver(store_, settings_);
  usage_.available = false;
  EXPECT_EQ(admit(reserver, podReview("r1", "uid-1")).result, Result::NotNeeded);
  EXPECT_EQ(store_->reads + store_->writes, 0);
}

}  // namespace
}  // namespace gpua::server
