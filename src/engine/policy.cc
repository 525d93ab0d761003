#include "engine/policy.h"

#include <memory>
#include <sstream>
#include <stdexcept>

namespace archimedes {

// The policies, each defined in its own file under engine/policies/.
Policy K8sDefaultPolicy();
Policy K8sBinpackPolicy();
Policy ReclaimPolicy();
Policy ArchimedesPolicy();
Policy ArchimedesNoHealthPolicy();
Policy ArchimedesGreedyPolicy();
Policy ArchimedesNoBorrowPolicy();

namespace {

struct Registration {
  Policy (*make)();
  bool compared;  // in the default comparison (PolicyNames)
};

// One line per policy, beside its declaration above.
constexpr Registration kPolicies[] = {
    {K8sDefaultPolicy, true},
    {K8sBinpackPolicy, true},
    {ReclaimPolicy, true},
    {ArchimedesPolicy, true},
    {ArchimedesNoHealthPolicy, false},
    {ArchimedesGreedyPolicy, false},
    {ArchimedesNoBorrowPolicy, false},
};

// The strategies say what they are whatever the seed: built once, with any.
PolicyTraits TraitsOf(const Policy& policy) {
  const std::unique_ptr<ServicePlacement> services = policy.services(0);
  const std::unique_ptr<BatchPlacement> batch = policy.batch(0, policy.buffer);
  return PolicyTraits{.buffer = policy.buffer,
                      .uses_profiles = services->uses_profiles() || batch->uses_profiles(),
                      .batch_accounting = batch->accounting()};
}

}  // namespace

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const Registration& r : kPolicies) {
    if (r.compared) names.push_back(r.make().name);
  }
  return names;
}

std::vector<std::string> AllPolicyNames() {
  std::vector<std::string> names;
  for (const Registration& r : kPolicies) names.push_back(r.make().name);
  return names;
}

Policy MakePolicy(std::string_view name, std::optional<double> buffer) {
  for (const Registration& r : kPolicies) {
    if (Policy policy = r.make(); policy.name == name) {
      if (buffer) {
        if (!policy.keeps_buffer) {
          throw std::invalid_argument("policy \"" + policy.name +
                                      "\" keeps no burst buffer: a buffer is a setting of the "
                                      "policies that put batch beside services");
        }
        if (!(*buffer >= 0 && *buffer <= kMaxBuffer)) {
          std::ostringstream why;
          why << "a burst buffer of " << *buffer << " is outside [0, " << kMaxBuffer << "]";
          throw std::invalid_argument(why.str());
        }
        policy.buffer = *buffer;
      }
      policy.traits = TraitsOf(policy);
      return policy;
    }
  }
  std::string known;
  for (const std::string& n : AllPolicyNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown policy \"" + std::string(name) + "\" (known: " + known +
                              ")");
}

}  // namespace archimedes
