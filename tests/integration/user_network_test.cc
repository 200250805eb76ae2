// User-mode networking (--network user, and every library installer) reaches the outside world
// and nothing of the host: not its loopback (through the gateway address or pasta's loopback
// splicing), not the private, link-local and metadata ranges around it, and nothing connects in.
// Each test starts its own bait on the host and attacks it from inside a real sandbox.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/harness.h"
#include "support/helper_process.h"

namespace paddock::testing::user_network_test {
namespace {

// TCP and UDP services on the host's 127.0.0.1 that answer "host-secret" to anyone.
class LoopbackBait {
 public:
  LoopbackBait()
      : ports_file_(::testing::TempDir() + "/paddock-bait-" + std::to_string(getpid()) + "-" +
                    std::to_string(counter_++)),
        server_({"/usr/bin/python3", "-c", kScript, ports_file_}, ports_file_ + ".log") {
    for (int i = 0; i < 100 && (tcp_port_ == 0 || udp_port_ == 0); ++i) {
      std::ifstream in(ports_file_);
      in >> tcp_port_ >> udp_port_;
      if (tcp_port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~LoopbackBait() {
    server_.stop();
    unlink(ports_file_.c_str());
    unlink((ports_file_ + ".tmp").c_str());
    unlink((ports_file_ + ".log").c_str());
  }
  [[nodiscard]] int tcp_port() const { return tcp_port_; }
  [[nodiscard]] int udp_port() const { return udp_port_; }

 private:
  static constexpr const char* kScript =
      "import os, socket, sys, threading\n"
      "t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
      "t.bind(('127.0.0.1', 0)); t.listen(16)\n"
      "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 0))\n"
      "open(sys.argv[1] + '.tmp', 'w').write('%d %d\\n' % (t.getsockname()[1],"
      " u.getsockname()[1]))\n"
      "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
      "def serve_tcp():\n"
      "    while True:\n"
      "        c, _ = t.accept(); c.sendall(b'host-secret\\n'); c.close()\n"
      "threading.Thread(target=serve_tcp, daemon=True).start()\n"
      "while True:\n"
      "    data, peer = u.recvfrom(100); u.sendto(b'host-secret', peer)\n";
  static inline int counter_ = 0;
  std::string ports_file_;
  Server server_;
  int tcp_port_ = 0;
  int udp_port_ = 0;
};

// The host's default IPv4 gateway: pasta gives the sandbox the same one.
std::string host_gateway() {
  std::ifstream routes("/proc/net/route");
  std::string line;
  std::getline(routes, line);
  while (std::getline(routes, line)) {
    std::istringstream fields(line);
    std::string device, destination, gateway;
    fields >> device >> destination >> gateway;
    if (destination == "00000000") {
      in_addr address{static_cast<in_addr_t>(std::stoul(gateway, nullptr, 16))};
      return inet_ntoa(address);
    }
  }
  return "";
}

// Python run in the sandbox: one line per attempt, "<what> <addr> <outcome>", where the outcome
// is what came back, or the errno name of the refusal, or "timeout".
constexpr const char* kAttempts =
    "import errno, socket, sys\n"
    "def outcome(fn):\n"
    "    try:\n"
    "        return repr(fn())\n"
    "    except socket.timeout:\n"
    "        return 'timeout'\n"
    "    except OSError as e:\n"
    "        return errno.errorcode.get(e.errno, str(e.errno))\n"
    "def tcp(host, port):\n"
    "    family = socket.AF_INET6 if ':' in host else socket.AF_INET\n"
    "    s = socket.socket(family); s.settimeout(3); s.connect((host, port)); return s.recv(100)\n"
    "def udp(host, port):\n"
    "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)\n"
    "    s.sendto(query, (host, port)); return s.recvfrom(512)[0][:12]\n"
    "# A DNS query for example.org: a resolver answers it, any UDP bait answers anything.\n"
    "query = bytes.fromhex('123401000001000000000000076578616d706c65036f72670000010001')\n"
    "args = sys.argv[1:]\n"
    "while args:\n"
    "    kind, host, port = args[0], args[1], int(args[2]); args = args[3:]\n"
    "    fn = tcp if kind == 'tcp' else udp\n"
    "    print(kind, host, port, outcome(lambda: fn(host, port)), flush=True)\n";

CliResult attempt(const std::vector<std::string>& targets,
                  const std::vector<std::string>& extra_flags = {}) {
  std::vector<std::string> args = {"run", "--network", "user", "--timeout", "60"};
  args.insert(args.end(), extra_flags.begin(), extra_flags.end());
  args.insert(args.end(), {"--", "python3", "-c", kAttempts});
  args.insert(args.end(), targets.begin(), targets.end());
  return run_cli(args);
}

TEST(UserNetwork, TheHostsLoopbackIsUnreachableOverTcpAndUdp) {
  LoopbackBait bait;
  ASSERT_NE(bait.tcp_port(), 0) << "the bait did not start";
  std::string gateway = host_gateway();
  ASSERT_FALSE(gateway.empty()) << "this test needs a default route";
  std::string tcp = std::to_string(bait.tcp_port()), udp = std::to_string(bait.udp_port());
  // The gateway address (pasta maps it to the host by default) and the sandbox's own loopback
  // (pasta splices bound host loopback ports into it by default), TCP and UDP.
  CliResult result = attempt(
      {"tcp", gateway, tcp, "tcp", "127.0.0.1", tcp, "udp", gateway, udp, "udp", "127.0.0.1", udp});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out.find("host-secret"), std::string::npos) << result.out;
  // Every attempt ran and reported.
  EXPECT_NE(result.out.find("udp 127.0.0.1"), std::string::npos) << result.out << result.err;
}

TEST(UserNetwork, PrivateLinkLocalAndMetadataRangesAreRefusedAtOnce) {
  // Refused by the sandbox's own routing rules (EACCES), not left to time out somewhere: the
  // cloud metadata address, RFC 1918, shared address space, and IPv6 unique and link-local.
  CliResult result = attempt({"tcp", "169.254.169.254", "80", "tcp", "10.0.0.1",      "80",
                              "tcp", "172.16.0.1",      "80", "tcp", "192.168.0.1",   "80",
                              "tcp", "100.64.0.1",      "80", "udp", "10.255.255.53", "53",
                              "tcp", "fd00::1",         "80"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  std::istringstream lines(result.out);
  std::string line;
  int refused = 0;
  while (std::getline(lines, line)) {
    EXPECT_NE(line.find("EACCES"), std::string::npos) << line;
    ++refused;
  }
  EXPECT_EQ(refused, 7) << result.out << result.err;
}

TEST(UserNetwork, ThePublicNetworkAndDnsStillWork) {
  CliResult result = run_cli({"run", "--network", "user", "--", "python3", "-c",
                              "import socket\n"
                              "print(socket.getaddrinfo('registry.npmjs.org', 443)[0][4][1])\n"
                              "socket.create_connection(('registry.npmjs.org', 443), timeout=5)\n"
                              "print('reached')"});
  EXPECT_EQ(result.out, "443\nreached\n") << result.err;
}

// Connects to 127.0.0.1:port from the host, for `seconds`; true if anything answered.
bool host_can_connect(int port, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (accepts_connections(port)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(UserNetwork, NothingConnectsInToAPortTheSandboxListensOn) {
  int port = free_port();
  CliResult result;
  std::thread sandbox([&] {
    result =
        run_cli({"run", "--network", "user", "--", "python3", "-c",
                 "import socket, time\n"
                 "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                 "s.bind(('0.0.0.0', " +
                     std::to_string(port) +
                     ")); s.listen(4); s.settimeout(4)\n"
                     "try:\n    s.accept(); print('accepted')\n"
                     "except socket.timeout:\n    print('nobody came')\n"});
  });
  // pasta looks for newly bound ports about once a second: give it a few chances.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  bool connected = host_can_connect(port, 3);
  sandbox.join();
  EXPECT_FALSE(connected);
  EXPECT_EQ(result.out, "nobody came\n") << result.err;
}

TEST(UserNetwork, PastaRunsAsTheSandboxsOwnUnprivilegedIdentity) {
  // The marker is put together inside, so only the program's command line holds it whole.
  std::string suffix = "identity-" + std::to_string(getpid());
  std::string marker = "paddock-pasta-" + suffix;
  CliResult result;
  std::thread sandbox([&] {
    result = run_cli({"run", "--network", "user", "--", "bash", "-c",
                      "exec -a \"paddock-pasta-$1\" sleep 3", "bash", suffix});
  });
  std::vector<pid_t> payload, pasta;
  for (int i = 0; i < 50 && (payload.empty() || pasta.empty()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    payload = processes_with(marker);
    pasta = processes_of_this_user_with("--netns /proc/self/fd/5");
  }
  long program_uid = payload.size() == 1 ? host_uid_of(payload[0]) : -1;
  long pasta_uid = pasta.size() == 1 ? host_uid_of(pasta[0]) : -1;
  sandbox.join();
  ASSERT_EQ(payload.size(), 1u);
  ASSERT_EQ(pasta.size(), 1u);
  EXPECT_NE(pasta_uid, 0) << "pasta ran as host root";
  EXPECT_EQ(pasta_uid, program_uid) << "pasta should run as the sandbox's own host uid";
  EXPECT_EQ(result.exit_status, 0) << result.err;
}

// The parent of `pid`, or 0.
pid_t parent_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto after_name = all.rfind(')');
  if (after_name == std::string::npos) return 0;
  std::istringstream fields(all.substr(after_name + 2));
  std::string state;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

// What /proc/PID/environ holds, read at once; or, when this user may not open it (pasta runs as
// a subordinate uid of ours), read from a child that joined pasta's user namespace first, which
// our user owns. Sets `readable` when either way could read it.
std::string environment_of(pid_t pid, bool& readable) {
  std::string path = "/proc/" + std::to_string(pid) + "/environ";
  std::ifstream direct(path);
  if (direct.is_open()) {
    readable = true;
    return std::string((std::istreambuf_iterator<char>(direct)), std::istreambuf_iterator<char>());
  }
  std::string user_ns = "/proc/" + std::to_string(pid) + "/ns/user";
  int ns = open(user_ns.c_str(), O_RDONLY | O_CLOEXEC);
  int pipe_fds[2];
  if (ns < 0 || pipe2(pipe_fds, O_CLOEXEC) != 0) return "";
  pid_t child = fork();
  if (child == 0) {
    // Only system calls here: this process has threads.
    if (setns(ns, CLONE_NEWUSER) != 0) _exit(1);
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) _exit(2);
    char chunk[4096];
    for (ssize_t got; (got = read(fd, chunk, sizeof chunk)) > 0;) {
      if (write(pipe_fds[1], chunk, static_cast<std::size_t>(got)) != got) _exit(3);
    }
    _exit(0);
  }
  close(ns);
  close(pipe_fds[1]);
  std::string found;
  char chunk[4096];
  for (ssize_t got; (got = read(pipe_fds[0], chunk, sizeof chunk)) > 0;) {
    found.append(chunk, static_cast<std::size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  readable = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return found;
}

// pasta runs outside the sandbox, as the sandbox's host uid, so whatever its environment holds
// is one step from the sandbox's own identity. The server's environment holds the real values
// behind --secret (and every other credential the user started it with): none of it may reach
// pasta. The variable is set in this test's environment, which paddock inherits.
TEST(UserNetwork, PastaGetsNoneOfTheServersEnvironment) {
  const std::string value = "pasta-env-value-" + std::to_string(getpid());
  setenv("PADDOCK_TEST_PASTA_ENV", value.c_str(), 1);
  CliResult result;
  std::thread sandbox([&] { result = run_cli({"run", "--network", "user", "--", "sleep", "3"}); });
  // This test's own pasta: started by the paddock this test started (other runs of the suite
  // as the same user may have theirs). Looked for without a pause: once set up, pasta makes
  // itself non-dumpable, and then only root may read its environment.
  std::vector<pid_t> pasta;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
       pasta.empty() && std::chrono::steady_clock::now() < until;) {
    pasta = processes_of_this_user_with("--netns /proc/self/fd/5");
    std::erase_if(pasta, [](pid_t pid) { return parent_of(parent_of(pid)) != getpid(); });
  }
  std::string environment;
  bool readable = false;
  if (pasta.size() == 1) environment = environment_of(pasta[0], readable);
  sandbox.join();
  unsetenv("PADDOCK_TEST_PASTA_ENV");
  ASSERT_EQ(pasta.size(), 1u);
  ASSERT_TRUE(readable) << "pasta's environment could not be read";
  EXPECT_EQ(environment.find(value), std::string::npos) << environment;
  EXPECT_EQ(environment.find("PADDOCK_TEST_PASTA_ENV"), std::string::npos) << environment;
  EXPECT_EQ(result.exit_status, 0) << result.err;
}

TEST(UserNetwork, AHostLoopbackPortIsReachableOnlyWhenNamed) {
  LoopbackBait named, other;
  ASSERT_NE(named.tcp_port(), 0) << "the bait did not start";
  ASSERT_NE(other.tcp_port(), 0) << "the bait did not start";
  std::string port = std::to_string(named.tcp_port());
  CliResult result =
      attempt({"tcp", "127.0.0.1", port, "tcp", "127.0.0.1", std::to_string(other.tcp_port()),
               "udp", "127.0.0.1", std::to_string(named.udp_port())},
              {"--host-loopback-port", port});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("tcp 127.0.0.1 " + port + " b'host-secret\\n'"), std::string::npos)
      << result.out;
  // One "host-secret": the named port's. Neither the other TCP port nor UDP came through.
  EXPECT_EQ(result.out.find("host-secret"), result.out.rfind("host-secret")) << result.out;
}

// The first nameserver of the host's resolv.conf.
std::string host_resolver() {
  std::ifstream in("/etc/resolv.conf");
  std::string word, address;
  while (in >> word) {
    if (word == "nameserver" && (in >> address)) return address;
  }
  return "";
}

// The host's resolver is in a refused range on these machines (10.255.255.53): what the user
// allows by name is reachable, and nothing next to it.
TEST(UserNetwork, AllowPrivateOpensOnlyTheRangeNamed) {
  std::string resolver = host_resolver();
  ASSERT_TRUE(resolver.starts_with("10.")) << "this test needs the host's resolver in 10.0.0.0/8, "
                                              "as on the CI machines; it is "
                                           << resolver;
  std::string neighbour = resolver.ends_with(".1") ? "10.0.0.2" : "10.0.0.1";
  CliResult refused = attempt({"udp", resolver, "53"});
  EXPECT_NE(refused.out.find("EACCES"), std::string::npos) << refused.out << refused.err;
  CliResult allowed =
      attempt({"udp", resolver, "53", "udp", neighbour, "53"}, {"--allow-private", resolver});
  // The resolver's answer starts with the query's id.
  EXPECT_NE(allowed.out.find("udp " + resolver + " 53 b'\\x124"), std::string::npos)
      << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("udp " + neighbour + " 53 EACCES"), std::string::npos) << allowed.out;
}

TEST(UserNetwork, BadNetworkFlagsAreOneLineErrors) {
  CliResult range =
      run_cli({"run", "--network", "user", "--allow-private", "10.1.2.3/8", "--", "true"});
  EXPECT_EQ(range.exit_status, 125);
  EXPECT_NE(range.err.find("--allow-private '10.1.2.3/8' is not an IP address or CIDR range"),
            std::string::npos)
      << range.err;
  CliResult port =
      run_cli({"run", "--network", "user", "--host-loopback-port", "70000", "--", "true"});
  EXPECT_EQ(port.exit_status, 125);
  EXPECT_NE(port.err.find("--host-loopback-port '70000' is not a port"), std::string::npos)
      << port.err;
}

}  // namespace
}  // namespace paddock::testing::user_network_test
