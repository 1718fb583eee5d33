#include "server/router.hpp"

#include <gtest/gtest.h>

namespace gpua::server {
namespace {

HttpRequest req(std::string method, std::string target) {
  HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.path = pathOf(r.target);
  return r;
}

Router makeRouter() {
  Router router;
  router.add("POST", "/mutate", [](const HttpRequest& r) {
    HttpResponse res;
    res.body = "mutate:" + r.target;
    return res;
  });
  router.add("GET", "/healthz", [](const HttpRequest&) { return HttpResponse::text(200, "ok"); });
  return router;
}

TEST(Router, DispatchesByPathIgnoringTheQuery) {
  const auto res = makeRouter().route(req("POST", "/mutate?timeout=10s"));
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, "mutate:/mutate?timeout=10s");
  EXPECT_TRUE(res.errorKind.empty());
}

TEST(Router, UnknownPathIs404NamingThePath) {
  const auto res = makeRouter().route(req("POST", "/mutat"));
  EXPECT_EQ(res.status, 404);
  EXPECT_EQ(res.errorKind, "unknown-path");
  EXPECT_NE(res.body.find("\"/mutat\""), std::string::npos);
}

TEST(Router, WrongMethodIs405WithAllowHeader) {
  const auto res = makeRouter().route(req("GET", "/mutate"));
  EXPECT_EQ(res.status, 405);
  EXPECT_EQ(res.errorKind, "method-not-allowed");
  ASSERT_EQ(res.headers.size(), 1u);
  EXPECT_EQ(res.headers[0].first, "Allow");
  EXPECT_EQ(res.headers[0].second, "POST");
}

TEST(Router, LaterRegistrationReplacesEarlier) {
  Router router = makeRouter();
  router.add("GET", "/healthz", [](const HttpRequest&) { return HttpResponse::text(503, "no"); });
  EXPECT_EQ(router.route(req("GET", "/healthz")).status, 503);
}

TEST(HttpResponse, TextIsOneLineEndingInNewline) {
  const auto res = HttpResponse::text(400, "bad thing", "bad");
  EXPECT_EQ(res.body, "bad thing\n");
  EXPECT_EQ(res.contentType, "text/plain; charset=utf-8");
  EXPECT_EQ(res.errorKind, "bad");
}

}  // namespace
}  // namespace gpua::server
