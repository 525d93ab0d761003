#include "model/node_affinity.h"

#include <algorithm>
#include <charconv>

namespace archimedes {
namespace {

constexpr std::string_view kOpNames[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};

std::optional<int64_t> ParseInt(const std::string& text) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::string_view SelectorOpName(SelectorOp op) { return kOpNames[static_cast<int>(op)]; }

std::optional<SelectorOp> ParseSelectorOp(std::string_view name) {
  for (int i = 0; i < 6; ++i) {
    if (name == kOpNames[i]) return static_cast<SelectorOp>(i);
  }
  return std::nullopt;
}

std::optional<std::string> NodeLabel(const Node& node, const std::string& key) {
  if (auto it = node.labels.find(key); it != node.labels.end()) return it->second;
  if (key == "kubernetes.io/hostname") return node.name;
  if (key == "topology.kubernetes.io/zone" && !node.zone.empty()) return node.zone;
  if (key == "archimedes.io/pod" && !node.pod.empty()) return node.pod;
  return std::nullopt;
}

bool Matches(const NodeSelectorRequirement& r, const std::optional<std::string>& value) {
  const auto in = [&] {
    return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
  };
  switch (r.op) {
    case SelectorOp::kIn:
      return in();
    case SelectorOp::kNotIn:
      return !in();
    case SelectorOp::kExists:
      return value.has_value();
    case SelectorOp::kDoesNotExist:
      return !value.has_value();
    case SelectorOp::kGt:
    case SelectorOp::kLt: {
      if (!value || r.values.size() != 1) return false;
      const std::optional<int64_t> have = ParseInt(*value);
      const std::optional<int64_t> bound = ParseInt(r.values[0]);
      if (!have || !bound) return false;
      return r.op == SelectorOp::kGt ? *have > *bound : *have < *bound;
    }
  }
  return false;
}

bool Matches(const NodeSelectorTerm& term, const Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const NodeSelectorRequirement& r : term.match_expressions) {
    if (!Matches(r, NodeLabel(node, r.key))) return false;
  }
  for (const NodeSelectorRequirement& r : term.match_fields) {
    if (r.key != "metadata.name" || !Matches(r, node.name)) return false;
  }
  return true;
}

bool MatchesRequiredAffinity(std::span<const NodeSelectorTerm> terms, const Node& node) {
  if (terms.empty()) return true;
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return Matches(t, node); });
}

std::string ValidateRequirement(const NodeSelectorRequirement& r, bool field) {
  const std::string op(SelectorOpName(r.op));
  if (r.key.empty()) return "a requirement needs a key";
  if (field) {
    if (r.key != "metadata.name") return "the only field a node selector may use is metadata.name";
    if ((r.op != SelectorOp::kIn && r.op != SelectorOp::kNotIn) || r.values.size() != 1) {
      return "metadata.name takes operator In or NotIn with exactly one value";
    }
    return "";
  }
  switch (r.op) {
    case SelectorOp::kIn:
    case SelectorOp::kNotIn:
      return r.values.empty() ? "operator " + op + " needs at least one value" : "";
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist:
      return r.values.empty() ? "" : "operator " + op + " takes no values";
    case SelectorOp::kGt:
    case SelectorOp::kLt:
      return r.values.size() == 1 && ParseInt(r.values[0])
                 ? ""
                 : "operator " + op + " takes exactly one integer value";
  }
  return "";
}

}  // namespace archimedes
