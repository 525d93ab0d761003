// The API's one error shape (docs/api.md): every failed request answers
//
//   {"code": 422, "reason": "Invalid", "message": "...", "field": "spec.requests.cpu"}
//
// `code` is the HTTP status, `reason` a stable word a client can branch on, `message` names the
// input and the problem, `field` the JSON path of the value at fault (empty when none is).
// Handlers throw ApiError; the router turns it into the response. A request that fails changes
// nothing.
#ifndef ARCHIMEDES_SERVER_API_ERROR_H_
#define ARCHIMEDES_SERVER_API_ERROR_H_

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "trace/json_reader.h"

namespace archimedes {

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, const std::string& message, std::string field = "");

  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const std::string& field() const { return field_; }
  nlohmann::json ToJson() const;

 private:
  int code_;
  std::string reason_;
  std::string field_;
};

// 400: the body is not a well-formed object of its kind (syntax, unknown field, wrong type).
ApiError BadRequest(const std::string& message, std::string field = "");
// 404: the named object does not exist.
ApiError NotFound(const std::string& message);
// 409: the object exists already, or changed since the client read it (resourceVersion).
ApiError Conflict(const std::string& message, std::string field = "");
// 422: well-formed but impossible (a task no node can hold, a change to an immutable field).
ApiError Invalid(const std::string& message, std::string field = "");
// 413: a body over `setting` (max-body, max-priors-body), `bytes` long at most.
ApiError BodyTooLarge(const std::string& setting, int64_t bytes);
// 503: not ready to serve this yet (state still being restored).
ApiError Unavailable(const std::string& message);

// A JsonError of a request body, as a 400 naming its field.
ApiError FromJsonError(const JsonError& e);

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_API_ERROR_H_
