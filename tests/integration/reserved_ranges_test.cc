// Reserved address blocks (those IANA's special-purpose registries mark as not globally
// reachable) stay out of a sandbox's reach in every network mode: user-mode networking (pasta
// behind the sandbox's routing-rule fence) and the egress proxy, whether the allowlist names
// the whole internet ("0.0.0.0/0:PORT") or a name that resolves into such a block.
//
// The test builds its own network, and nothing leaves the machine: paddock runs in a network
// namespace (the near side) whose only route leads over a veth pair to a second namespace (the
// far side), where a server answers "far-secret" on addresses in reserved blocks and, as
// controls that prove the path works, on addresses just outside them. An unprivileged user
// builds the same in a user namespace of its own that maps only its own uid: paddock then runs
// there as that user without subordinate ids (a setuid newuidmap is not honoured where root is
// not mapped), as it runs for a user who has none.

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/harness.h"
#include "support/helper_process.h"

namespace paddock::testing::reserved_ranges_test {
namespace {

constexpr const char* kPort = "8080";

// Run by bash in the near namespace, with the capabilities of its creator there; prints the
// port once the far side answers, and takes the far side down when it is stopped.
constexpr const char* kLabScript = R"lab(set -eu
port=$1
ip link set lo up
unshare --net -- sleep 900 &
far=$!
trap 'kill $far ${server:-} 2>/dev/null; exit 0' TERM INT
while [ "$(readlink /proc/$far/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.01; done
far_side() { nsenter --net=/proc/$far/ns/net -- "$@"; }
ip link add lab0 type veth peer name lab1 netns $far
ip addr add 10.200.0.1/30 dev lab0
ip -6 addr add fd00:200::1/64 dev lab0 nodad
ip link set lab0 up
ip route add default via 10.200.0.2
ip -6 route add default via fd00:200::2
far_side ip link set lo up
far_side ip addr add 10.200.0.2/30 dev lab1
far_side ip -6 addr add fd00:200::2/64 dev lab1 nodad
far_side ip link set lab1 up
for address in $FAR_IPV4; do far_side ip addr add $address/32 dev lo; done
for address in $FAR_IPV6; do far_side ip -6 addr add $address/128 dev lo nodad; done
# Started straight, not through far_side: the pid must be the server's own, for the trap.
nsenter --net=/proc/$far/ns/net -- timeout 900 python3 -c '
import socket, sys, threading
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", int(sys.argv[1]))); s.listen(64)
def serve(c):
    try:
        c.settimeout(5); c.recv(4096)
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 11\r\n\r\nfar-secret\n")
    except OSError:
        pass
    c.close()
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
' "$port" &
server=$!
until far_side python3 -c "import socket; socket.create_connection(('10.200.0.2', $port), 1)" \
    2>/dev/null; do sleep 0.05; done
echo "$port"
wait $far
)lab";

struct Target {
  const char* address;
  const char* block;  // what it stands for; empty for a control that must be reached
};

// In reserved blocks, one or more per kind: documentation, benchmarking, protocol assignments,
// a deprecated anycast, the NAT64 and 6to4 forms of a reserved IPv4 address, and IPv6's own.
const std::vector<Target>& reserved_targets() {
  static const std::vector<Target> kTargets = {
      {"192.0.2.1", "192.0.2.0/24 documentation (TEST-NET-1)"},
      {"198.18.0.1", "198.18.0.0/15 benchmarking"},
      {"198.19.255.1", "198.18.0.0/15 benchmarking"},
      {"198.51.100.1", "198.51.100.0/24 documentation (TEST-NET-2)"},
      {"203.0.113.1", "203.0.113.0/24 documentation (TEST-NET-3)"},
      {"192.0.0.1", "192.0.0.0/24 IETF protocol assignments"},
      {"192.88.99.1", "192.88.99.0/24 deprecated 6to4 relay anycast"},
      {"2001:db8::1", "2001:db8::/32 documentation"},
      {"3fff::1", "3fff::/20 documentation"},
      {"2001:2::1", "2001:2::/48 benchmarking"},
      {"100::1", "100::/64 discard-only"},
      {"64:ff9b:1::1", "64:ff9b:1::/48 local-use IPv4/IPv6 translation"},
      {"64:ff9b::c000:201", "192.0.2.1 through NAT64's well-known prefix"},
      {"2002:c000:201::1", "192.0.2.1 through 6to4"},
      {"::ffff:192.0.2.1", "192.0.2.1 as an IPv4-mapped IPv6 address"},
  };
  return kTargets;
}

// Just outside the reserved blocks: reached, or the refusals above would prove nothing.
const std::vector<Target>& control_targets() {
  static const std::vector<Target> kTargets = {
      {"198.20.0.1", ""},     {"2a00::1", ""},           {"64:ff9b::c614:1", ""},
      {"2002:c614:1::1", ""}, {"::ffff:198.20.0.1", ""},
  };
  return kTargets;
}

std::string addresses(int family) {
  std::string out;
  for (const auto* list : {&reserved_targets(), &control_targets()}) {
    for (const auto& target : *list) {
      std::string address = target.address;
      // An IPv4-mapped address reaches the IPv4 one, which is assigned as such.
      if (address.starts_with("::ffff:")) continue;
      bool ipv6 = address.find(':') != std::string::npos;
      if (ipv6 == (family == 6)) out += address + " ";
    }
  }
  return out;
}

// The network above, torn down when the test ends.
class Lab {
 public:
  Lab()
      : log_(::testing::TempDir() + "/paddock-reserved-lab-" + std::to_string(getpid()) + "-" +
             std::to_string(counter_++) + ".log"),
        server_(command(), log_) {
    ready_ = server_.port() == kPort;
  }
  ~Lab() {
    server_.stop();
    unlink(log_.c_str());
  }
  [[nodiscard]] bool ready() const { return ready_; }
  [[nodiscard]] std::string log() const { return server_.log(); }

  // paddock ARGS (or `binary` ARGS), run in the near namespace as the caller.
  CliResult paddock(const std::vector<std::string>& args,
                    const std::string& binary = paddock_binary()) const {
    std::string pid = std::to_string(server_.pid());
    std::vector<std::string> full = {"/usr/bin/nsenter", "--net=/proc/" + pid + "/ns/net"};
    if (geteuid() != 0) {
      full.insert(full.end(), {"--user=/proc/" + pid + "/ns/user", "--preserve-credentials"});
    }
    full.push_back("--");
    full.push_back(binary);
    full.insert(full.end(), args.begin(), args.end());
    // Nothing opened for the machine's registries (harness.cc) is open here.
    const char* opened = std::getenv("PADDOCK_ALLOW_PRIVATE");
    std::string saved = opened != nullptr ? opened : "";
    unsetenv("PADDOCK_ALLOW_PRIVATE");
    CliResult result = run_program(full);
    if (opened != nullptr) setenv("PADDOCK_ALLOW_PRIVATE", saved.c_str(), 1);
    return result;
  }

 private:
  static std::vector<std::string> command() {
    setenv("FAR_IPV4", addresses(4).c_str(), 1);
    setenv("FAR_IPV6", addresses(6).c_str(), 1);
    std::vector<std::string> args = {"/usr/bin/unshare"};
    // Root makes namespaces as it is; a user makes them in a user namespace of its own, keeping
    // the capabilities it has there for ip and nsenter.
    if (geteuid() != 0) args.insert(args.end(), {"--map-current-user", "--keep-caps"});
    args.insert(args.end(), {"--net", "--", "/bin/bash", "-c", kLabScript, "lab", kPort});
    return args;
  }
  static inline int counter_ = 0;
  std::string log_;
  Server server_;
  bool ready_ = false;
};

// Python run in the sandbox: one line per target, "<address> <outcome>", where the outcome is
// the body's last line, the proxy's status code if it refused, the errno name, or "timeout".
constexpr const char* kAttempts = R"py(import errno, socket, sys
via_proxy = sys.argv[1] == 'proxy'
def fetch(host):
    hostport = ('[%s]' % host if ':' in host else host) + ':8080'
    if via_proxy:
        s = socket.create_connection(('127.0.0.1', 3128), timeout=10)
        s.sendall(('GET http://%s/ HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n'
                   % (hostport, hostport)).encode())
    else:
        s = socket.create_connection((host, 8080), timeout=5)
        s.sendall(b'GET / HTTP/1.0\r\n\r\n')
    got = b''
    while True:
        chunk = s.recv(4096)
        if not chunk: break
        got += chunk
    status = got.split(b' ', 2)[1].decode() if got.startswith(b'HTTP/') else 'none'
    return got.strip().split(b'\n')[-1].decode() if status == '200' else status
# A refusal is at once; a timeout is retried, since the sandbox's first IPv6 packets may wait
# for its address to settle on a loaded machine.
for host in sys.argv[2:]:
    for attempt in range(3):
        try:
            outcome = fetch(host)
        except socket.timeout:
            outcome = 'timeout'
        except OSError as e:
            outcome = errno.errorcode.get(e.errno, str(e.errno))
        if outcome != 'timeout':
            break
    print(host, outcome, flush=True)
)py";

// What each target gave, by address.
std::map<std::string, std::string> outcomes(const std::string& out) {
  std::map<std::string, std::string> by_address;
  std::istringstream lines(out);
  std::string address, outcome;
  while (lines >> address >> outcome) by_address[address] = outcome;
  return by_address;
}

std::vector<std::string> all_targets() {
  std::vector<std::string> targets;
  for (const auto* list : {&reserved_targets(), &control_targets()}) {
    for (const auto& target : *list) targets.push_back(target.address);
  }
  return targets;
}

// Every reserved target refused with `refusal`, every control reached.
void expect_refused_and_controls_reached(const CliResult& result, const std::string& refusal) {
  auto by_address = outcomes(result.out);
  for (const auto& target : reserved_targets()) {
    EXPECT_EQ(by_address[target.address], refusal)
        << target.address << " (" << target.block << ")\n"
        << result.out << result.err;
  }
  for (const auto& target : control_targets()) {
    EXPECT_EQ(by_address[target.address], "far-secret")
        << target.address << " is outside every reserved block\n"
        << result.out << result.err;
  }
}

CliResult attempt(const Lab& lab, const std::string& how, std::vector<std::string> flags) {
  std::vector<std::string> args = {"run", "--timeout", "120"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "python3", "-c", kAttempts, how});
  for (const auto& target : all_targets()) args.push_back(target);
  return lab.paddock(args);
}

TEST(ReservedRanges, UserNetworkingRefusesEveryReservedBlockAtOnce) {
  Lab lab;
  ASSERT_TRUE(lab.ready()) << lab.log();
  CliResult result = attempt(lab, "direct", {"--network", "user"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  expect_refused_and_controls_reached(result, "EACCES");
}

TEST(ReservedRanges, TheProxyRefusesEveryReservedBlockUnderAWholeInternetPattern) {
  Lab lab;
  ASSERT_TRUE(lab.ready()) << lab.log();
  CliResult result = attempt(lab, "proxy",
                             {"--allow-host", std::string("0.0.0.0/0:") + kPort, "--allow-host",
                              std::string("[::/0]:") + kPort});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  expect_refused_and_controls_reached(result, "403");
}

TEST(ReservedRanges, TheProxyRefusesANameThatResolvesIntoAReservedBlock) {
  Lab lab;
  ASSERT_TRUE(lab.ready()) << lab.log();
  // The tests' own resolver for the proxy (paddock-test-names): each name to one address.
  std::string names;
  std::vector<std::string> flags;
  std::vector<std::pair<std::string, std::string>> name_of;  // address, name
  int index = 0;
  for (const auto& address : all_targets()) {
    std::string name = "far" + std::to_string(index++) + ".test";
    names += (names.empty() ? "" : ",") + name + "=" + address;
    flags.insert(flags.end(), {"--allow-host", name + ":" + kPort});
    name_of.emplace_back(address, name);
  }
  setenv("PADDOCK_EGRESS_TEST_RESOLVE", names.c_str(), 1);
  std::vector<std::string> args = {"run", "--timeout", "120"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "python3", "-c", kAttempts, "proxy"});
  for (const auto& [address, name] : name_of) args.push_back(name);
  CliResult result = lab.paddock(args, paddock_test_names_binary());
  unsetenv("PADDOCK_EGRESS_TEST_RESOLVE");
  EXPECT_EQ(result.exit_status, 0) << result.err;
  auto by_name = outcomes(result.out);
  for (const auto& [address, name] : name_of) {
    bool control = false;
    for (const auto& target : control_targets()) control = control || address == target.address;
    EXPECT_EQ(by_name[name], control ? "far-secret" : "403")
        << name << " resolves to " << address << "\n"
        << result.out << result.err;
  }
}

}  // namespace
}  // namespace paddock::testing::reserved_ranges_test
