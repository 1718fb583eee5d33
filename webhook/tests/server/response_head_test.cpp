// The response head the server writes itself, byte for byte against Beast's serializer for the
// same response: every status the server sends, extra fields, keep-alive or not, empty bodies.
#include "server/response_head.hpp"

#include <gtest/gtest.h>

#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http.hpp>

#include <string>
#include <utility>
#include <vector>

namespace gpua::server {
namespace {

namespace http = boost::beast::http;
using Fields = std::vector<std::pair<std::string, std::string>>;

// What Beast writes before the body of the response the server used to build.
std::string beastHead(int status, std::string_view contentType, const Fields& fields,
                      bool keepAlive, const std::string& body) {
  http::response<http::string_body> res;
  res.result(static_cast<unsigned>(status));
  res.version(11);
  res.set(http::field::content_type, contentType);
  for (const auto& [k, v] : fields) res.set(k, v);
  res.body() = body;
  res.keep_alive(keepAlive);
  res.prepare_payload();
  http::response_serializer<http::string_body> sr(res);
  sr.split(true);
  std::string head;
  boost::system::error_code ec;
  while (!sr.is_header_done()) {
    sr.next(ec, [&](boost::system::error_code&, const auto& buffers) {
      head += boost::beast::buffers_to_string(buffers);
      sr.consume(boost::asio::buffer_size(buffers));
    });
  }
  return head;
}

TEST(ResponseHead, IsWhatBeastWritesForTheSameResponse) {
  const Fields none;
  const Fields retry = {{"Retry-After", "1"}};
  const Fields allow = {{"Allow", "GET, POST"}, {"X-Extra", "v"}};
  for (int status : {200, 400, 403, 404, 405, 413, 415, 431, 500, 503}) {
    for (bool keepAlive : {true, false}) {
      for (const auto* fields : {&none, &retry, &allow}) {
        for (const std::string& body : std::vector<std::string>{"", "x", std::string(7613, 'b')}) {
          SCOPED_TRACE(std::to_string(status) + (keepAlive ? " keep-alive " : " close ") +
                       std::to_string(fields->size()) + " fields, body " +
                       std::to_string(body.size()));
          std::string mine;
          appendResponseHead(mine, status, "application/json", *fields, keepAlive, body.size());
          EXPECT_EQ(mine, beastHead(status, "application/json", *fields, keepAlive, body));
        }
      }
    }
  }
  std::string text;
  appendResponseHead(text, 200, "text/plain; version=0.0.4; charset=utf-8", none, true, 3);
  EXPECT_EQ(text, beastHead(200, "text/plain; version=0.0.4; charset=utf-8", none, true, "abc"));
}

}  // namespace
}  // namespace gpua::server
