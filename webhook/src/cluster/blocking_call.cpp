#include "cluster/blocking_call.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>

namespace gpua::cluster {

ApiResponse callBlocking(ApiClient& client, const std::string& method, const std::string& target,
                         std::string body, std::chrono::milliseconds timeout) {
  namespace asio = boost::asio;
  asio::io_context io(1);
  ApiResponse response;
  std::exception_ptr failure;
  asio::co_spawn(io, client.send(method, target, std::move(body), timeout),
                 [&](std::exception_ptr e, ApiResponse r) {
                   failure = e;
                   response = std::move(r);
                 });
  io.run();
  if (!failure) return response;
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return {0, e.what()};
  }
}

}  // namespace gpua::cluster
