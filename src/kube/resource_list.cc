#include "kube/resource_list.h"

#include "model/quantity.h"

namespace archimedes {
namespace {

std::string QuantityText(const Field& f) {
  const nlohmann::json& v = f.json();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return v.dump();
  if (!v.is_string())
    f.Fail("expected a quantity string such as \"500m\" or \"4Gi\", got " + v.dump());
  std::string text = v.get<std::string>();
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

}  // namespace

std::optional<Dim> KubeResourceDim(std::string_view name) {
  if (name == "cpu") return Dim::kCpu;
  if (name == "memory") return Dim::kMemory;
  if (name == "nvidia.com/gpu" || name == "amd.com/gpu" || name == "gpu") return Dim::kGpu;
  return std::nullopt;
}

Resources DecodeResourceList(const Field& list) {
  Resources r;
  if (!list.present()) return r;
  if (!list.json().is_object()) list.Fail("expected an object of quantities");
  for (auto it = list.json().begin(); it != list.json().end(); ++it) {
    const Field f(&*it, list.path() + "." + it.key());
    if (!f.present()) continue;
    const std::string text = QuantityText(f);
    const std::optional<Dim> dim = KubeResourceDim(it.key());
    try {
      // Skipped names are still checked: the API server would refuse a malformed quantity.
      if (!dim) {
        Quantity::Parse(text);
        continue;
      }
      r[*dim] += ParseResourceAmount(*dim, text);
    } catch (const QuantityError& e) {
      f.Fail(e.what());
    }
  }
  return r;
}

}  // namespace archimedes
