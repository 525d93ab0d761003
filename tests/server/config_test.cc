#include "server/config.h"
#include "server/etcd_location.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "server/test_server.h"

namespace archimedes {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigTest, EveryKeyIsSetFromText) {
  ServerConfig c;
  SetConfigKey(c, "listen", "0.0.0.0:9090");
  SetConfigKey(c, "data", "/var/lib/archimedes");
  SetConfigKey(c, "policy", "reclaim");
  SetConfigKey(c, "seed", "42");
  SetConfigKey(c, "clock", "virtual");
  SetConfigKey(c, "cycle", "2s");
  SetConfigKey(c, "usage-round", "1m");
  SetConfigKey(c, "adopt-profiles", "6h");
  SetConfigKey(c, "max-body", "4Mi");
  EXPECT_EQ(MaxPriorsBody(c), 256 << 20);
  SetConfigKey(c, "max-priors-body", "64Mi");
  SetConfigKey(c, "http-threads", "128");
  SetConfigKey(c, "buffer", "0.25");
  SetConfigKey(c, "node-grace", "2m");
  SetConfigKey(c, "magi-heartbeat", "5s");
  EXPECT_EQ(ListenAddress(c), "0.0.0.0:9090");
  EXPECT_EQ(c.data, "/var/lib/archimedes");
  EXPECT_EQ(c.policy, "reclaim");
  EXPECT_EQ(c.seed, 42u);
  EXPECT_EQ(c.clock, ClockMode::kVirtual);
  EXPECT_EQ(c.cycle_s, 2);
  EXPECT_EQ(c.usage_round_s, 60);
  EXPECT_EQ(c.adopt_profiles_s, 6 * 3600);
  EXPECT_EQ(c.max_body_bytes, 4 << 20);
  EXPECT_EQ(MaxPriorsBody(c), 64 << 20);
  EXPECT_EQ(c.http_threads, 128);
  EXPECT_EQ(c.buffer, 0.25);
  EXPECT_EQ(c.node_grace_s, 120);
  EXPECT_EQ(c.magi_heartbeat_s, 5);
  EXPECT_EQ(ConfigKeys().size(), 22u);
}

TEST(ConfigTest, BadValuesAreNamed) {
  ServerConfig c;
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "seed", "-1"); }).find("seed \"-1\""), std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "listen", "8080"); }).find("listen \"8080\""),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "listen", "h:70000"); }).find("[0, 65535]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "policy", "fastest"); }).find("fastest"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "clock", "sundial"); }).find("wall or virtual"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "cycle", "0s"); }).find("at least 1s"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "node-grace", "-5s"); }).find("node-grace \"-5s\""),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "magi-heartbeat", "-1s"); }).find("must not be negative"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "cycle", "1 second"); }).find("cycle \"1 second\""),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "max-body", "12"); }).find("1Ki"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "max-priors-body", "1Gi"); }).find("at most 256Mi"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              SetConfigKey(c, "store", "etcd://127.0.0.1");
            }).find("member \"127.0.0.1\" is not HOST:PORT"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "store", "etcd://a:1,,b:2"); }).find("member \"\""),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "store", "postgres"); }).find("unknown store"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "leader-lease", "1s"); }).find("at least 2s"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "advertise", "10.0.0.1:80"); }).find("http://"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "http-threads", "1"); }).find("[2, 4096]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "colour", "blue"); }).find("unknown key \"colour\""),
            std::string::npos);
  for (const char* buffer : {"-0.1", "0.95", "nan", "10%"}) {
    EXPECT_NE(ErrorOf([&] { SetConfigKey(c, "buffer", buffer); }).find("[0, 0.9]"),
              std::string::npos)
        << buffer;
  }
  // Nothing half-set.
  EXPECT_EQ(ListenAddress(c), "127.0.0.1:8080");
  EXPECT_EQ(c.cycle_s, 1);
}

// A buffer goes only to a policy that keeps one, whichever key was set first.
TEST(ConfigTest, ABufferNeedsAPolicyThatKeepsOne) {
  ServerConfig c;
  SetConfigKey(c, "buffer", "0.2");
  CheckConfig(c);
  EXPECT_EQ(BufferSetting(c), "0.2");
  EXPECT_DOUBLE_EQ(ConfiguredPolicy(c).buffer, 0.2);
  SetConfigKey(c, "policy", "k8s-default");
  EXPECT_NE(ErrorOf([&] { CheckConfig(c); }).find("policy \"k8s-default\" keeps no burst buffer"),
            std::string::npos);
  c.buffer.reset();
  CheckConfig(c);
  EXPECT_EQ(BufferSetting(c), "none");
}

TEST(ConfigTest, AnEtcdStoreNamesItsMembersAndPrefix) {
  ServerConfig c;
  SetConfigKey(c, "store", "etcd://127.0.0.1:2379,10.0.0.2:2379");
  EXPECT_EQ(c.store, "etcd://127.0.0.1:2379,10.0.0.2:2379");
  const EtcdLocation plain = ParseEtcdLocation(c.store);
  EXPECT_EQ(plain.endpoints,
            (std::vector<std::string>{"http://127.0.0.1:2379", "http://10.0.0.2:2379"}));
  EXPECT_EQ(plain.prefix, "/archimedes/");
  EXPECT_EQ(ParseEtcdLocation("etcd://h:1/team-a/scheduler/").prefix, "/team-a/scheduler/");
  // An event is one etcd value: priors too.
  EXPECT_EQ(MaxPriorsBody(c), kMaxEtcdEventBytes);
  SetConfigKey(c, "leader-lease", "3s");
  EXPECT_EQ(c.leader_lease_s, 3);
}

TEST(ConfigTest, FileErrorsNameTheFileAndLine) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/serve.yaml";
  std::ofstream(path) << "# settings\nlisten: 127.0.0.1:0\nclock: virtual\ncycle: 5s\n";
  ServerConfig c;
  ReadConfigFile(path, c);
  EXPECT_EQ(c.port, 0);
  EXPECT_EQ(c.clock, ClockMode::kVirtual);
  EXPECT_EQ(c.cycle_s, 5);

  std::ofstream(path) << "listen: 127.0.0.1:0\npolicy: nope\n";
  EXPECT_NE(ErrorOf([&] { ReadConfigFile(path, c); }).find(path + ":2: policy \"nope\""),
            std::string::npos);
  std::ofstream(path) << "listen: [1, 2]\n";
  EXPECT_NE(ErrorOf([&] { ReadConfigFile(path, c); }).find(path + ":1:"), std::string::npos);
  std::ofstream(path) << "listen: \"unterminated\n";
  EXPECT_NE(ErrorOf([&] { ReadConfigFile(path, c); }).find(path + ":"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { ReadConfigFile(dir + "/absent.yaml", c); }).find("cannot read"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ReadConfigFile(dir, c); }).find("cannot read " + dir + ": is a folder"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ConfigTest, AnUnknownKeyNamesItsLine) {
  ServerConfig c;
  const std::string e = ErrorOf(
      [&] { ReadConfigText("serve.yaml", "listen: 127.0.0.1:0\n\n# colours\ncolour: blue\n", c); });
  EXPECT_EQ(e.rfind("serve.yaml:4: unknown key \"colour\" (known: listen, data,", 0), 0u) << e;
}

// Found by the issue-19 mutation sweep: the second value of a key won silently.
TEST(ConfigTest, AKeySetTwiceIsRefused) {
  ServerConfig c;
  const std::string e = ErrorOf([&] {
    ReadConfigText("serve.yaml", "policy: archimedes\nclock: virtual\npolicy: k8s-default\n", c);
  });
  EXPECT_EQ(e, "serve.yaml:3: \"policy\" is set twice (first at line 1)");
}

TEST(ConfigTest, TextThatIsNotSettingsIsRefusedWithItsLine) {
  ServerConfig c;
  const auto error_of = [&](const std::string& text) {
    return ErrorOf([&] { ReadConfigText("serve.yaml", text, c); });
  };
  EXPECT_EQ(error_of("\n- listen\n- data\n"), "serve.yaml:2: expected a mapping of keys to values");
  EXPECT_EQ(error_of("listen: 127.0.0.1:0\n---\nclock: virtual\n"),
            "serve.yaml:3: a second document; the settings are one mapping");
  EXPECT_EQ(error_of("clock: virtual\ndata:\n"),
            "serve.yaml:2: expected key: value with a plain value");
  EXPECT_EQ(error_of("data: caf\xe9\n").rfind("serve.yaml:1: invalid text at byte 9:", 0), 0u);
  EXPECT_EQ(error_of("data: [" + std::string(80, '[')),
            "serve.yaml:1: nested deeper than 64 levels");
  EXPECT_EQ(error_of("seed: 1\nclock: [virtual\n").rfind("serve.yaml:3: not valid YAML:", 0), 0u);
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 8; ++level) {
    const std::string name = std::string(1, static_cast<char>('a' + level));
    const std::string previous = "*" + std::string(1, static_cast<char>('a' + level - 1));
    laughs += name + ": &" + name + " [" + previous;
    for (int i = 1; i < 8; ++i) laughs += ", " + previous;
    laughs += "]\n";
  }
  EXPECT_NE(error_of(laughs).find("aliases expand past"), std::string::npos);
  // Comments alone, or an empty document, set nothing; quoted values are values.
  ReadConfigText("serve.yaml", "# nothing yet\n", c);
  ReadConfigText("serve.yaml", "---\n", c);
  ReadConfigText("serve.yaml", "clock: 'virtual'\nseed: \"7\"\n", c);
  EXPECT_EQ(c.clock, ClockMode::kVirtual);
  EXPECT_EQ(c.seed, 7u);
}

}  // namespace
}  // namespace archimedes
