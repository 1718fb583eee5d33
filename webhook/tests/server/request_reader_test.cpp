// RequestReader against Beast's own request_parser: the same bytes, fed in every split, give the
// same method, target, version, the fields the server reads, body, keep-alive and verdict.
#include "server/request_reader.hpp"

#include <gtest/gtest.h>

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpua::server {
namespace {

namespace http = boost::beast::http;
using error_code = boost::beast::error_code;

struct Reading {
  std::string method, target, contentType, contentEncoding, expect, body;
  int version = 0;
  bool keepAlive = false;
  bool done = false;
  error_code ec;
};

// Feeds `text` to `parser` in two pieces split at `split`, as the session's loop does: what the
// parser leaves unused is offered again with the next piece.
template <typename Parser>
error_code feed(Parser& parser, std::string_view text, std::size_t split) {
  parser.body_limit(1 << 20);
  std::string pending;
  for (const std::string_view piece : {text.substr(0, split), text.substr(split)}) {
    pending.append(piece);
    while (!parser.is_done() && !pending.empty()) {
      error_code ec;
      const std::size_t used =
          parser.put(boost::asio::const_buffer(pending.data(), pending.size()), ec);
      pending.erase(0, used);
      if (ec == http::error::need_more) break;
      if (ec) return ec;
      if (used == 0) break;
    }
  }
  if (!parser.is_done() && parser.got_some()) {
    error_code ec;
    parser.put_eof(ec);
    return ec;
  }
  return {};
}

Reading byBeast(std::string_view text, std::size_t split) {
  http::request_parser<http::string_body> parser;
  Reading r;
  r.ec = feed(parser, text, split);
  r.done = parser.is_done();
  if (!parser.is_header_done()) return r;
  const auto& m = parser.get();
  r.method = std::string(m.method_string());
  r.target = std::string(m.target());
  r.version = m.version();
  r.contentType = std::string(m[http::field::content_type]);
  r.contentEncoding = std::string(m[http::field::content_encoding]);
  r.expect = std::string(m[http::field::expect]);
  // The parser's reading of Connection, which the server uses: every Connection field counts
  // (RFC 9112 9.6). The message's own keep_alive() reads only the first (what the server used
  // before RequestReader): "Connection: keep-alive" then "Connection: close" kept it open.
  r.keepAlive = parser.keep_alive();
  if (r.done) r.body = m.body();
  return r;
}

Reading byReader(std::string_view text, std::size_t split, HttpRequest& req) {
  RequestReader parser(req);
  Reading r;
  r.ec = feed(parser, text, split);
  r.done = parser.is_done();
  if (!parser.is_header_done()) return r;
  r.method = req.method;
  r.target = req.target;
  r.version = parser.version();
  r.contentType = req.contentType;
  r.contentEncoding = req.contentEncoding;
  r.expect = std::string(parser.expect());
  r.keepAlive = parser.keep_alive();
  if (r.done) r.body = req.body;
  return r;
}

const std::vector<std::string> kRequests = {
    "POST /mutate?timeout=10s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    "Content-Length: 11\r\n\r\n{\"a\":\"bc\"}\n",
    // Repeated fields: the first one counts. Case-insensitive names, a custom method.
    "PATCH /validate HTTP/1.1\r\ncontent-type: text/plain\r\nCONTENT-TYPE: application/json\r\n"
    "Content-Encoding: gzip\r\ncontent-encoding: br\r\nContent-Length: 0\r\n\r\n",
    "FROB /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
    // Keep-alive in each version.
    "GET /healthz HTTP/1.0\r\n\r\n",
    "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n",
    "GET /healthz HTTP/1.1\r\nConnection: upgrade, Close\r\n\r\n",
    "GET /healthz HTTP/1.1\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n",
    // Expect, once and twice.
    "POST /mutate HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
    "POST /mutate HTTP/1.1\r\nexpect: 100-Continue\r\nExpect: other\r\nContent-Length: 2\r\n\r\n{}",
    // Chunked, with extensions and trailers.
    "POST /mutate HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
    "3;ext=1\r\n{\"a\r\n5\r\n\":1}\n\r\n0\r\nTrailer-Field: v\r\n\r\n",
    // Refusals: a bad version, a bad field, two lengths, a body over the limit, a cut body.
    "POST /mutate HTTP/2.0\r\n\r\n",
    "POST /mutate HTTP/1.1\r\nBad Field: x\r\n\r\n",
    "POST /mutate HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    "POST /mutate HTTP/1.1\r\nContent-Length: 2000000\r\n\r\nab",
    "POST /mutate HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc",
    "",
};

TEST(RequestReader, ReadsWhatBeastsRequestParserReadsAtEverySplit) {
  HttpRequest req;  // one for all, as a connection keeps one: nothing may leak between requests
  for (const auto& text : kRequests) {
    for (std::size_t split = 0; split <= text.size(); ++split) {
      const Reading want = byBeast(text, split);
      const Reading got = byReader(text, split, req);
      const auto where = ::testing::Message()
                         << "request " << ::testing::PrintToString(text) << " split at " << split;
      EXPECT_EQ(got.ec, want.ec) << where;
      EXPECT_EQ(got.done, want.done) << where;
      EXPECT_EQ(got.method, want.method) << where;
      EXPECT_EQ(got.target, want.target) << where;
      EXPECT_EQ(got.version, want.version) << where;
      EXPECT_EQ(got.contentType, want.contentType) << where;
      EXPECT_EQ(got.contentEncoding, want.contentEncoding) << where;
      EXPECT_EQ(got.expect, want.expect) << where;
      EXPECT_EQ(got.keepAlive, want.keepAlive) << where;
      EXPECT_EQ(got.body, want.body) << where;
    }
  }
}

TEST(RequestReader, ANewRequestStartsEmptyAndKeepsTheStringsCapacity) {
  HttpRequest req;
  const std::string first =
      "POST /mutate HTTP/1.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
      "Content-Length: 40\r\n\r\n" +
      std::string(40, 'x');
  ASSERT_FALSE(byReader(first, first.size(), req).ec);
  const std::size_t capacity = req.body.capacity();
  const std::string second = "GET /healthz HTTP/1.1\r\n\r\n";
  const Reading r = byReader(second, second.size(), req);
  EXPECT_FALSE(r.ec);
  EXPECT_EQ(req.contentType, "");
  EXPECT_EQ(req.contentEncoding, "");
  EXPECT_EQ(req.body, "");
  EXPECT_EQ(req.body.capacity(), capacity);
}

}  // namespace
}  // namespace gpua::server
