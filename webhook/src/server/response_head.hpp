// The status line and header fields of a response, written as Beast's serializer writes them for
// an http::response<string_body> given the same status, Content-Type, extra fields, keep-alive
// and body size (HTTP/1.1; "Connection: close" when not kept alive; Content-Length last), into a
// buffer the connection reuses: no fields container, no allocation per response once warm.
// tests/server/response_head_test.cpp holds it to Beast's bytes.
#pragma once

#include <boost/beast/http/status.hpp>

#include <charconv>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpua::server {

inline void appendResponseHead(std::string& out, int status, std::string_view contentType,
                               const std::vector<std::pair<std::string, std::string>>& fields,
                               bool keepAlive, std::size_t contentLength) {
  namespace http = boost::beast::http;
  char digits[24];
  auto number = [&](std::size_t n) {
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    out.append(digits, static_cast<std::size_t>(end - digits));
  };
  out += "HTTP/1.1 ";
  number(static_cast<std::size_t>(status));
  out += ' ';
  const auto reason = http::obsolete_reason(http::int_to_status(static_cast<unsigned>(status)));
  out.append(reason.data(), reason.size());
  out += "\r\nContent-Type: ";
  out += contentType;
  out += "\r\n";
  for (const auto& [name, value] : fields) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (!keepAlive) out += "Connection: close\r\n";
  out += "Content-Length: ";
  number(contentLength);
  out += "\r\n\r\n";
}

}  // namespace gpua::server
