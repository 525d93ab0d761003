#include "magi/member.h"

#include <ctime>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

namespace archimedes::magi {
namespace {

using nlohmann::json;

constexpr ProposalKind kKinds[] = {ProposalKind::kNodeOffline, ProposalKind::kMigrate};

std::set<std::string> ReadBlockedNodes(const std::string& path) {
  std::set<std::string> blocked;
  if (path.empty()) return blocked;
  std::ifstream in(path);  // an absent file blocks nothing
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) blocked.insert(line);
  }
  return blocked;
}

json DecisionRecord(const Decision& d, int recorded_by) {
  json votes = json::array();
  for (const CountedVote& v : d.votes) {
    json jv = {{"member", v.member}, {"pod", v.pod},         {"verdict", VerdictName(v.verdict)},
               {"reason", v.reason}, {"cast_at", v.cast_at}, {"counted", v.counted}};
    if (!v.counted) jv["ignored_because"] = v.ignored_because;
    votes.push_back(std::move(jv));
  }
  return {{"kind", ProposalKindName(d.proposal.kind)},
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
          {"votes", std::move(votes)}};
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
    members.push_back(Member{std::stoi(item.substr(0, eq)), item.substr(eq + 1)});
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
  if (config.nodes.empty()) throw std::invalid_argument("no nodes to watch");
  if (config.probe_interval.count() <= 0 || config.probe_timeout.count() <= 0) {
    throw std::invalid_argument("probe interval and timeout must be positive");
  }
  if (config.lease_ttl <= 0) throw std::invalid_argument("lease TTL must be positive");
}

MagiMember::MagiMember(MemberConfig config, EtcdStore& store, std::ostream& log)
    : config_(std::move(config)), store_(store), log_(log) {
  ValidateConfig(config_);
  for (const NodeTarget& n : config_.nodes) evidence_[n.name].node = n.name;
}

void MagiMember::Log(int64_t now, const std::string& line) {
  std::time_t t = now;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
  log_ << stamp << " magi " << config_.id << " (" << config_.pod << "): " << line << std::endl;
}

void MagiMember::Probe() {
  const std::set<std::string> blocked = ReadBlockedNodes(config_.blocked_file);
  std::vector<std::future<ProbeResult>> probes;
  for (const NodeTarget& n : config_.nodes) {
    if (blocked.count(n.name)) {
      std::promise<ProbeResult> p;
      p.set_value(ProbeResult{false, false, "blocked by " + config_.blocked_file});
      probes.push_back(p.get_future());
    } else {
      probes.push_back(std::async(std::launch::async, ProbeNode, n, config_.probe_timeout));
    }
  }
  for (size_t i = 0; i < config_.nodes.size(); ++i) {
    ProbeResult r = probes[i].get();
    NodeEvidence& e = evidence_[config_.nodes[i].name];
    const bool was_up = e.probes == 0 || e.tcp_ok || e.http_ok;
    ++e.probes;
    e.tcp_ok = r.tcp_ok;
    e.http_ok = r.http_ok;
    e.last_error = r.error;
    const bool up = r.tcp_ok || r.http_ok;
    e.consecutive_failures = up ? 0 : e.consecutive_failures + 1;
    if (up != was_up || (e.probes == 1 && !up)) {
      const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      Log(now, "node " + e.node + (up ? " reachable" : " unreachable: " + r.error));
    }
  }
}

void MagiMember::EnsureLease() {
  if (lease_ != 0 && store_.KeepAlive(lease_) > 0) return;
  lease_ = store_.GrantLease(config_.lease_ttl);
}

void MagiMember::ReadHeartbeats(int64_t now) {
  for (const KeyValue& kv : store_.GetPrefix(Key("heartbeats/"))) {
    auto it = evidence_.find(kv.key.substr(Key("heartbeats/").size()));
    json hb = json::parse(kv.value, nullptr, false);
    if (it == evidence_.end() || hb.is_discarded() || !hb.contains("at")) continue;
    it->second.heartbeat_age = now - hb["at"].get<int64_t>();
  }
}

void MagiMember::Tick(int64_t now) {
  Probe();
  try {
    EnsureLease();
    std::map<std::string, KeyValue> decisions;
    for (KeyValue& kv : store_.GetPrefix(Key("decisions/"))) decisions[kv.key] = std::move(kv);
    std::map<std::string, KeyValue> proposals;
    for (KeyValue& kv : store_.GetPrefix(Key("proposals/"))) proposals[kv.key] = std::move(kv);
    ReadHeartbeats(now);

    // Nodes the quorum already recorded offline say nothing about this member's vantage point:
    // without this, a fleet losing many nodes would make every member think itself isolated.
    VantageEvidence vantage;
    vantage.peers_total = static_cast<int>(config_.members.size()) - 1;
    for (auto& [name, e] : evidence_) {
      e.offline_decided = decisions.count(Key("decisions/node-offline/" + name)) > 0;
      if (e.offline_decided) continue;
      ++vantage.nodes_probed;
      if (e.tcp_ok || e.http_ok) ++vantage.nodes_reachable;
    }
    const std::string own_key = Key("members/" + std::to_string(config_.id));
    store_.Put(own_key,
               json{{"id", config_.id},
                    {"pod", config_.pod},
                    {"at", now},
                    {"nodes_reachable", vantage.nodes_reachable},
                    {"nodes_probed", vantage.nodes_probed}}
                   .dump(),
               lease_);
    std::set<std::string> alive;
    for (const KeyValue& kv : store_.GetPrefix(Key("members/"))) alive.insert(kv.key);
    for (const Member& m : config_.members) {
      if (m.id != config_.id && alive.count(Key("members/" + std::to_string(m.id)))) {
        ++vantage.peers_alive;
      }
    }

    for (ProposalKind kind : kKinds) {
      const std::string kind_name(ProposalKindName(kind));
      for (const NodeTarget& n : config_.nodes) {
        const std::string suffix = kind_name + "/" + n.name;
        const std::string proposal_key = Key("proposals/" + suffix);
        if (auto d = decisions.find(Key("decisions/" + suffix)); d != decisions.end()) {
          if (decisions_seen_.insert(d->first).second) {
            json record = json::parse(d->second.value, nullptr, false);
            Log(now, "decision on record: " + suffix + " " +
                         (record.is_discarded()
                              ? d->second.value
                              : record.value("explanation", "") + " (recorded by member " +
                                    std::to_string(record.value("recorded_by", 0)) + ")"));
            store_.Delete(proposal_key);
            store_.DeletePrefix(Key("votes/" + suffix + "/"));
          }
          continue;
        }
        auto p = proposals.find(proposal_key);
        if (p == proposals.end()) {
          const Judgement j = Judge(kind, evidence_[n.name], vantage, config_.policy);
          if (j.verdict != Verdict::kYes) continue;
          json proposal = {
              {"kind", kind_name}, {"node", n.name}, {"opened_at", now}, {"opened_by", config_.id}};
          CreateResult created = store_.CreateIfAbsent(proposal_key, proposal.dump());
          if (created.created) Log(now, "opened proposal " + suffix + ": " + j.reason);
          p = proposals.emplace(proposal_key, created.current).first;
        }
        Vote(kind, n.name, p->second, vantage, now);
      }
    }
    if (!store_reachable_) Log(now, "store " + store_.endpoint() + " reachable again");
    store_reachable_ = true;
  } catch (const StoreError& e) {
    if (store_reachable_) Log(now, std::string("cannot use the store, not voting: ") + e.what());
    store_reachable_ = false;
  }
}

void MagiMember::Vote(ProposalKind kind, const std::string& node, const KeyValue& proposal_kv,
                      const VantageEvidence& vantage, int64_t now) {
  const std::string suffix = std::string(ProposalKindName(kind)) + "/" + node;
  json pj = json::parse(proposal_kv.value, nullptr, false);
  if (pj.is_discarded() || !pj.contains("opened_at")) {
    Log(now, "removing malformed proposal " + proposal_kv.key);
    store_.Delete(proposal_kv.key);
    return;
  }
  Proposal proposal{kind, node, pj["opened_at"].get<int64_t>(), pj.value("opened_by", 0)};

  const NodeEvidence& e = evidence_[node];
  const Judgement j = Judge(kind, e, vantage, config_.policy);
  json evidence = {{"probes", e.probes},
                   {"consecutive_failures", e.consecutive_failures},
                   {"tcp_ok", e.tcp_ok},
                   {"http_ok", e.http_ok},
                   {"last_error", e.last_error},
                   {"peers_alive", vantage.peers_alive},
                   {"nodes_reachable", vantage.nodes_reachable}};
  if (e.heartbeat_age) evidence["heartbeat_age"] = *e.heartbeat_age;
  const std::string vote_key = Key("votes/" + suffix + "/" + std::to_string(config_.id));
  store_.Put(vote_key,
             json{{"member", config_.id},
                  {"pod", config_.pod},
                  {"verdict", VerdictName(j.verdict)},
                  {"reason", j.reason},
                  {"cast_at", now},
                  {"evidence", evidence}}
                 .dump(),
             lease_);
  if (auto last = last_vote_.find(vote_key);
      last == last_vote_.end() || last->second != j.verdict) {
    Log(now, "votes " + std::string(VerdictName(j.verdict)) + " on " + suffix + ": " + j.reason);
    last_vote_[vote_key] = j.verdict;
  }

  std::vector<magi::Vote> votes;
  for (const KeyValue& kv : store_.GetPrefix(Key("votes/" + suffix + "/"))) {
    json v = json::parse(kv.value, nullptr, false);
    std::optional<Verdict> verdict =
        v.is_discarded() ? std::nullopt : ParseVerdict(v.value("verdict", ""));
    if (!verdict || !v.contains("member") || !v.contains("cast_at")) {
      Log(now, "ignoring malformed vote " + kv.key);
      continue;
    }
    votes.push_back(magi::Vote{v["member"].get<int>(), *verdict, v.value("reason", ""),
                               v["cast_at"].get<int64_t>()});
  }
  const Decision d = Decide(proposal, votes, config_.members, config_.rule, now);
  const Compare unchanged{proposal_kv.key, Compare::Target::kModRevision, Compare::Result::kEqual,
                          proposal_kv.mod_revision, ""};
  const TxnOp remove_proposal{TxnOp::Kind::kDelete, proposal_kv.key, "", 0};
  if (d.outcome == Outcome::kPassed) {
    CreateResult written =
        store_.CreateIfAbsent(Key("decisions/" + suffix), DecisionRecord(d, config_.id).dump());
    if (written.created) {
      Log(now, "recorded decision " + Describe(d));
    }
  } else if (d.outcome == Outcome::kExpired) {
    if (store_.Txn({unchanged}, {remove_proposal}, {}).succeeded) {
      Log(now, "closed proposal " + suffix + ": " + d.explanation);
      store_.DeletePrefix(Key("votes/" + suffix + "/"));
    }
  }
}

void MagiMember::Run(std::chrono::milliseconds duration, const std::atomic<bool>& stop) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto next = start;
  const int64_t started = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  Log(started, "watching " + std::to_string(config_.nodes.size()) + " nodes through " +
                   store_.endpoint() + ", quorum " + std::to_string(config_.rule.min_yes) + " of " +
                   std::to_string(config_.members.size()) + " from " +
                   std::to_string(config_.rule.min_pods) + " PODs");
  while (!stop && (duration.count() == 0 || Clock::now() - start < duration)) {
    Tick(std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count());
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
