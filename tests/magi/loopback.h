// What MAGI's tests stand up on loopback: an HTTP server answering one GET route (a node's
// /healthz, serve's /v1/nodes), and a TCP port held open, listening or not.
#ifndef ARCHIMEDES_TESTS_MAGI_LOOPBACK_H_
#define ARCHIMEDES_TESTS_MAGI_LOOPBACK_H_

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <utility>

namespace archimedes::testing {

// Answers GET `path` with `status` and `body` on a free 127.0.0.1 port until stopped.
class HttpStub {
 public:
  explicit HttpStub(const std::string& path, int status = 200, std::string body = "ok") {
    server_.Get(path,
                [status, body = std::move(body)](const httplib::Request&, httplib::Response& res) {
                  res.status = status;
                  res.set_content(body, "application/json");
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~HttpStub() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string url() const { return "http://" + address(); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// A loopback TCP port held while the object lives, so no other process takes it: listening
// (connects succeed and nothing is ever answered, as a TLS-only kubelet looks to a client without
// credentials) or only bound (connects are refused at once). `family` AF_INET or AF_INET6.
class LoopbackPort {
 public:
  explicit LoopbackPort(bool listening, int family = AF_INET) {
    fd_ = socket(family, SOCK_STREAM, 0);
    sockaddr_storage storage{};
    auto* addr = reinterpret_cast<sockaddr*>(&storage);
    socklen_t len = 0;
    if (family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_loopback;
      len = sizeof(sockaddr_in6);
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&storage);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof(sockaddr_in);
    }
    ok_ = fd_ >= 0 && bind(fd_, addr, len) == 0 && getsockname(fd_, addr, &len) == 0 &&
          (!listening || listen(fd_, 16) == 0);
    const int port = family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(addr)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(addr)->sin_port);
    address_ = (family == AF_INET6 ? "[::1]:" : "127.0.0.1:") + std::to_string(port);
  }
  ~LoopbackPort() {
    if (fd_ >= 0) close(fd_);
  }
  LoopbackPort(const LoopbackPort&) = delete;
  LoopbackPort& operator=(const LoopbackPort&) = delete;

  bool ok() const { return ok_; }  // false: the machine refused (no IPv6 loopback, say)
  const std::string& address() const { return address_; }
  std::string url() const { return "http://" + address_; }

 private:
  int fd_ = -1;
  bool ok_ = false;
  std::string address_;
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_MAGI_LOOPBACK_H_
