// `archimedes serve` (DESIGN §10): the control plane behind an HTTP API, its state in the journal
// of the data folder, or in etcd shared by replicas (server/replica.h). Construction opens the
// journal and binds the listening socket (so the port is known before serving); Run restores the
// state by replaying the journal (/readyz answers 503 until then), then serves, moving a wall
// clock once per cycle while it leads, until Stop. Stop is graceful: the listening socket closes,
// requests in flight finish (waiting long-polls answer at once), and since every answered
// mutation is already in the journal nothing is left to persist; a leader on etcd hands the lead
// over.
#ifndef ARCHIMEDES_SERVER_API_SERVER_H_
#define ARCHIMEDES_SERVER_API_SERVER_H_

#include <httplib.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "server/config.h"
#include "server/control_plane.h"
#include "server/etcd_journal.h"
#include "server/journal.h"
#include "server/kube_api_client.h"
#include "server/metrics.h"
#include "server/router.h"

namespace archimedes {

class MagiHeartbeats;

class ApiServer {
 public:
  // Throws ConfigError (a kube-api token or CA file missing too), JournalError, or
  // std::runtime_error when the address cannot be bound.
  explicit ApiServer(ServerConfig config);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const { return port_; }
  // "sqlite <data>/journal.db", or "etcd <endpoints> <prefix>".
  std::string store_description() const;
  // Blocks until Stop. Returns the number of events replayed at start. Throws JournalError when
  // the journal cannot be replayed.
  int64_t Run();
  // Safe from any thread, any number of times.
  void Stop();

 private:
  // Judges the nodes by their agents' contact (server/node_liveness.h), through the node status
  // event: a silent agent's node turns NotReady, or Suspect when MAGI's quorum decides; one heard
  // again turns Ready (a node the quorum holds offline only once it readmits it).
  void JudgeAgents();
  // Hands the agents' latest contacts, and the Kubernetes nodes' Lease renewals, to MAGI's
  // members as the nodes' heartbeats.
  void RenewHeartbeats(MagiHeartbeats& heartbeats);

  ServerConfig config_;
  std::unique_ptr<Journal> journal_;
  EtcdJournal* etcd_journal_ = nullptr;  // journal_, when the store is etcd
  KubeApiLocation kube_api_;             // with kube-api: where and how to reach it
  ControlPlane plane_;
  ServerMetrics metrics_;
  ApiContext context_;
  httplib::Server http_;
  int port_ = 0;
  socket_t listening_socket_ = -1;  // as httplib made it, to widen its backlog
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_requested_ = false;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_API_SERVER_H_
