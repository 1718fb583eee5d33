#include "admission/review.hpp"

#include <exception>

#include "admission/request_parser.hpp"
#include "admission/response_writer.hpp"
#include "admission/text_sanitizer.hpp"

namespace gpua::admission {

namespace {

// Per-thread arena for the parsed document: a typical pod review fits, so the hot path makes
// no allocation for JSON values; bigger bodies spill into heap chunks freed after the request.
constexpr std::size_t kArenaBytes = 64 * 1024;
alignas(16) thread_local char tArena[kArenaBytes];

// Room for the SIMD slack the parser wants (see depth_limited_parse.hpp): one allocation.
constexpr std::size_t kSimdPadding = 32;
constexpr std::size_t kKeepBufferBytes = 256 * 1024;
// RapidJSON's default for a document's parse stack.
constexpr std::size_t kParseStackBytes = 1024;

ReviewResult& fail(ReviewResult& r, int status, RequestError e) {
  r.httpStatus = status;
  r.errorKind = std::move(e.kind);
  r.body = std::move(e.message);
  return r;
}

// Moves: the request is done with once the response is written (uid and names are often
// longer than the short-string buffer, so copies would allocate).
void recordFacts(ReviewResult& r, AdmissionRequest&& req) {
  r.uid = std::move(req.uid);
  r.namespaceName = std::move(req.context.namespaceName);
  r.name = std::move(req.name);
  r.kind = std::move(req.kind);
  r.group = std::move(req.group);
  r.operation = std::move(req.operation);
  r.userName = std::move(req.context.userName);
  r.dryRun = req.context.dryRun;
}

RequestError internalError(const std::string& uid, std::string_view what) {
  return {"internal-error",
          "internal error deciding request " + uid + ": " + sanitizeLine(what, 512)};
}

// The codec around one decision call; `decide` is called with the request's object and context.
template <typename Decide>
ReviewResult reviewWith(std::string_view requestBody, Endpoint endpoint,
                        const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                        ReviewReader reader, const Decide& decide) {
  ReviewResult r;
  // Per thread like the arena: it keeps its capacity, so the copy allocates nothing once warm.
  // A rare huge request must not pin its size per thread: such a buffer is dropped next time.
  thread_local std::string buffer;
  if (buffer.capacity() > kKeepBufferBytes) std::string().swap(buffer);
  buffer.reserve(requestBody.size() + kSimdPadding);
  buffer.assign(requestBody);
  // The allocator is declared before the document: the document's values live in it.
  rapidjson::MemoryPoolAllocator<> arena(tArena, kArenaBytes);
  // The document's parse stack gets its allocator here: left to itself it allocates one per
  // document.
  rapidjson::CrtAllocator stackAllocator;
  rapidjson::Document doc(&arena, kParseStackBytes, &stackAllocator);
  if (auto e = parseJsonInSitu(buffer, doc, reader)) return fail(r, 400, std::move(*e));

  auto parsed = readAdmissionRequest(doc, usage);
  if (auto* e = std::get_if<RequestError>(&parsed)) return fail(r, 400, std::move(*e));
  auto& req = std::get<AdmissionRequest>(parsed);
  req.context.patchApplied = endpoint != Endpoint::Validate;

  if (routesToEngine(req, policy)) {
    std::optional<RequestError> failure;
    try {
      r.decision = decide(*req.object, req.context);
    } catch (const std::exception& e) {
      failure = internalError(req.uid, e.what());
    } catch (...) {
      failure = internalError(req.uid, "unknown exception");
    }
    if (failure) {
      recordFacts(r, std::move(req));
      return fail(r, 500, std::move(*failure));
    }
  }
  r.body = writeResponse(req.uid, r.decision ? &*r.decision : nullptr, endpoint);
  recordFacts(r, std::move(req));
  return r;
}

}  // namespace

ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage) {
  return review(requestBody, endpoint, policy, usage, engine::noSupply());
}

ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                    DecideFn decide) {
  return reviewWith(requestBody, endpoint, policy, usage, ReviewReader::ScannedDocument,
                    [&](const rapidjson::Value& object, const engine::RequestContext& context) {
                      return decide(object, context, policy, usage);
                    });
}

ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                    const engine::SupplySnapshot& supply, ReviewReader reader) {
  return reviewWith(requestBody, endpoint, policy, usage, reader,
                    [&](const rapidjson::Value& object, const engine::RequestContext& context) {
                      return engine::decide(object, context, policy, usage, supply);
                    });
}

}  // namespace gpua::admission
