#include "support/fake_api_server.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <mutex>
#include <thread>

namespace gpua::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;
using tcp = asio::ip::tcp;
using Stream = beast::ssl_stream<beast::tcp_stream>;

namespace {

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

// A self-signed CA:TRUE certificate for 127.0.0.1 / localhost, made in memory.
std::pair<std::string, std::string> makeCertificate() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 86400);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("fake-kube-apiserver"), -1, -1,
                             0);
  X509_set_issuer_name(x, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  for (auto [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"},
                            std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(x, key, EVP_sha256());
  BIO* certBio = BIO_new(BIO_s_mem());
  BIO* keyBio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(certBio, x);
  PEM_write_bio_PrivateKey(keyBio, key, nullptr, nullptr, 0, nullptr, nullptr);
  auto result = std::pair{bioText(certBio), bioText(keyBio)};
  BIO_free(certBio);
  BIO_free(keyBio);
  X509_free(x);
  EVP_PKEY_free(key);
  return result;
}

std::string serialize(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return {sb.GetString(), sb.GetSize()};
}

std::string status(int code, const std::string& reason, const std::string& message) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         message + R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
}

std::map<std::string, std::string> queryOf(std::string_view target) {
  std::map<std::string, std::string> q;
  const auto qm = target.find('?');
  if (qm == std::string_view::npos) return q;
  auto rest = target.substr(qm + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto kv = rest.substr(0, amp);
    const auto eq = kv.find('=');
    q[std::string(kv.substr(0, eq))] =
        eq == std::string_view::npos ? "" : std::string(kv.substr(eq + 1));
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
  }
  return q;
}

struct Event {
  uint64_t rv;
  std::string resource;
  std::string line;  // the whole {"type":...,"object":...}\n
};

}  // namespace

class FakeApiServer::Impl {
 public:
  Impl()
      : io_(std::make_unique<asio::io_context>(1)),
        ssl_(asio::ssl::context::tls_server),
        acceptor_(std::make_unique<tcp::acceptor>(
            *io_, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0})) {
    auto [cert, key] = makeCertificate();
    ca_ = cert;
    ssl_.use_certificate_chain(asio::buffer(cert));
    ssl_.use_private_key(asio::buffer(key), asio::ssl::context::pem);
    asio::co_spawn(*io_, accept(), asio::detached);
    thread_ = std::thread([this] { io_->run(); });
  }

  ~Impl() {
    io_->stop();
    thread_.join();
    acceptor_.reset();
    io_.reset();  // destroys suspended sessions while the TLS context still exists
  }

  uint16_t port() const { return acceptor_->local_endpoint().port(); }
  const std::string& caPem() const { return ca_; }

  // ---- state ----
  mutable std::mutex mu;
  uint64_t rv = 100;
  uint64_t expiredBelow = 0;
  bool http410 = false;
  std::map<std::string, std::map<std::string, std::string>> objects;  // resource -> key -> json
  std::vector<Event> events;
  int dropGeneration = 0;
  bool dropMidEvent = false;
  int bookmarkGeneration = 0;
  std::string token;
  bool reachable = true;
  std::map<std::string, bool> forbidden;
  std::chrono::milliseconds configMapDelay{0};
  std::vector<std::string> log;
  int watches = 0;

  // Stores the object with a fresh resourceVersion and records the event. Caller holds mu.
  void record(const std::string& resource, const std::string& key, const std::string& type,
              rapidjson::Document& obj) {
    ++rv;
    auto& meta = obj["metadata"];
    rapidjson::Value v(std::to_string(rv).c_str(), obj.GetAllocator());
    if (meta.HasMember("resourceVersion"))
      meta["resourceVersion"] = v;
    else
      meta.AddMember("resourceVersion", v, obj.GetAllocator());
    const auto text = serialize(obj);
    if (type == "DELETED")
      objects[resource].erase(key);
    else
      objects[resource][key] = text;
    events.push_back({rv, resource, R"({"type":")" + type + R"(","object":)" + text + "}\n"});
  }

 private:
  asio::awaitable<void> accept() {
    for (;;) {
      tcp::socket socket = co_await acceptor_->async_accept(use_awaitable);
      {
        std::lock_guard lock(mu);
        if (!reachable) continue;  // the socket closes as it goes out of scope
      }
      asio::co_spawn(*io_, session(std::move(socket)), asio::detached);
    }
  }

  asio::awaitable<void> session(tcp::socket socket) {
    Stream stream(std::move(socket), ssl_);
    boost::system::error_code ec;
    co_await stream.async_handshake(asio::ssl::stream_base::server,
                                    asio::redirect_error(use_awaitable, ec));
    if (ec) co_return;
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> req;
      co_await http::async_read(stream, buffer, req, asio::redirect_error(use_awaitable, ec));
      if (ec) co_return;
      const std::string target(req.target());
      std::string auth(req[http::field::authorization]);
      const auto query = queryOf(target);
      const auto path = target.substr(0, target.find('?'));
      const auto resource = path.substr(path.rfind('/') + 1);
      int code = 200;
      std::string body;
      bool watch = false;
      std::chrono::milliseconds delay{0};
      uint64_t fromRv = 0;
      WatchStart start;
      {
        std::lock_guard lock(mu);
        if (!reachable) co_return;  // closes the connection
        log.push_back(std::string(req.method_string()) + " " + target +
                      " token=" + (auth.size() > 7 ? auth.substr(7) : ""));
        // A drop or token change from now on ends this watch, even before its header is out.
        start = {dropGeneration, bookmarkGeneration, token};
        if (!token.empty() && auth != "Bearer " + token) {
          code = 401;
          body = status(401, "Unauthorized", "Unauthorized");
        } else if (path.find("/configmaps") != std::string::npos) {
          body = configMapRequest(std::string(req.method_string()), path, req.body(), code);
          delay = configMapDelay;
        } else if (path != "/api/v1/pods" && path != "/api/v1/namespaces" &&
                   path != "/api/v1/nodes") {
          code = 404;
          body = status(404, "NotFound", "the server could not find the requested resource");
        } else if (forbidden[resource]) {
          code = 403;
          body = status(403, "Forbidden",
                        resource +
                            " is forbidden: User \\\"system:serviceaccount:gpu-admission:"
                            "gpu-admission\\\" cannot list resource \\\"" +
                            resource + "\\\" in API group \\\"\\\" at the cluster scope");
        } else if (query.count("watch")) {
          watch = true;
          fromRv = std::stoull(query.at("resourceVersion"));
          if (fromRv < expiredBelow && http410) {
            watch = false;
            code = 410;
            body = status(410, "Expired", "too old resource version");
          }
        } else {
          body = listPage(resource, query, code);
        }
      }
      if (watch) {
        co_await serveWatch(stream, resource, fromRv, query, start);
        co_return;
      }
      if (delay.count() > 0) {
        asio::steady_timer timer(stream.get_executor(), delay);
        co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
      }
      http::response<http::string_body> res{static_cast<http::status>(code), 11};
      res.set(http::field::content_type, "application/json");
      res.body() = body;
      res.prepare_payload();
      res.keep_alive(req.keep_alive());
      co_await http::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
      if (ec || !req.keep_alive()) co_return;
    }
  }

  // GET/PUT /api/v1/namespaces/<ns>/configmaps/<name>, POST .../configmaps: the apiserver's
  // optimistic concurrency (PUT at another resourceVersion: 409; POST of an existing name: 409).
  // Caller holds mu.
  std::string configMapRequest(const std::string& method, const std::string& path,
                               const std::string& text, int& code) {
    const auto ns = path.substr(18, path.find('/', 18) - 18);  // after "/api/v1/namespaces/"
    rapidjson::Document obj;
    if (method != "GET" && obj.Parse(text.data(), text.size()).HasParseError()) {
      code = 400;
      return status(400, "BadRequest", "invalid JSON");
    }
    const std::string name = method == "POST" ? std::string(obj["metadata"]["name"].GetString())
                                              : path.substr(path.rfind('/') + 1);
    const std::string key = ns + "/" + name;
    auto& stored = objects["configmaps"];
    const auto it = stored.find(key);
    if (method == "GET" || method == "PUT") {
      if (it == stored.end()) {
        code = 404;
        return status(404, "NotFound", "configmaps \"" + name + "\" not found");
      }
      if (method == "GET") return it->second;
      rapidjson::Document old;
      old.Parse(it->second.data(), it->second.size());  // sized: no SSE2 read past the end
      const auto* sent = obj["metadata"].HasMember("resourceVersion")
                             ? obj["metadata"]["resourceVersion"].GetString()
                             : "";
      if (std::string(sent) != old["metadata"]["resourceVersion"].GetString()) {
        code = 409;
        return status(409, "Conflict",
                      "Operation cannot be fulfilled on configmaps \"" + name +
                          "\": the object has been modified");
      }
      record("configmaps", key, "MODIFIED", obj);
      return stored[key];
    }
    if (it != stored.end()) {
      code = 409;
      return status(409, "AlreadyExists", "configmaps \"" + name + "\" already exists");
    }
    code = 201;
    record("configmaps", key, "ADDED", obj);
    return stored[key];
  }

  // Caller holds mu. Continue tokens are "<offset>-<rv>".
  std::string listPage(const std::string& resource, const std::map<std::string, std::string>& q,
                       int& code) {
    std::size_t offset = 0;
    uint64_t listRv = rv;
    if (auto it = q.find("continue"); it != q.end() && !it->second.empty()) {
      const auto dash = it->second.find('-');
      offset = std::stoul(it->second.substr(0, dash));
      listRv = std::stoull(it->second.substr(dash + 1));
      if (listRv < expiredBelow) {
        code = 410;
        return status(410, "Expired", "The provided continue parameter is too old");
      }
    }
    std::size_t limit = q.count("limit") ? std::stoul(q.at("limit")) : 1u << 30;
    const auto& all = objects[resource];
    std::string items;
    std::size_t i = 0, n = 0;
    for (const auto& [key, json] : all) {
      if (i++ < offset) continue;
      if (n == limit) break;
      items += (n++ ? "," : "") + json;
    }
    const bool more = offset + n < all.size();
    std::string meta = R"({"resourceVersion":")" + std::to_string(listRv) + "\"";
    if (more)
      meta += R"(,"continue":")" + std::to_string(offset + n) + "-" + std::to_string(listRv) + "\"";
    const std::string kind = resource == "pods"    ? "PodList"
                             : resource == "nodes" ? "NodeList"
                                                   : "NamespaceList";
    return R"({"kind":")" + kind + R"(","apiVersion":"v1","metadata":)" + meta + R"(},"items":[)" +
           items + "]}";
  }

  struct WatchStart {
    int dropGeneration = 0;
    int bookmarkGeneration = 0;
    std::string token;
  };

  asio::awaitable<void> serveWatch(Stream& stream, const std::string& resource, uint64_t fromRv,
                                   const std::map<std::string, std::string>& q,
                                   const WatchStart& start) {
    http::response<http::empty_body> res{http::status::ok, 11};
    res.set(http::field::content_type, "application/json");
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    boost::system::error_code ec;
    co_await http::async_write_header(stream, sr, asio::redirect_error(use_awaitable, ec));
    if (ec) co_return;
    const int dropGen = start.dropGeneration;
    int bookmarkGen = start.bookmarkGeneration;
    const std::string tok = start.token;
    {
      std::lock_guard lock(mu);
      ++watches;
    }
    struct Count {
      Impl* self;
      ~Count() {
        std::lock_guard lock(self->mu);
        --self->watches;
      }
    } count{this};
    if (fromRv < expiredBelowLocked()) {
      const std::string line = R"({"type":"ERROR","object":)" +
                               status(410, "Expired", "too old resource version") + "}\n";
      co_await asio::async_write(stream, http::make_chunk(asio::buffer(line)),
                                 asio::redirect_error(use_awaitable, ec));
      co_await asio::async_write(stream, http::make_chunk_last(),
                                 asio::redirect_error(use_awaitable, ec));
      co_return;
    }
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::seconds(q.count("timeoutSeconds") ? std::stoi(q.at("timeoutSeconds")) : 3600);
    asio::steady_timer timer(co_await asio::this_coro::executor);
    uint64_t sent = fromRv;
    for (;;) {
      std::vector<std::string> out;
      bool drop = false, midEvent = false;
      {
        std::lock_guard lock(mu);
        drop = dropGeneration != dropGen || tok != token;
        midEvent = dropMidEvent;
        for (const auto& e : events)
          if (e.rv > sent && e.resource == resource) {
            out.push_back(e.line);
            sent = e.rv;
          }
        if (bookmarkGeneration != bookmarkGen) {
          bookmarkGen = bookmarkGeneration;
          out.push_back(
              R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
              std::to_string(rv) + "\"}}}\n");
          sent = std::max(sent, rv);
        }
      }
      if (drop) {
        if (midEvent) {
          const std::string half = R"({"type":"ADDED","object":{"metadata":{"na)";
          co_await asio::async_write(stream, http::make_chunk(asio::buffer(half)),
                                     asio::redirect_error(use_awaitable, ec));
        }
        beast::get_lowest_layer(stream).socket().close(ec);
        co_return;
      }
      for (const auto& line : out) {
        // Split each event over two chunks: clients must reassemble lines, not chunks.
        const auto half = line.size() / 2;
        co_await asio::async_write(stream, http::make_chunk(asio::buffer(line.data(), half)),
                                   asio::redirect_error(use_awaitable, ec));
        if (ec) co_return;
        co_await asio::async_write(
            stream, http::make_chunk(asio::buffer(line.data() + half, line.size() - half)),
            asio::redirect_error(use_awaitable, ec));
        if (ec) co_return;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        co_await asio::async_write(stream, http::make_chunk_last(),
                                   asio::redirect_error(use_awaitable, ec));
        co_return;
      }
      timer.expires_after(std::chrono::milliseconds(5));
      co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
    }
  }

  uint64_t expiredBelowLocked() {
    std::lock_guard lock(mu);
    return expiredBelow;
  }

  std::unique_ptr<asio::io_context> io_;
  asio::ssl::context ssl_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  std::string ca_;
  std::thread thread_;
};

FakeApiServer::FakeApiServer() : impl_(std::make_unique<Impl>()) {}
FakeApiServer::~FakeApiServer() = default;

uint16_t FakeApiServer::port() const {
  return impl_->port();
}
const std::string& FakeApiServer::caPem() const {
  return impl_->caPem();
}

void FakeApiServer::upsertPod(const std::string& podJson) {
  rapidjson::Document d;
  d.Parse(podJson.data(), podJson.size());
  const std::string ns =
      d["metadata"].HasMember("namespace") ? d["metadata"]["namespace"].GetString() : "default";
  const std::string key = ns + "/" + d["metadata"]["name"].GetString();
  std::lock_guard lock(impl_->mu);
  const bool exists = impl_->objects["pods"].count(key) > 0;
  impl_->record("pods", key, exists ? "MODIFIED" : "ADDED", d);
}

void FakeApiServer::deletePod(const std::string& ns, const std::string& name) {
  std::lock_guard lock(impl_->mu);
  auto& pods = impl_->objects["pods"];
  auto it = pods.find(ns + "/" + name);
  if (it == pods.end()) return;
  rapidjson::Document d;
  d.Parse(it->second.data(), it->second.size());  // sized: no SSE2 read past the end
  impl_->record("pods", it->first, "DELETED", d);
}

void FakeApiServer::upsertNamespace(const std::string& name,
                                    const std::map<std::string, std::string>& labels) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType), l(rapidjson::kObjectType);
  meta.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  meta.AddMember("uid", rapidjson::Value(("ns-" + name).c_str(), a), a);
  for (const auto& [k, v] : labels)
    l.AddMember(rapidjson::Value(k.c_str(), a), rapidjson::Value(v.c_str(), a), a);
  meta.AddMember("labels", l, a);
  d.AddMember("metadata", meta, a);
  std::lock_guard lock(impl_->mu);
  const bool exists = impl_->objects["namespaces"].count(name) > 0;
  impl_->record("namespaces", name, exists ? "MODIFIED" : "ADDED", d);
}

void FakeApiServer::deleteNamespace(const std::string& name) {
  std::lock_guard lock(impl_->mu);
  auto& all = impl_->objects["namespaces"];
  auto it = all.find(name);
  if (it == all.end()) return;
  rapidjson::Document d;
  d.Parse(it->second.data(), it->second.size());  // sized: no SSE2 read past the end
  impl_->record("namespaces", name, "DELETED", d);
}

void FakeApiServer::upsertNode(const std::string& nodeJson) {
  rapidjson::Document d;
  d.Parse(nodeJson.data(), nodeJson.size());
  const std::string name = d["metadata"]["name"].GetString();
  std::lock_guard lock(impl_->mu);
  const bool exists = impl_->objects["nodes"].count(name) > 0;
  impl_->record("nodes", name, exists ? "MODIFIED" : "ADDED", d);
}

void FakeApiServer::deleteNode(const std::string& name) {
  std::lock_guard lock(impl_->mu);
  auto& all = impl_->objects["nodes"];
  auto it = all.find(name);
  if (it == all.end()) return;
  rapidjson::Document d;
  d.Parse(it->second.data(), it->second.size());  // sized: no SSE2 read past the end
  impl_->record("nodes", name, "DELETED", d);
}

std::string FakeApiServer::resourceVersion() const {
  std::lock_guard lock(impl_->mu);
  return std::to_string(impl_->rv);
}

void FakeApiServer::bookmark() {
  std::lock_guard lock(impl_->mu);
  ++impl_->bookmarkGeneration;
}

void FakeApiServer::compact(bool http410) {
  std::lock_guard lock(impl_->mu);
  impl_->expiredBelow = impl_->rv;
  impl_->http410 = http410;
}

void FakeApiServer::dropWatches(bool midEvent) {
  std::lock_guard lock(impl_->mu);
  ++impl_->dropGeneration;
  impl_->dropMidEvent = midEvent;
}

void FakeApiServer::setToken(const std::string& token) {
  std::lock_guard lock(impl_->mu);
  impl_->token = token;
}

void FakeApiServer::setReachable(bool reachable) {
  std::lock_guard lock(impl_->mu);
  impl_->reachable = reachable;
  if (!reachable) ++impl_->dropGeneration;
}

void FakeApiServer::setForbidden(const std::string& resource, bool forbidden) {
  std::lock_guard lock(impl_->mu);
  impl_->forbidden[resource] = forbidden;
}

void FakeApiServer::setConfigMapDelay(std::chrono::milliseconds delay) {
  std::lock_guard lock(impl_->mu);
  impl_->configMapDelay = delay;
}

std::vector<std::string> FakeApiServer::requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->log;
}

int FakeApiServer::count(const std::string& needle) const {
  int n = 0;
  for (const auto& r : requests())
    if (r.find(needle) != std::string::npos) ++n;
  return n;
}

int FakeApiServer::openWatches() const {
  std::lock_guard lock(impl_->mu);
  return impl_->watches;
}

}  // namespace gpua::testing
