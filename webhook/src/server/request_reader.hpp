// One HTTP request read by Beast's parser (framing, limits, validation: basic_parser) into the
// connection's own HttpRequest, keeping of the header only what the server reads: the method,
// the target, Content-Type, Content-Encoding and Expect. Beast's request_parser builds a
// fields container instead, an allocation and an ordered insert per header line and a search
// per look-up; the server read three of its fields. Semantics are request_parser's: the first
// of repeated fields counts (what message[field] gave), keep-alive is the parser's own reading
// of Connection and the version (what message::keep_alive() gives for a request), the body is
// RequestBody's (reserved once from Content-Length, appended, chunked bodies too).
//
// Beast's parsers serve one message each: the session makes a new reader per request; the
// strings it fills belong to the connection and keep their capacity.
#pragma once

#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/optional.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "server/http_types.hpp"

namespace gpua::server {

class RequestReader : public boost::beast::http::basic_parser<true> {
 public:
  using error_code = boost::beast::error_code;
  using string_view = boost::beast::string_view;
  using field = boost::beast::http::field;

  // Fills `req`'s method, target, content type and encoding and body, each cleared first (their
  // capacity kept); the rest of `req` is the caller's.
  explicit RequestReader(HttpRequest& req) : req_(req), body_(req.body) {
    req_.method.clear();
    req_.target.clear();
    req_.contentType.clear();
    req_.contentEncoding.clear();
    body_.clear();
  }

  int version() const { return version_; }
  // The first Expect field's value; empty when there is none.
  std::string_view expect() const { return expect_; }

 private:
  static std::string_view view(string_view s) { return {s.data(), s.size()}; }

  void on_request_impl(boost::beast::http::verb, string_view method, string_view target,
                       int version, error_code&) override {
    req_.method.assign(view(method));
    req_.target.assign(view(target));
    version_ = version;
  }

  void on_response_impl(int, string_view, int, error_code&) override {}  // never: a request

  // Only the first of a repeated field counts, as message[field] returned it.
  void on_field_impl(field name, string_view, string_view value, error_code&) override {
    switch (name) {
      case field::content_type:
        if (!haveContentType_) req_.contentType.assign(view(value));
        haveContentType_ = true;
        return;
      case field::content_encoding:
        if (!haveContentEncoding_) req_.contentEncoding.assign(view(value));
        haveContentEncoding_ = true;
        return;
      case field::expect:
        if (!haveExpect_) expect_.assign(view(value));
        haveExpect_ = true;
        return;
      default:
        return;
    }
  }

  void on_header_impl(error_code&) override {}

  // RequestBody's reader: the announced length reserved once (body_limit bounds it).
  void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code& ec) override {
    if (!length) return;
    if (*length > body_.max_size()) {
      ec = boost::beast::http::error::buffer_overflow;
      return;
    }
    body_.reserve(static_cast<std::size_t>(*length));
  }

  std::size_t on_body_impl(string_view body, error_code&) override {
    body_.append(body.data(), body.size());
    return body.size();
  }

  void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}

  std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code&) override {
    body_.append(body.data(), body.size());
    return body.size();
  }

  void on_finish_impl(error_code&) override {}

  HttpRequest& req_;
  std::string& body_;
  std::string expect_;
  int version_ = 0;
  bool haveContentType_ = false;
  bool haveContentEncoding_ = false;
  bool haveExpect_ = false;
};

}  // namespace gpua::server
