// Kubernetes input: the input read as each scheduler-extender message kube-scheduler sends or an
// extender answers, as each API server message serve --kube-api reads (lists, watch lines,
// Status, PodMetrics), and as Kubernetes objects (Pods and Nodes), from JSON or YAML documents as
// POST /scheduler/nodes takes them. Every input is a message or a KubeError; a decoded filter
// result encodes to JSON that decodes to the same.
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "kube/api_messages.h"
#include "kube/documents.h"
#include "kube/extender_messages.h"
#include "kube/kube_node.h"
#include "kube/kube_pod.h"

namespace {

using archimedes::KubeError;

template <typename F>
void Expect(F f) {
  try {
    f();
  } catch (const KubeError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json json;
  bool parsed = false;
  Expect([&] {
    json = archimedes::ParseJson("input", text);
    parsed = true;
  });
  if (parsed) {
    Expect([&] { archimedes::DecodeExtenderArgs(json); });
    Expect([&] { archimedes::DecodePreemptionArgs(json); });
    Expect([&] { archimedes::DecodeBindingArgs(json); });
    Expect([&] { archimedes::DecodeHostPriorityList(json); });
    Expect([&] { archimedes::DecodePreemptionResult(json); });
    Expect([&] { archimedes::DecodeList(json, "list"); });
    Expect([&] { archimedes::DecodeWatchEvent(json, "watch"); });
    Expect([&] { archimedes::DecodeStatus(json, "Status"); });
    Expect([&] { archimedes::DecodePodMetricsList(json, "PodMetricsList"); });
    Expect([&] { archimedes::DecodeLease(json, "Lease"); });
    Expect([&] {
      const archimedes::ExtenderFilterResult r = archimedes::DecodeFilterResult(json);
      const nlohmann::json again = archimedes::EncodeFilterResult(r);
      if (archimedes::EncodeFilterResult(archimedes::DecodeFilterResult(again)) != again) {
        std::abort();
      }
    });
  }
  Expect([&] {
    for (const nlohmann::json& doc :
         archimedes::ExpandLists(archimedes::ParseDocuments("input", text))) {
      Expect([&] { archimedes::DecodePod(doc); });
      Expect([&] { archimedes::DecodeKubeNode(doc); });
    }
  });
  return 0;
}
