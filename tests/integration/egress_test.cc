// The egress allowlist (paddock run --allow-host): the sandbox's network namespace stays empty
// but for its loopback, where a proxy outside the sandbox listens. Each test tries from inside a
// real sandbox what the allowlist must refuse. These machines reach the Debian and npm
// registries, which the tests use as the allowed and the refused host.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/native/native_backend.h"
#include "support/harness.h"
#include "support/helper_process.h"

namespace paddock::testing {
namespace {

SandboxSpec allowlisted(const std::string& script, std::vector<std::string> hosts) {
  SandboxSpec spec = spec_for({"python3", "-c", script});
  spec.limits.wall_seconds = 60;
  spec.allowed_hosts = std::move(hosts);
  return spec;
}

// Fetches each URL with urllib (which honours HTTP_PROXY and HTTPS_PROXY) and prints one line
// each: the status, or the refusal's status and body.
std::string fetch_script(const std::vector<std::string>& urls) {
  std::string list;
  for (const auto& url : urls) list += "'" + url + "', ";
  return "import urllib.request, urllib.error\n"
         "for url in (" +
         list +
         "):\n"
         "    try:\n"
         "        r = urllib.request.urlopen(url, timeout=30); print(url, r.status)\n"
         "    except urllib.error.HTTPError as e:\n"
         "        print(url, e.code, e.read().decode().strip())\n"
         "    except Exception as e:\n"
         "        print(url, 'failed', e)\n";
}

TEST(Egress, AnAllowedHostIsReachedAndOthersAre403sNamingTheHost) {
  RunResult result = run_ok(
      allowlisted(fetch_script({"https://registry.npmjs.org/left-pad",
                                "http://deb.debian.org/debian/", "https://deb.debian.org/debian/"}),
                  {"registry.npmjs.org"}));
  const std::string& out = result.stdout_data.data;
  EXPECT_NE(out.find("https://registry.npmjs.org/left-pad 200\n"), std::string::npos) << out;
  EXPECT_NE(out.find("http://deb.debian.org/debian/ 403 paddock: deb.debian.org:80 is refused: "
                     "it is not in the allowlist"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("https://deb.debian.org/debian/ failed"), std::string::npos) << out;
  ASSERT_EQ(result.network_denied.size(), 2u);
  EXPECT_EQ(result.network_denied[0].host, "deb.debian.org");
  EXPECT_EQ(result.network_denied[0].port, 80);
  EXPECT_EQ(result.network_denied[1].port, 443);
  EXPECT_EQ(result.network_denied[1].reason, "it is not in the allowlist");
}

// A program that ignores the proxy variables has no way out at all: no route, no DNS, no UDP.
TEST(Egress, ProgramsIgnoringTheProxyCannotConnectAtAll) {
  RunResult result = run_ok(allowlisted(
      "import socket\n"
      "for what, call in (\n"
      "    ('tcp', lambda: socket.create_connection(('104.16.0.35', 443), timeout=5)),\n"
      "    ('dns', lambda: socket.getaddrinfo('registry.npmjs.org', 443)),\n"
      "    ('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', "
      "('8.8.8.8', 53)))):\n"
      "    try:\n"
      "        call(); print(what, 'reached')\n"
      "    except OSError as e:\n"
      "        print(what, 'failed')\n",
      {"registry.npmjs.org"}));
  EXPECT_EQ(result.stdout_data.data, "tcp failed\ndns failed\nudp failed\n")
      << result.stderr_data.data;
}

// Speaks to the proxy by hand: one CONNECT, and the status line of the answer.
std::string connect_script(const std::string& target) {
  return "import socket\n"
         "s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
         "s.sendall(b'CONNECT " +
         target +
         " HTTP/1.1\\r\\n\\r\\n')\n"
         "answer = s.recv(4096).decode()\n"
         "print(answer.split('\\r\\n')[0]); print(answer.split('\\r\\n\\r\\n', 1)[1].strip())\n";
}

// A listener on the host's own 127.0.0.1, allowed by name: the name resolves to loopback, which
// no name may reach unless the loopback range itself is allowed.
TEST(Egress, ANameResolvingToLoopbackIsRefusedUnlessTheRangeIsAllowed) {
  std::string listener_log = "/tmp/paddock-egress-listener-" + std::to_string(getpid()) + ".log";
  std::filesystem::remove(listener_log);
  Server listener({"/usr/bin/python3", "-c",
                   "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\n"
                   "s.listen()\nprint(s.getsockname()[1], flush=True)\ntime.sleep(60)"},
                  listener_log);
  std::string port;
  for (int i = 0; i < 100 && port.empty(); ++i) {
    usleep(50'000);
    port = listener.log();
    if (!port.empty() && port.back() != '\n') port.clear();
  }
  ASSERT_FALSE(port.empty());
  port.pop_back();
  RunResult by_name =
      run_ok(allowlisted(connect_script("localhost:" + port), {"localhost:" + port}));
  EXPECT_EQ(by_name.stdout_data.data.substr(0, by_name.stdout_data.data.find('\n')),
            "HTTP/1.1 403 Forbidden")
      << by_name.stdout_data.data << by_name.stderr_data.data;
  EXPECT_NE(by_name.stdout_data.data.find("resolves only to loopback, private, link-local"),
            std::string::npos);
  RunResult by_range =
      run_ok(allowlisted(connect_script("127.0.0.1:" + port), {"127.0.0.1:" + port}));
  EXPECT_EQ(by_range.stdout_data.data.substr(0, by_range.stdout_data.data.find('\n')),
            "HTTP/1.1 200 Connection established")
      << by_range.stdout_data.data << by_range.stderr_data.data;
}

// A local TLS server with a test certificate for tls.test, named through the test-only resolver
// override. A tunnel opened to tls.test must carry TLS for tls.test: another name in its
// ClientHello is domain fronting, and the tunnel is closed.
TEST(Egress, ATunnelsTlsServerNameMustBeItsHost) {
  std::string dir = "/tmp/paddock-egress-tls-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  ToolResult made =
      run_tool({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=tls.test", "-addext", "subjectAltName=DNS:tls.test,DNS:other.test",
                "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem"});
  ASSERT_EQ(made.status, 0) << made.output;
  Server tls({"/usr/bin/python3", "-c",
              "import socket, ssl\n"
              "context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n"
              "context.load_cert_chain('" +
                  dir + "/cert.pem', '" + dir +
                  "/key.pem')\n"
                  "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
                  "print(s.getsockname()[1], flush=True)\n"
                  "while True:\n"
                  "    c, _ = s.accept()\n"
                  "    try:\n"
                  "        t = context.wrap_socket(c, server_side=True); t.sendall(b'hello over "
                  "tls'); t.close()\n"
                  "    except Exception:\n"
                  "        c.close()\n"},
             dir + "/server.log");
  std::string port;
  for (int i = 0; i < 100 && port.empty(); ++i) {
    usleep(50'000);
    port = tls.log();
    if (!port.empty() && port.back() != '\n') port.clear();
  }
  ASSERT_FALSE(port.empty());
  port.pop_back();
  std::filesystem::copy_file(dir + "/cert.pem", dir + "/ca.pem");
  std::filesystem::permissions(dir, std::filesystem::perms::all);
  std::filesystem::permissions(dir + "/ca.pem", std::filesystem::perms::all);
  setenv("PADDOCK_EGRESS_TEST_RESOLVE", "tls.test=127.0.0.1", 1);
  auto attempt = [&](const std::string& server_name) {
    SandboxSpec spec = allowlisted(
        "import socket, ssl\n"
        "context = ssl.create_default_context(cafile='/mnt/tls/ca.pem')\n"
        "s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
        "s.sendall(b'CONNECT tls.test:" +
            port +
            " HTTP/1.1\\r\\n\\r\\n')\n"
            "assert s.recv(4096).startswith(b'HTTP/1.1 200')\n"
            "try:\n"
            "    t = context.wrap_socket(s, server_hostname='" +
            server_name +
            "')\n"
            "    print(t.recv(64).decode())\n"
            "except (OSError, ssl.SSLError) as e:\n"
            "    print('closed')\n",
        {"tls.test:" + port, "127.0.0.1:" + port});
    spec.binds = {{dir, "/mnt/tls", false}};
    return run_ok(spec);
  };
  RunResult same = attempt("tls.test");
  RunResult fronted = attempt("other.test");
  unsetenv("PADDOCK_EGRESS_TEST_RESOLVE");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(same.stdout_data.data, "hello over tls\n") << same.stderr_data.data;
  EXPECT_EQ(fronted.stdout_data.data, "closed\n") << fronted.stderr_data.data;
  ASSERT_EQ(fronted.network_denied.size(), 1u);
  EXPECT_EQ(fronted.network_denied[0].host, "other.test");
  EXPECT_NE(fronted.network_denied[0].reason.find("domain fronting"), std::string::npos);
}

TEST(Egress, BadPatternsAndNetworksAreOneLineErrors) {
  CliResult bad = run_cli({"run", "--allow-host", "*.com", "--", "true"});
  EXPECT_EQ(bad.exit_status, 125);
  EXPECT_NE(bad.err.find("allowed host '*.com' is a wildcard over a whole top-level domain; use "
                         "example.org, *.example.org"),
            std::string::npos)
      << bad.err;
  CliResult both = run_cli({"run", "--allow-host", "pypi.org", "--network", "user", "--", "true"});
  EXPECT_EQ(both.exit_status, 125);
  EXPECT_NE(both.err.find("cannot be combined with --network user"), std::string::npos) << both.err;
  // And nothing of a run with an allowlist is left: no proxy thread outlives it (the CLI exits).
  CliResult ran =
      run_cli({"run", "--json", "--allow-host", "registry.npmjs.org", "--", "python3", "-c",
               "import urllib.request\ntry:\n"
               "    urllib.request.urlopen('http://deb.debian.org/', timeout=20)\n"
               "except Exception as e:\n    print('refused')"});
  EXPECT_EQ(ran.exit_status, 0) << ran.err;
  EXPECT_NE(ran.out.find("\"network\":{\"denied\":[{\"host\":\"deb.debian.org\",\"port\":80,"),
            std::string::npos)
      << ran.out;
}

}  // namespace
}  // namespace paddock::testing
