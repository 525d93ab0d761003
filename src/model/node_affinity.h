// Kubernetes' required node affinity (spec.affinity.nodeAffinity.
// requiredDuringSchedulingIgnoredDuringExecution): a list of node selector terms, of which a node
// must match at least one; a term matches when all its requirements do. kube-scheduler's
// NodeAffinity semantics: In / NotIn / Exists / DoesNotExist on labels, Gt / Lt on a label read as
// an integer, and the field metadata.name (In / NotIn); a term with no requirement matches nothing.
#ifndef ARCHIMEDES_MODEL_NODE_AFFINITY_H_
#define ARCHIMEDES_MODEL_NODE_AFFINITY_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/node.h"

namespace archimedes {

enum class SelectorOp : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
std::string_view SelectorOpName(SelectorOp op);  // "In", "NotIn", ...
std::optional<SelectorOp> ParseSelectorOp(std::string_view name);

struct NodeSelectorRequirement {
  std::string key;
  SelectorOp op = SelectorOp::kIn;
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;  // on the node's labels
  std::vector<NodeSelectorRequirement> match_fields;       // key "metadata.name" only
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

// The value of label `key` on `node`. The node's zone, POD and name stand for the labels
// "topology.kubernetes.io/zone", "archimedes.io/pod" and "kubernetes.io/hostname" when the node
// does not carry them itself.
std::optional<std::string> NodeLabel(const Node& node, const std::string& key);

bool Matches(const NodeSelectorRequirement& r, const std::optional<std::string>& value);
bool Matches(const NodeSelectorTerm& term, const Node& node);
// True when `terms` is empty (no affinity) or `node` matches one of them.
bool MatchesRequiredAffinity(std::span<const NodeSelectorTerm> terms, const Node& node);

// Why a requirement is malformed as kube-apiserver's validation says (In/NotIn need values,
// Exists/DoesNotExist none, Gt/Lt exactly one integer, fields only metadata.name with In/NotIn
// and one value), or an empty string.
std::string ValidateRequirement(const NodeSelectorRequirement& r, bool field);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_NODE_AFFINITY_H_
