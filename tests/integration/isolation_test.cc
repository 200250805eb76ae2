// From inside real sandboxes: what the program can see and do of the host.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/harness.h"
#include "support/helper_process.h"

namespace paddock::testing::isolation_test {
namespace {

// Every test runs twice: in a sandbox made for it, and in a warm one (set up before the run
// came, as the MCP server's pool keeps them), which must be the same sandbox in every respect.
class Isolation : public ::testing::TestWithParam<RunMode> {
 protected:
  runtime::RunResult run_ok(const TestSpec& spec) {
    RecordingObserver observer;
    return run_ok(spec, observer);
  }
  runtime::RunResult run_ok(const TestSpec& spec, RecordingObserver& observer) {
    return testing::run_ok(GetParam(), spec, observer);
  }
};

INSTANTIATE_TEST_SUITE_P(ColdAndWarm, Isolation, ::testing::Values(RunMode::kCold, RunMode::kWarm),
                         [](const auto& test) { return std::string(to_string(test.param)); });

std::string field(const std::string& status, const std::string& name) {
  std::istringstream lines(status);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + ":", 0) == 0) {
      std::string value = line.substr(name.size() + 1);
      auto start = value.find_first_not_of(" \t");
      return start == std::string::npos ? "" : value.substr(start);
    }
  }
  return "";
}

TEST_P(Isolation, ProgramRunsAndExitCodeComesBack) {
  runtime::RunResult result = run_ok(shell_spec("echo hello; echo oops >&2; exit 3"));
  EXPECT_EQ(result.outcome, runtime::Outcome::kExited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.stdout_data.data, "hello\n");
  EXPECT_EQ(result.stderr_data.data, "oops\n");
  EXPECT_EQ(result.backend, "native");
}

TEST_P(Isolation, HostFilesOutsideTheMountsAreInvisible) {
  // The test's own source tree, home directories and secrets exist on the host...
  ASSERT_EQ(access(source_dir().c_str(), F_OK), 0);
  ASSERT_EQ(access("/etc/shadow", F_OK), 0);
  std::string script = "for p in '" + source_dir() +
                       "' /root /home /var /srv /opt /etc/shadow /etc/ssh /run /sys /boot; do "
                       "[ -e \"$p\" ] && echo \"VISIBLE $p\"; done; ls /";
  runtime::RunResult result = run_ok(shell_spec(script));
  EXPECT_EQ(result.exit_code, 0) << result.stderr_data.data;
  EXPECT_EQ(result.stdout_data.data.find("VISIBLE"), std::string::npos) << result.stdout_data.data;
  // sandbox: llm-sandbox's work directory, a link to /work made in the sealed root.
  EXPECT_EQ(result.stdout_data.data,
            "bin\ndev\netc\nlib\nlib32\nlib64\nproc\nsandbox\nsbin\ntmp\nusr\nwork\n");
}

// The host's own /etc files (ld.so.cache, services) are bound, not copied: writing one would
// reach the host's file, so each must be read-only too, and cannot be unmounted to show what
// lies under it.
TEST_P(Isolation, UsrAndRootAndEtcAreReadOnly) {
  runtime::RunResult result = run_ok(
      shell_spec("for f in /usr/paddock-x /etc/paddock-x /paddock-x /etc/passwd /bin/paddock-x "
                 "    /etc/ld.so.cache /etc/services; do "
                 "  if echo x >> $f 2>/dev/null; then echo WROTE $f; fi; done; "
                 "umount /etc/ld.so.cache 2>/dev/null && echo UNMOUNTED; "
                 "test -s /etc/ld.so.cache || echo EMPTY; "
                 "mkdir /usr/lib/paddock-x 2>/dev/null && echo MADE; "
                 "echo ok > /work/file && cat /work/file && echo ok > /tmp/file && cat /tmp/file"));
  EXPECT_EQ(result.stdout_data.data, "ok\nok\n") << result.stderr_data.data;
}

TEST_P(Isolation, ProcessHasNoPrivilegeAndSeccomp) {
  runtime::RunResult result = run_ok(spec_for({"/bin/cat", "/proc/self/status"}));
  const std::string& status = result.stdout_data.data;
  EXPECT_EQ(field(status, "NoNewPrivs"), "1");
  EXPECT_EQ(field(status, "Seccomp"), "2");
  for (const char* set : {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}) {
    EXPECT_EQ(field(status, set), "0000000000000000") << set;
  }
  EXPECT_EQ(field(status, "Uid"), "1000\t1000\t1000\t1000");
  EXPECT_EQ(field(status, "Gid"), "1000\t1000\t1000\t1000");
  EXPECT_TRUE(result.isolation.seccomp);
  EXPECT_TRUE(result.isolation.capabilities_dropped);
}

TEST_P(Isolation, PidOneIsTheSandboxInit) {
  runtime::RunResult result =
      run_ok(shell_spec("echo $$; cat /proc/1/status | grep -E '^(PPid|Uid):'; ls /proc | grep -E "
                        "'^[0-9]+$' | wc -l"));
  std::istringstream lines(result.stdout_data.data);
  std::string pid, ppid_line, uid_line, count;
  std::getline(lines, pid);
  std::getline(lines, ppid_line);
  std::getline(lines, uid_line);
  std::getline(lines, count);
  EXPECT_EQ(pid, "2");  // the payload is the first child of the sandbox's init
  EXPECT_EQ(ppid_line, "PPid:\t0");
  // Only init, the shell and the pipeline's few processes exist: no host process is visible.
  EXPECT_LE(std::stoi(count), 6) << result.stdout_data.data;
}

// The init the program can see is a small program of paddock's own, not a fork of paddock: it
// holds no copy of paddock's memory (an MCP server's other sessions, its secrets), shows no host
// command line, and is confined like the program (issue 14, item 5).
TEST_P(Isolation, InitIsASmallProgramUnderSeccomp) {
  runtime::RunResult result = run_ok(shell_spec(
      "tr '\\0' '|' < /proc/1/cmdline; echo; cat /proc/1/status; readlink /proc/1/exe || true"));
  std::istringstream lines(result.stdout_data.data);
  std::string cmdline;
  std::getline(lines, cmdline);
  EXPECT_EQ(cmdline, "paddock-init|") << result.stdout_data.data << result.stderr_data.data;
  const std::string& status = result.stdout_data.data;
  EXPECT_EQ(field(status, "Name"), "paddock-init");
  EXPECT_EQ(field(status, "Seccomp"), "2");
  EXPECT_EQ(field(status, "NoNewPrivs"), "1");
  EXPECT_EQ(field(status, "CapEff"), "0000000000000000");
  // A static program of a few hundred kilobytes, not a copy of paddock's address space (the
  // test binary, like the MCP server, maps tens of megabytes).
  std::string size = field(status, "VmSize");
  ASSERT_FALSE(size.empty()) << status;
  EXPECT_LT(std::stol(size), 8 * 1024) << "init maps " << size;
  // Its executable is not even named to the program: init is not dumpable.
  EXPECT_EQ(status.find("paddock_integration"), std::string::npos) << status;
}

TEST_P(Isolation, HostnameAndUserAreTheSandboxes) {
  runtime::RunResult result = run_ok(shell_spec("hostname; id -un; echo $HOME; pwd"));
  EXPECT_EQ(result.stdout_data.data, "sandbox\nsandbox\n/work\n/work\n");
}

// The program runs as an unprivileged host id, never as host root, even when paddock is root.
class HostUidObserver : public RecordingObserver {
 public:
  void on_output(runtime::StreamId stream, std::string_view chunk) override {
    RecordingObserver::on_output(stream, chunk);
    if (!payload_status.empty()) return;
    // paddock-init's relay, then the sandbox's init, then the program: the first process down
    // that line with no children is the program's.
    std::string pid = std::to_string(host_pid);
    int depth = 0;
    for (;; ++depth) {
      std::string children = read_file("/proc/" + pid + "/task/" + pid + "/children");
      if (children.empty()) break;
      pid = children.substr(0, children.find(' '));
    }
    if (depth >= 2) payload_status = read_file("/proc/" + pid + "/status");
  }
  std::string payload_status;
};

TEST_P(Isolation, HostUidIsNeverRoot) {
  HostUidObserver observer;
  runtime::RunResult result = run_ok(shell_spec("echo started; sleep 0.5"), observer);
  ASSERT_FALSE(observer.payload_status.empty());
  std::string uids = field(observer.payload_status, "Uid");
  std::string real_uid = uids.substr(0, uids.find('\t'));
  EXPECT_NE(real_uid, "0");
  EXPECT_EQ(real_uid, std::to_string(result.isolation.host_uid));
  EXPECT_NE(result.isolation.host_uid, 0u);
  EXPECT_NE(result.isolation.host_gid, 0u);
  if (geteuid() == 0) {
    EXPECT_EQ(result.isolation.id_mapping, "root");
  } else {
    EXPECT_NE(result.isolation.id_mapping, "root");
  }
  // Supplementary groups are dropped wherever the mapping allows it.
  std::string groups = field(observer.payload_status, "Groups");
  if (result.isolation.id_mapping != "self") {
    EXPECT_EQ(groups, "") << groups;
  }
}

class LoopbackServer {
 public:
  LoopbackServer() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(listen(fd_, 8), 0);
    socklen_t length = sizeof address;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~LoopbackServer() { close(fd_); }
  [[nodiscard]] int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

std::string connect_script(int port) {
  return "import socket\ns = socket.socket()\ns.settimeout(3)\ntry:\n"
         "    s.connect(('127.0.0.1', " +
         std::to_string(port) +
         "))\n    print('CONNECTED')\n"
         "except OSError as e:\n    print('REFUSED', e.errno)\n";
}

// The network devices the program sees, one a line, then whether its loopback is UP or DOWN.
constexpr const char* kDevicesAndLoopback =
    "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; "
    "python3 -c \"import socket,fcntl,struct;"
    "s=socket.socket();"
    "r=fcntl.ioctl(s,0x8913,struct.pack('256s',b'lo'));"
    "print('UP' if struct.unpack('H',r[16:18])[0]&1 else 'DOWN')\"";

std::string host_network_namespace() {
  char host[64] = {};
  EXPECT_GT(readlink("/proc/self/ns/net", host, sizeof host - 1), 0);
  return host;
}

TEST_P(Isolation, NetworkHasOnlyAPrivateLoopbackAndTheHostsIsUnreachable) {
  LoopbackServer server;  // on the host's 127.0.0.1
  runtime::RunResult result = run_ok(spec_for({"python3", "-c", connect_script(server.port())}));
  EXPECT_EQ(result.stdout_data.data, "REFUSED 111\n")  // ECONNREFUSED: the sandbox's own lo
      << result.stdout_data.data << result.stderr_data.data;
  runtime::RunResult devices = run_ok(shell_spec(kDevicesAndLoopback));
  EXPECT_EQ(devices.stdout_data.data, "lo\nUP\n") << devices.stderr_data.data;
  // The namespace itself is not paddock's (the program's steps run in the one init joined).
  runtime::RunResult ns = run_ok(shell_spec("readlink /proc/self/ns/net"));
  EXPECT_EQ(ns.stdout_data.data.rfind("net:[", 0), 0u) << ns.stderr_data.data;
  EXPECT_NE(ns.stdout_data.data, host_network_namespace() + "\n");
}

// On Linux before 5.8, setns(2) cannot join a namespace through a pidfd, so init cannot join the
// one the relay made: it makes its own, with its loopback up, and the program is as isolated.
// paddock_probe pre-5.8 makes every setns fail with that kernel's EINVAL.
TEST(LateNetwork, WhereSetnsCannotTakeAPidfdInitMakesTheNamespaceItself) {
  LoopbackServer server;
  // The count of SEQPACKET sockets shows the fallback was taken: init's channel pair is then in
  // the relay's namespace (as private, but one init could not join), not in the program's.
  std::string script = std::string(kDevicesAndLoopback) +
                       "; readlink /proc/self/ns/net; python3 -c \"$1\"; "
                       "echo seqpacket $(grep -c ' 0005 ' /proc/net/unix)";
  CliResult run = run_program({probe_binary(), "pre-5.8", "--", paddock_binary(), "run", "--", "sh",
                               "-c", script, "sh", connect_script(server.port())});
  EXPECT_EQ(run.exit_status, 0) << run.err;
  std::string host = host_network_namespace();
  EXPECT_EQ(run.out.rfind("lo\nUP\nnet:[", 0), 0u) << run.out << run.err;
  EXPECT_EQ(run.out.find(host), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nREFUSED 111\nseqpacket 0\n"), std::string::npos) << run.out;
  // The probe's filter did refuse setns: the same command without paddock.
  CliResult plain = run_program(
      {probe_binary(), "pre-5.8", "--", "/usr/bin/python3", "-c",
       "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
       "print(libc.setns(os.open('/proc/self/ns/net', os.O_RDONLY), 0), ctypes.get_errno())"});
  EXPECT_EQ(plain.out, "-1 22\n") << plain.err;
}

// init's channel (a socket pair with paddock-init's relay) was made in the sandbox's own network
// namespace, like every socket of the sandbox: one made in paddock's could be bound to an abstract
// name of the host's by whoever took init over. /proc/net/unix lists the namespace's sockets.
TEST_P(Isolation, InitsChannelIsInTheSandboxsOwnNetworkNamespace) {
  runtime::RunResult sockets = run_ok(shell_spec("grep -c ' 0005 ' /proc/net/unix"));
  EXPECT_EQ(sockets.stdout_data.data, "2\n") << sockets.stderr_data.data;
}

// A server and its client in one sandbox, over 127.0.0.1 and ::1: what a test suite, a web app
// tried with requests, or a multiprocessing manager does.
TEST_P(Isolation, ProcessesOfASandboxTalkOverItsLoopback) {
  const char* script =
      "import socket, threading\n"
      "for family, host in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):\n"
      "    server = socket.socket(family)\n"
      "    server.bind((host, 0)); server.listen()\n"
      "    def serve():\n"
      "        peer, _ = server.accept(); peer.sendall(peer.recv(64).upper()); peer.close()\n"
      "    threading.Thread(target=serve).start()\n"
      "    client = socket.create_connection((host, server.getsockname()[1]), timeout=5)\n"
      "    client.sendall(b'ping'); print(host, client.recv(64).decode())\n";
  runtime::RunResult result = run_ok(spec_for({"python3", "-c", script}));
  EXPECT_EQ(result.stdout_data.data, "127.0.0.1 PING\n::1 PING\n") << result.stderr_data.data;
}

// The loopback is the sandbox's alone: while one sandbox listens on a port of its 127.0.0.1,
// neither a second sandbox nor the host reaches it.
TEST_P(Isolation, ASandboxsLoopbackServerIsUnreachableFromOutside) {
  int port = free_port();
  std::string server =
      "import socket, time\n"
      "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
      "s.bind(('127.0.0.1', " +
      std::to_string(port) +
      ")); s.listen(); s.settimeout(0.2)\n"
      "print('LISTENING', flush=True)\n"
      "accepted = 0\n"
      "end = time.time() + 4\n"
      "while time.time() < end:\n"
      "    try:\n"
      "        s.accept(); accepted += 1\n"
      "    except OSError: pass\n"
      "print('ACCEPTED', accepted)\n";
  std::string prober =
      "import socket, time\n"
      "reached = 0\n"
      "end = time.time() + 2.5\n"
      "while time.time() < end:\n"
      "    try:\n"
      "        socket.create_connection(('127.0.0.1', " +
      std::to_string(port) +
      "), timeout=0.2); reached += 1\n"
      "    except OSError: pass\n"
      "    time.sleep(0.05)\n"
      "print('REACHED', reached)\n";
  runtime::RunResult listened;
  std::thread listening([&] { listened = run_ok(spec_for({"python3", "-c", server})); });
  usleep(500 * 1000);  // the listener is up within a few milliseconds of starting
  runtime::RunResult probed = run_ok(spec_for({"python3", "-c", prober}));
  int host_reached = 0;
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (accepts_connections(port)) ++host_reached;
  }
  listening.join();
  EXPECT_EQ(listened.stdout_data.data, "LISTENING\nACCEPTED 0\n") << listened.stderr_data.data;
  EXPECT_EQ(probed.stdout_data.data, "REACHED 0\n") << probed.stderr_data.data;
  EXPECT_EQ(host_reached, 0);
}

TEST_P(Isolation, HostNetworkIsReachableOnlyWhenAskedFor) {
  LoopbackServer server;
  TestSpec spec = spec_for({"python3", "-c", connect_script(server.port())});
  spec.network = runtime::NetworkMode::kHost;
  runtime::RunResult result = run_ok(spec);
  EXPECT_EQ(result.stdout_data.data, "CONNECTED\n") << result.stderr_data.data;
  EXPECT_EQ(result.isolation.network, "host");
}

TEST_P(Isolation, HostEnvironmentDoesNotLeak) {
  setenv("PADDOCK_TEST_SECRET", "do-not-leak", 1);
  TestSpec spec = spec_for({"/usr/bin/env"});
  spec.env = {"GREETING=hi"};
  runtime::RunResult result = run_ok(spec);
  unsetenv("PADDOCK_TEST_SECRET");
  EXPECT_EQ(result.stdout_data.data.find("do-not-leak"), std::string::npos);
  EXPECT_NE(result.stdout_data.data.find("GREETING=hi\n"), std::string::npos);
  EXPECT_NE(result.stdout_data.data.find("HOME=/work\n"), std::string::npos);
}

TEST_P(Isolation, OnlyStandardFileDescriptorsAreInherited) {
  int leaked = dup(1);  // not CLOEXEC: would leak into a careless sandbox
  runtime::RunResult result = run_ok(shell_spec("ls /proc/self/fd"));
  close(leaked);
  // ls itself opens one fd for the directory listing.
  EXPECT_EQ(result.stdout_data.data, "0\n1\n2\n3\n");
}

TEST_P(Isolation, DevHasOnlyTheUsualNodes) {
  runtime::RunResult result =
      run_ok(shell_spec("ls /dev; echo x > /dev/null && head -c 4 /dev/zero | wc -c; echo x > "
                        "/dev/full || echo FULL"));
  EXPECT_EQ(result.stdout_data.data,
            "fd\nfull\nnull\nptmx\npts\nrandom\nshm\nstderr\nstdin\nstdout\ntty\nurandom\nzero\n"
            "4\nFULL\n")
      << result.stderr_data.data;
}

TEST_P(Isolation, KernelStateIsMaskedInProc) {
  runtime::RunResult result =
      run_ok(shell_spec("for f in /proc/kcore /proc/keys /proc/timer_list; do "
                        "  [ -e $f ] && [ -s $f ] && echo LEAK $f; done; "
                        "echo 1 > /proc/sys/kernel/hostname 2>/dev/null && echo WROTE; echo done"));
  EXPECT_EQ(result.stdout_data.data, "done\n");
}

TEST_P(Isolation, ReadOnlyBindShowsAHostPathAndNothingElse) {
  runtime::RunResult result = run_ok(probe_spec({"try", "socket_unix"}));
  EXPECT_EQ(result.stdout_data.data, "RESULT socket_unix ok\n") << result.stderr_data.data;
  TestSpec spec = shell_spec("cat /probe/data; echo x > /probe/data || echo READONLY");
  spec.binds = {{source_dir() + "/CMakeLists.txt", "/probe/data", false}};
  runtime::RunResult bound = run_ok(spec);
  EXPECT_NE(bound.stdout_data.data.find("project(paddock"), std::string::npos);
  EXPECT_NE(bound.stdout_data.data.find("READONLY"), std::string::npos);
}

}  // namespace
}  // namespace paddock::testing::isolation_test
