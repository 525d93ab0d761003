// A client that keeps its connection (wrk, a node agent, a Kubernetes extender call site) sends
// many requests over it: the server must not close it after httplib's default of five, or every few
// requests pay a reconnect (measured in docs/api.md "Load").
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "server/test_server.h"

namespace archimedes {
namespace {

using testing::TestServer;

// One HTTP/1.1 exchange on `fd`: the head of the answer (up to the blank line) and its body of
// Content-Length bytes; empty when the server closed the connection.
std::string Exchange(int fd, const std::string& request) {
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    return {};
  }
  std::string answer;
  char buf[4096];
  size_t head_end = std::string::npos;
  size_t length = 0;
  while (head_end == std::string::npos || answer.size() < head_end + 4 + length) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return {};
    answer.append(buf, static_cast<size_t>(n));
    if (head_end == std::string::npos &&
        (head_end = answer.find("\r\n\r\n")) != std::string::npos) {
      const size_t at = answer.find("Content-Length: ");
      if (at != std::string::npos && at < head_end) length = std::stoul(answer.substr(at + 16));
    }
  }
  return answer.substr(0, head_end);
}

TEST(KeepAliveTest, OneConnectionCarriesManyRequests) {
  TestServer server;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(server.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  for (int i = 0; i < 50; ++i) {
    const std::string head =
        Exchange(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    ASSERT_FALSE(head.empty()) << "request " << i + 1 << ": the connection was closed";
    EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u) << head;
    EXPECT_EQ(head.find("Connection: close"), std::string::npos)
        << "request " << i + 1 << " of one connection was answered with:\n"
        << head;
  }
  close(fd);
}

}  // namespace
}  // namespace archimedes
