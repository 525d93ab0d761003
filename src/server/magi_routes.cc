// /v1/magi: the node-liveness decisions MAGI's members recorded (docs/magi.md). The members
// (`archimedes magi`) keep them in etcd under decisions/<kind>/<node> of their key prefix, which
// here is the store's prefix followed by "magi/" (the defaults of both: /archimedes/magi/). With
// the SQLite store there is no etcd to read: the answer says so rather than show nothing.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/api_error.h"
#include "server/etcd_location.h"
#include "server/router.h"
#include "store/etcd_cluster.h"

namespace archimedes {

void AddMagiRoutes(Router& router, ApiContext& context) {
  std::shared_ptr<KvStore> store;
  std::string prefix;
  if (IsEtcdStore(context.config.store)) {
    const EtcdLocation location = ParseEtcdLocation(context.config.store);
    // Its own connections: a read here never waits behind the journal's appends.
    store = std::make_shared<EtcdCluster>(location.endpoints);
    prefix = location.prefix + "magi/";
  }
  router.Get("/v1/magi", "/v1/magi", [&context, store, prefix](const httplib::Request&) {
    context.CheckReady();
    nlohmann::json answer = {{"kind", "MagiDecisionList"}, {"items", nlohmann::json::array()}};
    if (!store) {
      answer["store"] = "sqlite";
      answer["message"] =
          "MAGI needs the etcd store: its members record their decisions in etcd "
          "(start serve with --store etcd://HOST:PORT and run archimedes magi against the same "
          "etcd)";
      return Reply{200, answer};
    }
    answer["store"] = "etcd";
    answer["prefix"] = prefix;
    std::vector<KeyValue> records;
    try {
      records = store->GetPrefix(prefix + "decisions/");
    } catch (const StoreError& e) {
      throw Unavailable(std::string("cannot read MAGI's decisions from etcd: ") + e.what());
    }
    for (const KeyValue& kv : records) {
      nlohmann::json record = nlohmann::json::parse(kv.value, nullptr, false);
      if (!record.is_object()) {
        record = {{"key", kv.key}, {"message", "not a decision record: " + kv.value}};
      }
      answer["items"].push_back(std::move(record));
    }
    answer["message"] =
        records.empty() ? "no decision recorded under " + prefix + "decisions/" : "";
    return Reply{200, answer};
  });
}

}  // namespace archimedes
