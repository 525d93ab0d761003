// The service's request bodies (docs/api.md): a node, a service, a job, a container status, a
// usage batch, a node's status, a clock advance, the engine's priors. The first byte picks the
// decoder, the rest is the body. Broken input ends in an ApiError (the one error shape, 4xx) and
// nothing else; a body that is accepted must come back the same through its encoder, as a client
// reading an object and writing it back expects.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_input.h"
#include "server/api_error.h"
#include "server/objects.h"

namespace archimedes {
namespace {

// Decoding `spec` wrapped as a body again gives the same spec.
template <typename Decode, typename Encode>
void ExpectRoundTrip(const nlohmann::json& spec, Decode decode, Encode encode) {
  const nlohmann::json again = encode(decode(nlohmann::json{{"spec", spec}}.dump()));
  if (again != spec) std::abort();
}

void Decode(uint8_t which, const std::string& body) {
  switch (which % 8) {
    case 0: {
      const NodeRequest r = DecodeNode("node-a", body);
      ExpectRoundTrip(
          EncodeNodeSpec(r.node), [](const std::string& b) { return DecodeNode("node-a", b); },
          [](const NodeRequest& again) { return EncodeNodeSpec(again.node); });
      break;
    }
    case 1: {
      const ServiceRequest r = DecodeService("web", body);
      ExpectRoundTrip(
          EncodeServiceSpec(r.service),
          [](const std::string& b) { return DecodeService("web", b); },
          [](const ServiceRequest& again) { return EncodeServiceSpec(again.service); });
      break;
    }
    case 2: {
      const JobRequest r = DecodeJob("job-0", body);
      ExpectRoundTrip(
          EncodeJobSpec(r.job, r.give_up_after_s),
          [](const std::string& b) { return DecodeJob("job-0", b); },
          [](const JobRequest& again) { return EncodeJobSpec(again.job, again.give_up_after_s); });
      break;
    }
    case 3:
      DecodeContainerStatus(body);
      break;
    case 4:
      DecodeUsage(body);
      break;
    case 5:
      DecodeNodeStatus("node-a", body);
      break;
    case 6:
      DecodeClock(body, 1000);
      break;
    default: {
      const PriorsRequest r = DecodePriors(body);
      const nlohmann::json encoded = EncodePriors(r.profiles, r.task_shapes);
      const PriorsRequest again = DecodePriors(encoded.dump());
      if (EncodePriors(again.profiles, again.task_shapes) != encoded) std::abort();
    }
  }
}

}  // namespace
}  // namespace archimedes

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    archimedes::Decode(data[0], body);
  } catch (const archimedes::ApiError& e) {
    if (e.code() < 400 || e.code() >= 500) std::abort();
  }
  return 0;
}
