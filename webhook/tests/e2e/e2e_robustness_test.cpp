// Never down, never wrong: every kind of bad input gets a 4xx naming the problem and a metric,
// and the server stays healthy; limits, timeouts and keep-alive behave as the apiserver needs.
#include <thread>

#include "e2e_fixture.hpp"
#include "e2e_process_probe.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;

struct BadCase {
  std::string name, method, path, contentType, body;
  int status;
  std::string kind;     // bad_requests_total kind
  std::string message;  // a fragment of the one-line error
};

std::string deepJson(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST_F(E2eTest, BadInputsGetA4xxNamingTheProblemAndAMetric) {
  start();
  const std::string good = reviewJson(podJson(1), "u1");
  const std::string service =
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{}})";
  const std::vector<BadCase> cases = {
      {"not json", "POST", "/mutate", "application/json", "hello", 400, "invalid-json", "JSON"},
      {"truncated", "POST", "/mutate", "application/json", good.substr(0, good.size() / 2), 400,
       "invalid-json", "JSON"},
      // A raw ESC (0x1B) in a pod's name, past RapidJSON's 16-byte alignment: it used to parse.
      {"raw control character", "POST", "/mutate", "application/json",
       reviewJson(podJson(1), "u3" + std::string(20, 'x') + "\x1b" + std::string(20, 'x')), 400,
       "invalid-json", "unescaped control character U+001B"},
      {"too deep", "POST", "/validate", "application/json", deepJson(5000), 400, "too-deep",
       "deep"},
      {"wrong apiVersion", "POST", "/mutate", "application/json",
       R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}})", 400,
       "wrong-api-version", "apiVersion"},
      {"wrong kind", "POST", "/mutate", "application/json",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{}})", 400, "wrong-kind",
       "kind"},
      {"missing request", "POST", "/mutate", "application/json",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", 400, "missing-request",
       "request"},
      {"missing uid", "POST", "/mutate", "application/json",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}})",
       400, "missing-uid", "uid"},
      {"missing object", "POST", "/mutate", "application/json",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE"}})",
       400, "missing-object", "object"},
      {"object not a pod", "POST", "/mutate", "application/json", reviewJson(service, "u2"), 400,
       "object-not-pod", "Pod"},
      {"wrong method", "GET", "/mutate", "", "", 405, "method-not-allowed", "not allowed"},
      {"wrong content type", "POST", "/mutate", "text/plain", good, 415, "wrong-content-type",
       "Content-Type"},
      {"no content type", "POST", "/validate", "", good, 415, "wrong-content-type", "Content-Type"},
      {"unknown path", "POST", "/mutating", "application/json", good, 404, "unknown-path",
       "/mutating"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto res = client().request(c.method, c.path, c.body, c.contentType);
    EXPECT_EQ(res.status, c.status) << res.body;
    EXPECT_NE(res.body.find(c.message), std::string::npos) << res.body;
    EXPECT_EQ(std::count(res.body.begin(), res.body.end(), '\n'), 1) << "one line: " << res.body;
    EXPECT_TRUE(healthy());
  }
  const auto m = metrics();
  for (const auto& c : cases)
    EXPECT_NE(m.find("gpu_admission_bad_requests_total{kind=\"" + c.kind + "\"}"),
              std::string::npos)
        << c.kind << "\n"
        << m;
}

TEST_F(E2eTest, JsonContentTypeWithParametersIsAccepted) {
  start();
  auto res = client().request("POST", "/mutate", reviewJson(podJson(1), "u-ct"),
                              "Application/JSON; charset=utf-8");
  EXPECT_EQ(res.status, 200) << res.body;
}

TEST_F(E2eTest, BodyOver8MiBIs413AndTheServerStaysUp) {
  start();
  std::string big = reviewJson(podJson(1), "big");
  big.insert(big.size() - 2, ",\"pad\":\"" + std::string(9u << 20, 'x') + "\"");
  auto res = post("/mutate", big);
  EXPECT_EQ(res.status, 413);
  EXPECT_NE(res.body.find("8388608"), std::string::npos) << res.body;
  EXPECT_TRUE(healthy());
  EXPECT_NE(metrics().find("gpu_admission_bad_requests_total{kind=\"body-too-large\"} 1"),
            std::string::npos);
}

TEST_F(E2eTest, KeepAliveServesManyRequestsOnOneConnection) {
  start();
  auto c = client();
  for (int i = 0; i < 10; ++i) {
    auto res = c.request("POST", i % 2 ? "/validate" : "/mutate",
                         reviewJson(podJson(1), "ka-" + std::to_string(i)));
    ASSERT_EQ(res.status, 200);
    EXPECT_TRUE(res.keepAlive);
  }
  EXPECT_NE(metrics().find("gpu_admission_open_connections 2"), std::string::npos)
      << "the kept-alive connection and the scrape's";
}

TEST_F(E2eTest, SlowClientTimesOutWithoutBlockingOthers) {
  start({"--header-timeout", "2s", "--body-timeout", "2s"});
  auto slowHeader = client();
  slowHeader.writeRaw("POST /mutate HTTP/1.1\r\nHost: x\r\n");
  auto slowBody = client();
  slowBody.writeRaw(
      "POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 1000\r\n\r\n{");
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(post("/mutate", reviewJson(podJson(1), "fast")).status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1800ms) << "others waited for the slow ones";
  EXPECT_TRUE(slowHeader.closedByPeer());
  EXPECT_TRUE(slowBody.closedByPeer());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  std::this_thread::sleep_for(100ms);
  const auto m = metrics();
  EXPECT_NE(m.find("kind=\"header-timeout\""), std::string::npos) << m;
  EXPECT_NE(m.find("kind=\"body-timeout\""), std::string::npos) << m;
}

TEST_F(E2eTest, MetricsListTheDocumentedNamesAfterTraffic) {
  start();
  post("/mutate", reviewJson(podJson(1), "m1"));
  post("/validate", reviewJson(podJson(4), "m2"));
  post("/mutate", "junk");
  auto res = client().request("GET", "/metrics");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.contentType.rfind("text/plain; version=0.0.4", 0), 0u) << res.contentType;
  const auto& m = res.body;
  for (const char* name :
       {"gpu_admission_requests_total{path=\"/mutate\",decision=\"allowed\",class=\"training\","
        "namespace=\"ml\"",
        "gpu_admission_requests_total{path=\"/validate\",decision=\"denied\",class=\"training\"",
        "gpu_admission_request_duration_seconds_bucket{path=\"/mutate\",le=",
        "gpu_admission_bad_requests_total{kind=\"invalid-json\"} 1",
        "gpu_admission_policy_revision_info{revision=", "gpu_admission_policy_reload_total",
        "gpu_admission_policy_last_reload_success 1",
        "gpu_admission_certificate_expiry_timestamp_seconds ", "gpu_admission_open_connections ",
        "gpu_admission_violations_total{rule="})
    EXPECT_NE(m.find(name), std::string::npos) << name << "\n" << m;
}

TEST_F(E2eTest, ReadyWhenPoliciesAndCertificatesAreLoaded) {
  start();
  auto res = client().request("GET", "/readyz");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, "ready\n");
}

}  // namespace
}  // namespace gpua::testing

namespace gpua::testing {
namespace {

// A chunked request's trailer section, `size` bytes of one field's value.
std::string chunkedWithTrailer(std::size_t size) {
  return "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " +
         std::string(size, 'a') + "\r\n\r\n";
}

// Trailer fields are held to the header limit, and no request bytes end the process: Beast
// stores a trailer field in its fields container, which throws std::length_error("field value
// too large") out of the read's completion handler from 65,534 bytes on; that left
// io_context::run() and the process exited 3 (the last request here never got an answer).
TEST_F(E2eTest, TrailersAreHeldToTheHeaderLimitAndNeverEndTheProcess) {
  start();
  for (const std::size_t size : {std::size_t{65532}, std::size_t{65534}, std::size_t{65536},
                                 std::size_t{1} << 20}) {
    auto c = client();
    try {
      c.writeRaw(chunkedWithTrailer(size));
      const auto res = c.read();
      EXPECT_EQ(res.status, 431) << "trailer of " << size << " bytes: " << res.body;
    } catch (const std::exception&) {
      // Closed while we were still writing a megabyte: refused all the same.
    }
    ASSERT_TRUE(healthy()) << "the server died after a trailer of " << size << " bytes";
  }
  EXPECT_NE(metrics().find("kind=\"header-too-large\""), std::string::npos);
}

// Many small trailer fields count against the same limit: Beast parses the trailer section only
// once all of it is buffered, so without a bound on the read buffer one connection sending
// trailer lines held every byte of them (270 MB of fields took the RSS to 537 MB). Now the
// section overflows the buffer at the header limit: 431, and what still arrives is discarded.
TEST_F(E2eTest, ManyTrailerFieldsCountAgainstTheHeaderLimitAndTheMemory) {
  auto& server = start();
  const uint64_t before = rssBytes(server.pid());
  auto c = client();
  std::string block;
  for (int i = 0; i < 256; ++i) block.append("X-T: ").append(1000, 'a').append("\r\n");
  try {
    c.writeRaw("POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n");
    for (std::size_t sent = 0; sent < (std::size_t{32} << 20); sent += block.size())
      c.writeRaw(block);  // 32 MiB of trailer fields
    c.writeRaw("\r\n");
    EXPECT_EQ(c.read().status, 431);
  } catch (const std::exception&) {
    // Closed while we were still writing: refused, as it must be.
  }
  ASSERT_TRUE(healthy());
  EXPECT_NE(metrics().find("kind=\"header-too-large\""), std::string::npos);
  if (!kSanitized) {
    EXPECT_LT(rssBytes(server.pid()), before + (std::uint64_t{16} << 20))
        << "trailer bytes were held in memory";
  }
}

}  // namespace
}  // namespace gpua::testing
