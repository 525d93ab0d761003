#include "store/etcd_store.h"

#include <httplib.h>
#include <sys/socket.h>

#include <array>
#include <nlohmann/json.hpp>

namespace archimedes {
namespace {

using nlohmann::json;

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kBase64Alphabet[(n >> shift) & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += kBase64Alphabet[(n >> 18) & 63];
    out += kBase64Alphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kBase64Alphabet[(n >> 18) & 63];
    out += kBase64Alphabet[(n >> 12) & 63];
    out += kBase64Alphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string Base64Decode(const std::string& in) {
  static const std::array<int8_t, 256> kValue = [] {
    std::array<int8_t, 256> v;
    v.fill(-1);
    for (int i = 0; i < 64; ++i) v[uint8_t(kBase64Alphabet[i])] = int8_t(i);
    return v;
  }();
  std::string out;
  uint32_t bits = 0;
  int nbits = 0;
  for (char c : in) {
    if (c == '=') break;
    int8_t v = kValue[uint8_t(c)];
    if (v < 0) throw StoreError("etcd answered with invalid base64 \"" + in + "\"");
    bits = (bits << 6) | uint32_t(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out += char((bits >> nbits) & 0xff);
    }
  }
  return out;
}

// grpc-gateway writes int64 fields as JSON strings and omits fields holding their default.
int64_t Int64Field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return 0;
  if (it->is_string()) return std::stoll(it->get<std::string>());
  return it->get<int64_t>();
}

std::string BytesField(const json& j, const char* name) {
  auto it = j.find(name);
  return it == j.end() ? std::string() : Base64Decode(it->get<std::string>());
}

KeyValue ParseKeyValue(const json& j) {
  return KeyValue{
      BytesField(j, "key"),          BytesField(j, "value"),   Int64Field(j, "create_revision"),
      Int64Field(j, "mod_revision"), Int64Field(j, "version"), Int64Field(j, "lease")};
}

std::vector<KeyValue> ParseKvs(const json& j) {
  std::vector<KeyValue> out;
  if (auto it = j.find("kvs"); it != j.end()) {
    for (const json& kv : *it) out.push_back(ParseKeyValue(kv));
  }
  return out;
}

// The smallest key greater than every key that starts with `prefix`.
std::string PrefixEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    if (uint8_t(end.back()) < 0xff) {
      end.back() = char(uint8_t(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // etcd: "\0" as range end means "to the end of the keyspace"
}

json PutRequest(const std::string& key, const std::string& value, int64_t lease) {
  json j = {{"key", Base64Encode(key)}, {"value", Base64Encode(value)}};
  if (lease != 0) j["lease"] = std::to_string(lease);
  return j;
}

json RequestOp(const TxnOp& op) {
  switch (op.kind) {
    case TxnOp::Kind::kPut:
      return {{"request_put", PutRequest(op.key, op.value, op.lease)}};
    case TxnOp::Kind::kGet:
      return {{"request_range", {{"key", Base64Encode(op.key)}}}};
    case TxnOp::Kind::kDelete:
      return {{"request_delete_range", {{"key", Base64Encode(op.key)}}}};
  }
  return {};
}

json CompareJson(const Compare& c) {
  static constexpr const char* kResult[] = {"EQUAL", "NOT_EQUAL", "GREATER", "LESS"};
  json j = {{"key", Base64Encode(c.key)}, {"result", kResult[static_cast<int>(c.result)]}};
  switch (c.target) {
    case Compare::Target::kCreateRevision:
      j["target"] = "CREATE";
      j["create_revision"] = std::to_string(c.number);
      break;
    case Compare::Target::kModRevision:
      j["target"] = "MOD";
      j["mod_revision"] = std::to_string(c.number);
      break;
    case Compare::Target::kVersion:
      j["target"] = "VERSION";
      j["version"] = std::to_string(c.number);
      break;
    case Compare::Target::kValue:
      j["target"] = "VALUE";
      j["value"] = Base64Encode(c.value);
      break;
  }
  return j;
}

}  // namespace

EtcdStore::EtcdStore(const std::string& endpoint, std::chrono::milliseconds timeout)
    : endpoint_(endpoint), timeout_(timeout) {
  const std::string scheme = "http://";
  if (endpoint.rfind(scheme, 0) != 0 || endpoint.size() == scheme.size() ||
      endpoint.find(':', scheme.size()) == std::string::npos) {
    throw StoreError("etcd endpoint \"" + endpoint +
                     "\" is not an http://HOST:PORT URL (https is not supported)");
  }
  std::string host_port = endpoint.substr(scheme.size());
  while (!host_port.empty() && host_port.back() == '/') host_port.pop_back();
  base_url_ = scheme + host_port;
  client_ = std::make_unique<httplib::Client>(base_url_);
  if (!client_->is_valid()) throw StoreError("etcd endpoint \"" + endpoint + "\" is not valid");
  const auto seconds = timeout.count() / 1000;
  const auto micros = (timeout.count() % 1000) * 1000;
  client_->set_connection_timeout(seconds, micros);
  client_->set_read_timeout(seconds, micros);
  client_->set_write_timeout(seconds, micros);
}

EtcdStore::~EtcdStore() = default;

json EtcdStore::Call(const char* operation, const char* path, const json& body) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string where = std::string("etcd ") + endpoint_ + ": " + operation + ": ";
  // etcd sends its error answers chunked with an HTTP trailer, which cpp-httplib 0.11 reports as
  // a read error after it has delivered the body; collecting the body ourselves keeps etcd's
  // message.
  std::string received;
  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.body = body.dump();
  req.headers.emplace("Content-Type", "application/json");
  req.content_receiver = [&received](const char* data, size_t len, uint64_t, uint64_t) {
    received.append(data, len);
    return true;
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const bool ok = client_->send(req, res, error);
  json answer = json::parse(received, nullptr, /*allow_exceptions=*/false);
  if (!ok && (answer.is_discarded() || !answer.contains("error"))) {
    throw StoreError(where + httplib::to_string(error));
  }
  if (answer.is_discarded()) {
    throw StoreError(where + "HTTP " + std::to_string(res.status) + " with a non-JSON body \"" +
                     received.substr(0, 200) + "\"");
  }
  if (!ok || res.status != 200 || answer.contains("error")) {
    std::string message = answer.value("message", answer.value("error", std::string()));
    throw StoreError(where + (ok ? "HTTP " + std::to_string(res.status) + ": " : "") + message);
  }
  return answer;
}

int64_t EtcdStore::Put(const std::string& key, const std::string& value, int64_t lease) {
  json answer = Call("put", "/v3/kv/put", PutRequest(key, value, lease));
  return Int64Field(answer.value("header", json::object()), "revision");
}

std::optional<KeyValue> EtcdStore::Get(const std::string& key) {
  std::vector<KeyValue> kvs = ParseKvs(Call("get", "/v3/kv/range", {{"key", Base64Encode(key)}}));
  if (kvs.empty()) return std::nullopt;
  return std::move(kvs.front());
}

std::vector<KeyValue> EtcdStore::GetPrefix(const std::string& prefix) {
  return ParseKvs(
      Call("get prefix", "/v3/kv/range",
           {{"key", Base64Encode(prefix)}, {"range_end", Base64Encode(PrefixEnd(prefix))}}));
}

std::vector<KeyValue> EtcdStore::GetPrefixKeys(const std::string& prefix) {
  return ParseKvs(Call("get prefix keys", "/v3/kv/range",
                       {{"key", Base64Encode(prefix)},
                        {"range_end", Base64Encode(PrefixEnd(prefix))},
                        {"keys_only", true}}));
}

std::vector<KeyValue> EtcdStore::GetRange(const std::string& from, const std::string& end,
                                          int64_t limit) {
  return ParseKvs(Call("get range", "/v3/kv/range",
                       {{"key", Base64Encode(from)},
                        {"range_end", Base64Encode(end)},
                        {"limit", std::to_string(limit)}}));
}

int64_t EtcdStore::Delete(const std::string& key) {
  return Int64Field(Call("delete", "/v3/kv/deleterange", {{"key", Base64Encode(key)}}), "deleted");
}

int64_t EtcdStore::DeletePrefix(const std::string& prefix) {
  return Int64Field(
      Call("delete prefix", "/v3/kv/deleterange",
           {{"key", Base64Encode(prefix)}, {"range_end", Base64Encode(PrefixEnd(prefix))}}),
      "deleted");
}

TxnResult EtcdStore::Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                         const std::vector<TxnOp>& failure) {
  json body = {{"compare", json::array()}, {"success", json::array()}, {"failure", json::array()}};
  for (const Compare& c : compares) body["compare"].push_back(CompareJson(c));
  for (const TxnOp& op : success) body["success"].push_back(RequestOp(op));
  for (const TxnOp& op : failure) body["failure"].push_back(RequestOp(op));
  json answer = Call("txn", "/v3/kv/txn", body);
  TxnResult result;
  result.succeeded = answer.value("succeeded", false);
  if (auto it = answer.find("responses"); it != answer.end()) {
    for (const json& r : *it) {
      if (auto range = r.find("response_range"); range != r.end()) {
        for (KeyValue& kv : ParseKvs(*range)) result.found.push_back(std::move(kv));
      }
    }
  }
  return result;
}

CreateResult EtcdStore::CreateIfAbsent(const std::string& key, const std::string& value,
                                       int64_t lease) {
  TxnOp put{TxnOp::Kind::kPut, key, value, lease};
  TxnOp get{TxnOp::Kind::kGet, key, "", 0};
  TxnResult txn =
      Txn({Compare{key, Compare::Target::kCreateRevision, Compare::Result::kEqual, 0, ""}},
          {put, get}, {get});
  if (txn.found.empty()) {
    // Only possible if a lease expired between the two operations of the branch.
    throw StoreError("etcd " + endpoint_ + ": create " + key + ": key vanished inside the txn");
  }
  return CreateResult{txn.succeeded, std::move(txn.found.front())};
}

int64_t EtcdStore::GrantLease(int64_t ttl_seconds) {
  if (ttl_seconds <= 0) {
    throw StoreError("lease TTL must be positive, got " + std::to_string(ttl_seconds));
  }
  json answer = Call("grant lease", "/v3/lease/grant", {{"TTL", std::to_string(ttl_seconds)}});
  int64_t id = Int64Field(answer, "ID");
  if (id == 0) throw StoreError("etcd " + endpoint_ + ": grant lease: no lease id in the answer");
  return id;
}

int64_t EtcdStore::KeepAlive(int64_t lease) {
  json answer = Call("keep lease alive", "/v3/lease/keepalive", {{"ID", std::to_string(lease)}});
  return Int64Field(answer.value("result", json::object()), "TTL");
}

void EtcdStore::RevokeLease(int64_t lease) {
  try {
    Call("revoke lease", "/v3/lease/revoke", {{"ID", std::to_string(lease)}});
  } catch (const StoreError& e) {
    if (std::string(e.what()).find("lease not found") == std::string::npos) throw;
  }
}

int64_t EtcdStore::Revision() {
  const json answer =
      Call("revision", "/v3/kv/range", {{"key", Base64Encode("/")}, {"count_only", true}});
  return Int64Field(answer.value("header", json::object()), "revision");
}

void EtcdStore::Compact(int64_t revision) {
  try {
    Call("compact", "/v3/kv/compaction",
         {{"revision", std::to_string(revision)}, {"physical", true}});
  } catch (const StoreError& e) {
    // Compacted already, to this revision or a later one (by another replica, or by etcd's own
    // --auto-compaction): what was asked is done.
    if (std::string(e.what()).find("required revision has been compacted") == std::string::npos) {
      throw;
    }
  }
}

int64_t EtcdStore::Watch(const std::string& prefix, int64_t start_revision,
                         std::chrono::milliseconds idle,
                         const std::function<bool(const WatchEvent&)>& on_event) {
  const std::string where = "etcd " + endpoint_ + ": watch " + prefix + ": ";
  httplib::Client client(base_url_);
  client.set_connection_timeout(timeout_.count() / 1000, (timeout_.count() % 1000) * 1000);
  client.set_read_timeout(idle.count() / 1000, (idle.count() % 1000) * 1000);
  // A cancel that comes before the connection exists finds no socket to stop: the socket is shut
  // as it is made, and the first message (etcd's "created") is refused.
  const auto cancelled = [this] {
    std::lock_guard lock(watch_mu_);
    return watch_cancelled_;
  };
  client.set_socket_options([&cancelled](socket_t socket) {
    if (cancelled()) shutdown(socket, SHUT_RDWR);
  });
  {
    std::lock_guard lock(watch_mu_);
    if (watch_cancelled_) return start_revision - 1;
    watch_client_ = &client;
  }
  struct Release {
    EtcdStore& store;
    ~Release() {
      std::lock_guard lock(store.watch_mu_);
      store.watch_client_ = nullptr;
    }
  } release{*this};

  int64_t last = start_revision - 1;
  bool created = false;
  bool stopped = false;
  std::string refused;    // etcd's error or cancel reason
  int64_t compacted = 0;  // etcd's compact revision, when it compacted what was asked
  std::string pending;    // a message not yet complete
  httplib::Request req;
  req.method = "POST";
  req.path = "/v3/watch";
  req.body = json{{"create_request",
                   {{"key", Base64Encode(prefix)},
                    {"range_end", Base64Encode(PrefixEnd(prefix))},
                    {"start_revision", std::to_string(start_revision)}}}}
                 .dump();
  req.headers.emplace("Content-Type", "application/json");
  // The gateway writes one JSON message per line.
  req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
    if (cancelled()) return false;
    pending.append(data, len);
    for (size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      const json message = json::parse(pending.substr(0, end), nullptr, false);
      pending.erase(0, end + 1);
      if (message.is_discarded()) continue;
      if (message.contains("error")) {
        refused = message["error"].value("message", message["error"].dump());
        return false;
      }
      const json result = message.value("result", json::object());
      if (Int64Field(result, "compact_revision") > 0) {
        compacted = Int64Field(result, "compact_revision");
        return false;
      }
      if (result.value("canceled", false)) {
        refused = "canceled: " + result.value("cancel_reason", std::string("no reason given"));
        return false;
      }
      created = created || result.value("created", false);
      for (const json& e : result.value("events", json::array())) {
        WatchEvent event;
        event.type = e.value("type", std::string("PUT")) == "DELETE" ? WatchEvent::Type::kDelete
                                                                     : WatchEvent::Type::kPut;
        event.kv = ParseKeyValue(e.value("kv", json::object()));
        last = event.kv.mod_revision;
        if (!on_event(event)) {
          stopped = true;
          return false;
        }
      }
    }
    return true;
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  client.send(req, res, error);
  if (compacted > 0) {
    throw WatchCompacted(where + "revision " + std::to_string(start_revision) +
                             " was compacted (compact revision " + std::to_string(compacted) + ")",
                         compacted);
  }
  if (!refused.empty()) throw StoreError(where + refused);
  if (!created && !stopped) {
    bool cancelled = false;
    {
      std::lock_guard lock(watch_mu_);
      cancelled = watch_cancelled_;
    }
    if (!cancelled) {
      throw StoreError(where + (error != httplib::Error::Success
                                    ? httplib::to_string(error)
                                    : "HTTP " + std::to_string(res.status) + " without a watch"));
    }
  }
  return last;
}

void EtcdStore::CancelWatch() {
  std::lock_guard lock(watch_mu_);
  watch_cancelled_ = true;
  if (watch_client_ != nullptr) watch_client_->stop();
}

}  // namespace archimedes
