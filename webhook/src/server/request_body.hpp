// The request body as a std::string, read the way http::string_body reads it but without
// zero-filling: string_body's reader resize()s the string before copying each piece into it,
// so every byte of every AdmissionReview was written twice (memset, then memcpy). This one
// reserves the announced length once and appends.
#pragma once

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>

#include <cstdint>
#include <string>

namespace gpua::server {

struct RequestBody {
  using value_type = std::string;

  static std::uint64_t size(const value_type& body) { return body.size(); }

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

    void init(const boost::optional<std::uint64_t>& length, boost::system::error_code& ec) {
      ec = {};
      if (!length) return;
      if (*length > body_.max_size()) {
        ec = boost::beast::http::error::buffer_overflow;
        return;
      }
      body_.reserve(static_cast<std::size_t>(*length));  // the parser's body_limit bounds it
    }

    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
      ec = {};
      std::size_t n = 0;
      for (const auto b : boost::beast::buffers_range_ref(buffers)) {
        body_.append(static_cast<const char*>(b.data()), b.size());
        n += b.size();
      }
      return n;
    }

    void finish(boost::system::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

}  // namespace gpua::server
