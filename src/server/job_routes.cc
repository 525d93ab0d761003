// /v1/jobs: batch and serverless jobs. POST submits one (201 with its name, `job-<n>`); with an
// Idempotency-Key header a retry of the same request answers 200 with the job it created, never a
// second job. DELETE cancels: running tasks stop, pending ones are given up.
#include "server/api_error.h"
#include "server/router.h"

namespace archimedes {
namespace {

constexpr size_t kMaxKeyLength = 255;

std::string IdempotencyKey(const httplib::Request& r) {
  if (r.get_header_value_count("Idempotency-Key") > 1) {
    throw BadRequest("Idempotency-Key is given more than once", "Idempotency-Key");
  }
  std::string key = r.get_header_value("Idempotency-Key");
  if (key.size() > kMaxKeyLength) {
    throw BadRequest(
        "Idempotency-Key is longer than " + std::to_string(kMaxKeyLength) + " characters",
        "Idempotency-Key");
  }
  for (char c : key) {
    if (c < 0x21 || c > 0x7e) {
      throw BadRequest("Idempotency-Key may hold printable ASCII characters only",
                       "Idempotency-Key");
    }
  }
  return key;
}

}  // namespace

void AddJobRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/jobs", "/v1/jobs", [&context](const httplib::Request& r) {
    const std::string phase = r.get_param_value("phase");
    return Reply{200, context.Read([&](const ControlPlane& p) { return p.ListJobs(phase); })};
  });
  router.Get(R"(/v1/jobs/([^/]+))", "/v1/jobs/{name}", [&context](const httplib::Request& r) {
    return Reply{200, context.Read([&](const ControlPlane& p) { return p.GetJob(PathName(r)); })};
  });
  router.Post("/v1/jobs", "/v1/jobs", [&context](const httplib::Request& r) {
    return context.Mutate(
        {.kind = EventKind::kSubmitJob, .body = r.body, .idempotency_key = IdempotencyKey(r)});
  });
  router.Delete(R"(/v1/jobs/([^/]+))", "/v1/jobs/{name}", [&context](const httplib::Request& r) {
    return context.Mutate({.kind = EventKind::kCancelJob, .target = PathName(r)});
  });
}

}  // namespace archimedes
