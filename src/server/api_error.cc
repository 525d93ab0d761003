#include "server/api_error.h"

#include <utility>

namespace archimedes {

ApiError::ApiError(int code, std::string reason, const std::string& message, std::string field)
    : std::runtime_error(message),
      code_(code),
      reason_(std::move(reason)),
      field_(std::move(field)) {}

nlohmann::json ApiError::ToJson() const {
  return {{"code", code_}, {"reason", reason_}, {"message", what()}, {"field", field_}};
}

ApiError BadRequest(const std::string& message, std::string field) {
  return ApiError(400, "BadRequest", message, std::move(field));
}

ApiError NotFound(const std::string& message) { return ApiError(404, "NotFound", message); }

ApiError Conflict(const std::string& message, std::string field) {
  return ApiError(409, "Conflict", message, std::move(field));
}

ApiError Invalid(const std::string& message, std::string field) {
  return ApiError(422, "Invalid", message, std::move(field));
}

ApiError BodyTooLarge(const std::string& setting, int64_t bytes) {
  return {413, "RequestEntityTooLarge",
          "the request body is larger than " + setting + ", " + std::to_string(bytes) + " bytes"};
}

ApiError Unavailable(const std::string& message) { return ApiError(503, "Unavailable", message); }

ApiError FromJsonError(const JsonError& e) { return BadRequest(e.what(), e.path()); }

}  // namespace archimedes
