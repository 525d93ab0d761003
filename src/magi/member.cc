#include "magi/member.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>
#include <utility>

#include "model/wall_clock.h"

namespace archimedes::magi {
namespace {

using nlohmann::json;

constexpr ProposalKind kKinds[] = {ProposalKind::kNodeOffline, ProposalKind::kMigrate,
                                   ProposalKind::kReadmit};

std::string Suffix(ProposalKind kind, const std::string& node) {
  return std::string(ProposalKindName(kind)) + "/" + node;
}

}  // namespace

std::vector<Member> ParseMembers(const std::string& text) {
  std::vector<Member> members;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size() ||
        item.find_first_not_of("0123456789") != eq) {
      throw std::invalid_argument("members \"" + text + "\": item \"" + item +
                                  "\" is not ID=POD (e.g. 1=pod-a)");
    }
    int id = 0;
    const auto [end_of_id, error] = std::from_chars(item.data(), item.data() + eq, id);
    if (error != std::errc() || id < 1) {
      throw std::invalid_argument("members \"" + text + "\": id " + item.substr(0, eq) +
                                  " is outside [1, " + std::to_string(INT_MAX) + "]");
    }
    members.push_back(Member{id, item.substr(eq + 1)});
    start = end + 1;
  }
  return members;
}

void ValidateConfig(const MemberConfig& config) {
  ValidateRule(config.members, config.rule);
  bool found = false;
  for (const Member& m : config.members) {
    if (m.id != config.id) continue;
    found = true;
    if (m.pod != config.pod) {
      throw std::invalid_argument("member " + std::to_string(config.id) + " runs in POD \"" +
                                  config.pod + "\" but the membership places it in \"" + m.pod +
                                  "\"");
    }
  }
  if (!found) {
    throw std::invalid_argument("member " + std::to_string(config.id) +
                                " is not in the membership");
  }
  if (config.nodes.empty() && !config.nodes_source) {
    throw std::invalid_argument("no nodes to watch");
  }
  if (config.nodes_source && config.nodes_refresh.count() <= 0) {
    throw std::invalid_argument("the nodes' refresh interval must be positive");
  }
  if (config.probe_interval.count() <= 0) {
    throw std::invalid_argument("probe interval must be positive");
  }
  if (config.lease_ttl <= 0) throw std::invalid_argument("lease TTL must be positive");
}

std::string DecisionRecord(const Decision& d, int recorded_by) {
  json votes = json::array();
  for (const CountedVote& v : d.votes) {
    json jv = {{"member", v.member}, {"pod", v.pod},         {"verdict", VerdictName(v.verdict)},
               {"reason", v.reason}, {"cast_at", v.cast_at}, {"counted", v.counted}};
    if (!v.counted) jv["ignored_because"] = v.ignored_because;
    votes.push_back(std::move(jv));
  }
  return json{{"kind", ProposalKindName(d.proposal.kind)},
              {"node", d.proposal.node},
              {"outcome", OutcomeName(d.outcome)},
              {"opened_at", d.proposal.opened_at},
              {"opened_by", d.proposal.opened_by},
              {"decided_at", d.decided_at},
              {"recorded_by", recorded_by},
              {"yes", d.yes},
              {"no", d.no},
              {"abstain", d.abstain},
              {"yes_pods", d.yes_pods},
              {"explanation", d.explanation},
              {"votes", std::move(votes)}}
      .dump();
}

Decision ParseDecisionRecord(const std::string& record) {
  const json j = json::parse(record, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw std::invalid_argument("decision record is not a JSON object");
  }
  try {
    Decision d;
    const std::optional<ProposalKind> kind = ParseProposalKind(j.at("kind").get<std::string>());
    if (!kind) throw std::invalid_argument("decision record: unknown kind");
    d.proposal = {*kind, j.at("node").get<std::string>(), j.at("opened_at").get<int64_t>(),
                  j.at("opened_by").get<int>()};
    const std::string outcome = j.at("outcome").get<std::string>();
    for (Outcome o : {Outcome::kPending, Outcome::kPassed, Outcome::kRejected, Outcome::kExpired}) {
      if (OutcomeName(o) == outcome) d.outcome = o;
    }
    if (OutcomeName(d.outcome) != outcome) {
      throw std::invalid_argument("decision record: unknown outcome \"" + outcome + "\"");
    }
    d.decided_at = j.at("decided_at").get<int64_t>();
    d.yes = j.at("yes").get<int>();
    d.no = j.at("no").get<int>();
    d.abstain = j.at("abstain").get<int>();
    d.yes_pods = j.at("yes_pods").get<std::vector<std::string>>();
    d.explanation = j.at("explanation").get<std::string>();
    for (const json& v : j.at("votes")) {
      const std::optional<Verdict> verdict = ParseVerdict(v.at("verdict").get<std::string>());
      if (!verdict) throw std::invalid_argument("decision record: unknown verdict");
      d.votes.push_back({v.at("member").get<int>(), v.at("pod").get<std::string>(), *verdict,
                         v.at("reason").get<std::string>(), v.at("cast_at").get<int64_t>(),
                         v.at("counted").get<bool>(), v.value("ignored_because", "")});
    }
    return d;
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("decision record: ") + e.what());
  }
}

MagiMember::MagiMember(MemberConfig config, KvStore& store, NodeObserver& observer,
                       std::ostream& log)
    : config_(std::move(config)), store_(store), observer_(observer), log_(log) {
  ValidateConfig(config_);
  own_key_ = Key("members/" + std::to_string(config_.id));
  for (const Member& m : config_.members) {
    if (m.id != config_.id) peer_keys_.insert(Key("members/" + std::to_string(m.id)));
  }
  heartbeat_head_ =
      "{\"id\":" + std::to_string(config_.id) + ",\"pod\":" + json(config_.pod).dump();
  std::vector<NodeTarget> nodes = std::move(config_.nodes);
  config_.nodes.clear();
  SetNodes(std::move(nodes));
}

void MagiMember::SetNodes(std::vector<NodeTarget> nodes) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!index.emplace(nodes[i].name, i).second) {
      throw std::invalid_argument("node \"" + nodes[i].name + "\" is listed twice");
    }
  }
  // What is known of the nodes that stay goes with them; a new node starts answering, unjudged.
  std::vector<NodeEvidence> evidence(nodes.size());
  std::vector<int> last_failed(nodes.size(), rounds_);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (auto old = index_.find(nodes[i].name); old != index_.end()) {
      evidence[i] = std::move(evidence_[old->second]);
      last_failed[i] = last_failed_[old->second];
    } else {
      evidence[i].node = nodes[i].name;
      evidence[i].tcp_ok = evidence[i].http_ok = true;
    }
  }
  // What is known by index follows its node; a node that left takes its part with it.
  const auto moved = [&](size_t n) -> std::optional<size_t> {
    const auto now = index.find(config_.nodes[n].name);
    return now == index.end() ? std::nullopt : std::optional<size_t>(now->second);
  };
  std::vector<size_t> missed;
  for (size_t n : missed_) {
    if (const auto now = moved(n)) missed.push_back(*now);
  }
  std::sort(missed.begin(), missed.end());
  std::set<std::pair<ProposalKind, size_t>> decided;
  for (const auto& [kind, n] : decided_) {
    if (const auto now = moved(n)) decided.emplace(kind, *now);
  }
  std::set<size_t> offline;
  for (size_t n : offline_) {
    if (const auto now = moved(n)) offline.insert(*now);
  }
  config_.nodes = std::move(nodes);
  index_ = std::move(index);
  evidence_ = std::move(evidence);
  last_failed_ = std::move(last_failed);
  missed_ = std::move(missed);
  decided_ = std::move(decided);
  offline_ = std::move(offline);
  // A decision on a node that just joined was listed but not matched: match them all again.
  rematch_decisions_ = true;
}

void MagiMember::Log(int64_t now, const std::string& line) {
  std::time_t t = now;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
  log_ << stamp << " magi " << config_.id << " (" << config_.pod << "): " << line << std::endl;
}

void MagiMember::Probe(int64_t now) {
  ++rounds_;
  std::vector<MissedProbe> missed = observer_.ProbeAll(config_.nodes, now);
  auto log_change = [&](const NodeEvidence& e, bool was_up) {
    const bool up = e.tcp_ok || e.http_ok;
    if (up != was_up) {
      Log(now, "node " + e.node + (up ? " reachable" : " unreachable: " + e.last_error));
    }
  };
  std::vector<size_t> now_missed;
  now_missed.reserve(missed.size());
  for (MissedProbe& m : missed) {
    NodeEvidence& e = evidence_.at(m.node);
    const bool was_up = e.tcp_ok || e.http_ok;
    const bool up = m.result.tcp_ok || m.result.http_ok;
    e.tcp_ok = m.result.tcp_ok;
    e.http_ok = m.result.http_ok;
    e.last_error = std::move(m.result.error);
    e.consecutive_failures = up ? 0 : e.consecutive_failures + 1;
    if (!up) last_failed_[m.node] = rounds_;
    log_change(e, was_up);
    now_missed.push_back(m.node);
  }
  for (size_t n : missed_) {
    if (std::binary_search(now_missed.begin(), now_missed.end(), n)) continue;
    NodeEvidence& e = evidence_[n];
    const bool was_up = e.tcp_ok || e.http_ok;
    e.tcp_ok = e.http_ok = true;
    e.last_error.clear();
    e.consecutive_failures = 0;
    log_change(e, was_up);
  }
  missed_ = std::move(now_missed);
}

VantageEvidence MagiMember::VantageWithout(const std::set<size_t>& offline) const {
  VantageEvidence v;
  v.peers_alive = peers_alive_;
  v.peers_total = static_cast<int>(config_.members.size()) - 1;
  v.nodes_probed = static_cast<int>(config_.nodes.size() - offline.size());
  v.nodes_reachable = v.nodes_probed;
  for (size_t n : missed_) {
    const NodeEvidence& e = evidence_[n];
    if (!e.tcp_ok && !e.http_ok && offline.count(n) == 0) --v.nodes_reachable;
  }
  return v;
}

VantageEvidence MagiMember::Vantage(const std::set<std::string>& held_offline) const {
  std::set<size_t> offline;
  for (const std::string& node : held_offline) {
    if (auto it = index_.find(node); it != index_.end()) offline.insert(it->second);
  }
  return VantageWithout(offline);
}

NodeEvidence MagiMember::Evidence(const std::string& node, int64_t now) {
  const size_t n = index_.at(node);
  NodeEvidence e = evidence_[n];
  e.probes = rounds_;
  e.consecutive_answers = rounds_ - last_failed_[n];
  e.heartbeat_age = observer_.HeartbeatAges({node}, now).front();
  e.offline_decided = offline_.count(n) > 0;
  return e;
}

void MagiMember::StoreFailed(int64_t now, const StoreError& error) {
  if (store_reachable_) {
    Log(now, std::string("cannot use the store, not voting: ") + error.what());
  }
  store_reachable_ = false;
  round_ok_ = false;
  peers_alive_ = 0;
}

// Written by every member every round, so formatted directly rather than through a JSON tree.
std::string MagiMember::HeartbeatValue(int64_t now) const {
  std::string value = heartbeat_head_;
  value.reserve(value.size() + 80);
  value.append(",\"at\":").append(std::to_string(now));
  value.append(",\"nodes_reachable\":").append(std::to_string(vantage_.nodes_reachable));
  value.append(",\"nodes_probed\":").append(std::to_string(vantage_.nodes_probed)).append("}");
  return value;
}

void MagiMember::EnsureLease() {
  if (lease_ != 0 && store_.KeepAlive(lease_) > 0) return;
  lease_ = store_.GrantLease(config_.lease_ttl);
}

void MagiMember::ReadDecisions(int64_t now) {
  const std::string prefix = Key("decisions/");
  std::vector<std::string> on_record;
  for (KeyValue& kv : store_.GetPrefixKeys(prefix)) on_record.push_back(std::move(kv.key));
  if (on_record == decisions_seen_ && !rematch_decisions_) return;
  rematch_decisions_ = false;
  decided_.clear();
  offline_.clear();
  for (const std::string& key : on_record) {
    const std::string suffix = key.substr(prefix.size());
    const size_t slash = suffix.find('/');
    if (slash == std::string::npos) continue;
    const std::optional<ProposalKind> kind = ParseProposalKind(suffix.substr(0, slash));
    auto node = index_.find(suffix.substr(slash + 1));
    if (!kind || node == index_.end()) continue;
    decided_.emplace(*kind, node->second);
    if (*kind == ProposalKind::kNodeOffline) offline_.insert(node->second);
    if (std::binary_search(decisions_seen_.begin(), decisions_seen_.end(), key)) continue;
    std::optional<KeyValue> record = store_.Get(key);
    if (!record) continue;  // cleared since the listing
    json j = json::parse(record->value, nullptr, false);
    Log(now, "decision on record: " + suffix + " " +
                 (j.is_discarded() ? record->value
                                   : j.value("explanation", "") + " (recorded by member " +
                                         std::to_string(j.value("recorded_by", 0)) + ")"));
    store_.Delete(Key("proposals/" + suffix));
    store_.DeletePrefix(Key("votes/" + suffix + "/"));
  }
  // Forgetting cleared decisions lets a later decision on the same node be logged and tidied.
  decisions_seen_ = std::move(on_record);
}

void MagiMember::ReadProposals() {
  proposals_.clear();
  for (KeyValue& kv : store_.GetPrefix(Key("proposals/"))) proposals_[kv.key] = std::move(kv);
}

void MagiMember::Judge(int64_t now) {
  judged_.clear();
  const bool readmits = config_.policy.answers_to_readmit > 0;
  if (missed_.empty() && proposals_.empty() && !(readmits && !offline_.empty())) return;
  const std::string prefix = Key("proposals/");
  for (ProposalKind kind : kKinds) {
    if (kind == ProposalKind::kReadmit && !readmits) continue;
    // Only a node whose latest probe got no answer at all can draw a yes; migrate needs it
    // recorded offline too, and readmission a node recorded offline that answered. Every other
    // node is judged only when a proposal asks about it.
    std::set<size_t> nodes;
    if (kind == ProposalKind::kReadmit) {
      for (size_t n : offline_) {
        if (evidence_[n].tcp_ok || evidence_[n].http_ok) nodes.insert(n);
      }
    }
    for (size_t n : missed_) {
      const NodeEvidence& e = evidence_[n];
      if (kind == ProposalKind::kReadmit || e.tcp_ok || e.http_ok) continue;
      if (kind == ProposalKind::kMigrate && offline_.count(n) == 0) continue;
      nodes.insert(n);
    }
    const std::string kind_prefix = prefix + std::string(ProposalKindName(kind)) + "/";
    for (auto it = proposals_.lower_bound(kind_prefix);
         it != proposals_.end() && it->first.compare(0, kind_prefix.size(), kind_prefix) == 0;
         ++it) {
      if (auto n = index_.find(it->first.substr(kind_prefix.size())); n != index_.end()) {
        nodes.insert(n->second);
      }
    }
    for (size_t n : nodes) {
      if (decided_.count({kind, n}) == 0) judged_.push_back({kind, n, evidence_[n], {}});
    }
  }
  std::vector<std::string> names;
  names.reserve(judged_.size());
  for (const Judged& j : judged_) names.push_back(config_.nodes[j.node].name);
  const std::vector<std::optional<int64_t>> ages = observer_.HeartbeatAges(names, now);
  for (size_t i = 0; i < judged_.size(); ++i) {
    NodeEvidence& e = judged_[i].evidence;
    e.probes = rounds_;
    e.consecutive_answers = rounds_ - last_failed_[judged_[i].node];
    e.heartbeat_age = ages[i];
    e.offline_decided = offline_.count(judged_[i].node) > 0;
    judged_[i].judgement = magi::Judge(judged_[i].kind, e, vantage_, config_.policy);
  }
}

void MagiMember::Observe(int64_t now) {
  Probe(now);
  round_ok_ = true;
  voted_.clear();
  judged_.clear();
  try {
    EnsureLease();
    ReadDecisions(now);
    ReadProposals();
    vantage_ = VantageWithout(offline_);
    store_.Put(own_key_, HeartbeatValue(now), lease_);
    peers_alive_ = 0;
    for (const KeyValue& kv : store_.GetPrefixKeys(Key("members/"))) {
      peers_alive_ += static_cast<int>(peer_keys_.count(kv.key));
    }
    vantage_.peers_alive = peers_alive_;
    Judge(now);
    if (!store_reachable_) Log(now, "store " + store_.name() + " reachable again");
    store_reachable_ = true;
  } catch (const StoreError& e) {
    StoreFailed(now, e);
  }
}

void MagiMember::Propose(int64_t now) {
  if (!round_ok_) return;
  try {
    for (const Judged& j : judged_) {
      if (j.judgement.verdict != Verdict::kYes) continue;
      const std::string suffix = Suffix(j.kind, config_.nodes[j.node].name);
      const std::string key = Key("proposals/" + suffix);
      if (proposals_.count(key)) continue;
      const json proposal = {{"kind", ProposalKindName(j.kind)},
                             {"node", config_.nodes[j.node].name},
                             {"opened_at", now},
                             {"opened_by", config_.id}};
      CreateResult created = store_.CreateIfAbsent(key, proposal.dump());
      if (created.created) Log(now, "opened proposal " + suffix + ": " + j.judgement.reason);
      proposals_[key] = std::move(created.current);
    }
  } catch (const StoreError& e) {
    StoreFailed(now, e);
  }
}

void MagiMember::Vote(int64_t now) {
  if (!round_ok_) return;
  try {
    const bool all_known = std::all_of(judged_.begin(), judged_.end(), [&](const Judged& j) {
      return proposals_.count(Key("proposals/" + Suffix(j.kind, config_.nodes[j.node].name))) > 0;
    });
    if (!all_known) ReadProposals();
    for (const Judged& j : judged_) {
      const std::string& node = config_.nodes[j.node].name;
      const std::string suffix = Suffix(j.kind, node);
      auto p = proposals_.find(Key("proposals/" + suffix));
      if (p == proposals_.end()) continue;
      const json pj = json::parse(p->second.value, nullptr, false);
      if (pj.is_discarded() || !pj.contains("opened_at") || !pj["opened_at"].is_number_integer()) {
        Log(now, "removing malformed proposal " + p->first);
        store_.Delete(p->first);
        continue;
      }
      const NodeEvidence& e = j.evidence;
      json evidence = {{"probes", e.probes},
                       {"consecutive_failures", e.consecutive_failures},
                       {"tcp_ok", e.tcp_ok},
                       {"http_ok", e.http_ok},
                       {"last_error", e.last_error},
                       {"peers_alive", vantage_.peers_alive},
                       {"nodes_reachable", vantage_.nodes_reachable}};
      if (e.heartbeat_age) evidence["heartbeat_age"] = *e.heartbeat_age;
      const std::string vote_key = Key("votes/" + suffix + "/" + std::to_string(config_.id));
      store_.Put(vote_key,
                 json{{"member", config_.id},
                      {"pod", config_.pod},
                      {"verdict", VerdictName(j.judgement.verdict)},
                      {"reason", j.judgement.reason},
                      {"cast_at", now},
                      {"evidence", evidence}}
                     .dump(),
                 lease_);
      if (auto last = last_vote_.find(vote_key);
          last == last_vote_.end() || last->second != j.judgement.verdict) {
        Log(now, "votes " + std::string(VerdictName(j.judgement.verdict)) + " on " + suffix + ": " +
                     j.judgement.reason);
        last_vote_[vote_key] = j.judgement.verdict;
      }
      voted_.push_back(
          {Proposal{j.kind, node, pj["opened_at"].get<int64_t>(), pj.value("opened_by", 0)},
           p->second});
    }
  } catch (const StoreError& e) {
    StoreFailed(now, e);
  }
}

void MagiMember::Decide(int64_t now) {
  if (!round_ok_) return;
  try {
    for (const Voted& v : voted_) {
      const std::string suffix = Suffix(v.proposal.kind, v.proposal.node);
      std::vector<magi::Vote> votes;
      for (const KeyValue& kv : store_.GetPrefix(Key("votes/" + suffix + "/"))) {
        json j = json::parse(kv.value, nullptr, false);
        std::optional<Verdict> verdict =
            j.is_discarded() ? std::nullopt : ParseVerdict(j.value("verdict", ""));
        if (!verdict || !j.contains("member") || !j.contains("cast_at")) {
          Log(now, "ignoring malformed vote " + kv.key);
          continue;
        }
        votes.push_back(magi::Vote{j["member"].get<int>(), *verdict, j.value("reason", ""),
                                   j["cast_at"].get<int64_t>()});
      }
      const Decision d = magi::Decide(v.proposal, votes, config_.members, config_.rule, now);
      if (d.outcome == Outcome::kPassed && v.proposal.kind == ProposalKind::kReadmit) {
        Readmit(v, d, now);
      } else if (d.outcome == Outcome::kPassed) {
        if (store_.CreateIfAbsent(Key("decisions/" + suffix), DecisionRecord(d, config_.id))
                .created) {
          Log(now, "recorded decision " + Describe(d));
        }
      } else if (d.outcome == Outcome::kExpired) {
        const Compare unchanged{v.proposal_kv.key, Compare::Target::kModRevision,
                                Compare::Result::kEqual, v.proposal_kv.mod_revision, ""};
        const TxnOp remove_proposal{TxnOp::Kind::kDelete, v.proposal_kv.key, "", 0};
        if (store_.Txn({unchanged}, {remove_proposal}, {}).succeeded) {
          Log(now, "closed proposal " + suffix + ": " + d.explanation);
          store_.DeletePrefix(Key("votes/" + suffix + "/"));
        }
      }
    }
  } catch (const StoreError& e) {
    StoreFailed(now, e);
  }
}

// A passed readmission clears the node's offline and migrate decisions, closes the proposal and
// keeps the record under readmissions/<node>, in one transaction: a decision recorded again since
// the vote (another create revision) is not cleared by it.
void MagiMember::Readmit(const Voted& v, const Decision& d, int64_t now) {
  const std::string offline_key =
      Key("decisions/" + Suffix(ProposalKind::kNodeOffline, v.proposal.node));
  const std::optional<KeyValue> offline = store_.Get(offline_key);
  const std::string suffix = Suffix(v.proposal.kind, v.proposal.node);
  // The migrate decision goes too: a later failure of the node is decided afresh.
  std::vector<TxnOp> ops = {
      {TxnOp::Kind::kDelete, v.proposal_kv.key, "", 0},
      {TxnOp::Kind::kDelete, Key("decisions/" + Suffix(ProposalKind::kMigrate, v.proposal.node)),
       "", 0},
      {TxnOp::Kind::kPut, Key("readmissions/" + v.proposal.node), DecisionRecord(d, config_.id),
       0}};
  std::vector<Compare> compares = {{v.proposal_kv.key, Compare::Target::kModRevision,
                                    Compare::Result::kEqual, v.proposal_kv.mod_revision, ""}};
  if (offline) {
    ops.push_back({TxnOp::Kind::kDelete, offline_key, "", 0});
    compares.push_back({offline_key, Compare::Target::kCreateRevision, Compare::Result::kEqual,
                        offline->create_revision, ""});
  }
  if (store_.Txn(compares, ops, {}).succeeded) {
    Log(now, "recorded decision " + Describe(d) + "; node " + v.proposal.node + " readmitted");
    store_.DeletePrefix(Key("votes/" + suffix + "/"));
  }
}

void MagiMember::Tick(int64_t now) {
  Observe(now);
  Propose(now);
  Vote(now);
  Decide(now);
}

void MagiMember::RefreshNodes(int64_t now) {
  std::vector<NodeTarget> nodes;
  try {
    nodes = config_.nodes_source();
  } catch (const std::exception& e) {
    if (nodes_source_ok_) Log(now, std::string(e.what()) + "; watching the nodes known so far");
    nodes_source_ok_ = false;
    return;
  }
  if (!nodes_source_ok_) Log(now, "reading the nodes again");
  nodes_source_ok_ = true;
  const bool same = std::equal(nodes.begin(), nodes.end(), config_.nodes.begin(),
                               config_.nodes.end(), [](const NodeTarget& a, const NodeTarget& b) {
                                 return a.name == b.name && a.pod == b.pod &&
                                        a.address == b.address && a.health_url == b.health_url;
                               });
  if (same) return;
  std::string joined;
  std::string left;
  for (const NodeTarget& n : nodes) {
    if (index_.count(n.name) == 0) joined += " " + n.name;
  }
  std::set<std::string> names;
  for (const NodeTarget& n : nodes) names.insert(n.name);
  for (const NodeTarget& n : config_.nodes) {
    if (names.count(n.name) == 0) left += " " + n.name;
  }
  try {
    SetNodes(std::move(nodes));
  } catch (const std::invalid_argument& e) {
    Log(now, std::string("ignoring the new list of nodes: ") + e.what());
    return;
  }
  Log(now, "watching " + std::to_string(config_.nodes.size()) + " nodes" +
               (joined.empty() ? "" : "; joined:" + joined) +
               (left.empty() ? "" : "; left:" + left));
}

void MagiMember::Run(std::chrono::milliseconds duration, const std::atomic<bool>& stop) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto next = start;
  auto next_refresh = start;
  Log(WallSeconds(), "watching " + std::to_string(config_.nodes.size()) + " nodes through " +
                         store_.name() + ", quorum " + std::to_string(config_.rule.min_yes) +
                         " of " + std::to_string(config_.members.size()) + " from " +
                         std::to_string(config_.rule.min_pods) + " PODs");
  while (!stop && (duration.count() == 0 || Clock::now() - start < duration)) {
    if (config_.nodes_source && Clock::now() >= next_refresh) {
      RefreshNodes(WallSeconds());
      next_refresh = Clock::now() + config_.nodes_refresh;
    }
    Tick(WallSeconds());
    next += config_.probe_interval;
    while (!stop && Clock::now() < next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (lease_ != 0) {
    try {
      store_.RevokeLease(lease_);
    } catch (const StoreError&) {
      // The lease expires on its own within its TTL.
    }
  }
}

}  // namespace archimedes::magi
