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

// Copies into strings the result keeps from request to request: no allocation once warm.
void recordFacts(ReviewResult& r, const AdmissionRequest& req) {
  r.uid = req.uid;
  r.namespaceName = req.context.namespaceName;
  r.name = req.name;
  r.kind = req.kind;
  r.group = req.group;
  r.operation = req.operation;
  r.userName = req.context.userName;
  r.dryRun = req.context.dryRun;
}

// The memory of the last decision made on this thread: the next one is made into it.
thread_local engine::Decision tSpareDecision;

// What a result holds before a request is read into it; strings keep their capacity, and its
// decision's memory goes to the spare the next decision is made into (a move: no copy).
void reset(ReviewResult& r) {
  r.httpStatus = 200;
  for (std::string* s : {&r.body, &r.errorKind, &r.uid, &r.namespaceName, &r.name, &r.kind,
                         &r.operation, &r.group, &r.userName})
    s->clear();
  r.dryRun = false;
  if (r.decision) tSpareDecision = std::move(*r.decision);
  r.decision.reset();
}

RequestError internalError(const std::string& uid, std::string_view what) {
  return {"internal-error",
          "internal error deciding request " + uid + ": " + sanitizeLine(what, 512)};
}

// The codec around one decision call; `decide` is called with the request's object and context
// and the Decision to decide into.
template <typename Decide>
void reviewWith(std::string_view requestBody, Endpoint endpoint, const policy::PolicySet& policy,
                const engine::UsageSnapshot& usage, ReviewReader reader, const Decide& decide,
                ReviewResult& r) {
  reset(r);
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
  if (auto e = parseJsonInSitu(buffer, doc, reader)) {
    fail(r, 400, std::move(*e));
    return;
  }

  // Per thread too, its strings reused; it points into this request's document only. Like the
  // arena and tSpareDecision, this makes review() non-reentrant on one thread: a decide
  // function must not call review() (none does; the quota reservation reviews again only after
  // the first review returned).
  thread_local AdmissionRequest req;
  if (auto e = readAdmissionRequest(doc, usage, req)) {
    fail(r, 400, std::move(*e));
    return;
  }
  req.context.patchApplied = endpoint != Endpoint::Validate;

  if (routesToEngine(req, policy)) {
    std::optional<RequestError> failure;
    try {
      decide(*req.object, req.context, tSpareDecision);
      r.decision = std::move(tSpareDecision);
    } catch (const std::exception& e) {
      failure = internalError(req.uid, e.what());
    } catch (...) {
      failure = internalError(req.uid, "unknown exception");
    }
    if (failure) {
      recordFacts(r, req);
      fail(r, 500, std::move(*failure));
      return;
    }
  }
  writeResponse(req.uid, r.decision ? &*r.decision : nullptr, endpoint, r.body);
  recordFacts(r, req);
}

}  // namespace

ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage) {
  return review(requestBody, endpoint, policy, usage, engine::noSupply());
}

ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                    DecideFn decide) {
  ReviewResult r;
  reviewWith(
      requestBody, endpoint, policy, usage, ReviewReader::ScannedDocument,
      [&](const rapidjson::Value& object, const engine::RequestContext& context,
          engine::Decision& into) { into = decide(object, context, policy, usage); },
      r);
  return r;
}

ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                    const engine::SupplySnapshot& supply, ReviewReader reader) {
  ReviewResult r;
  review(requestBody, endpoint, policy, usage, supply, r, reader);
  return r;
}

void review(std::string_view requestBody, Endpoint endpoint, const policy::PolicySet& policy,
            const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply,
            ReviewResult& into, ReviewReader reader) {
  reviewWith(
      requestBody, endpoint, policy, usage, reader,
      [&](const rapidjson::Value& object, const engine::RequestContext& context,
          engine::Decision& decision) {
        engine::decide(object, context, policy, usage, supply, decision);
      },
      into);
}

}  // namespace gpua::admission
