// The egress allowlist (paddock run --allow-host): the sandbox's network namespace stays empty
// but for its loopback, where a proxy outside the sandbox listens. Each test tries from inside a
// real sandbox what the allowlist must refuse. These machines reach the Debian and npm
// registries, which the tests use as the allowed and the refused host.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "net/egress/name_resolver_testing.h"
#include "runtime/native/native_backend.h"
#include "support/harness.h"
#include "support/helper_process.h"

namespace paddock::testing::egress_test {
namespace {

TestSpec allowlisted(const std::string& script, std::vector<std::string> hosts) {
  TestSpec spec = spec_for({"python3", "-c", script});
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
  runtime::RunResult result = run_ok(
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
  ASSERT_EQ(result.network.denied.size(), 2u);
  EXPECT_EQ(result.network.denied[0].host, "deb.debian.org");
  EXPECT_EQ(result.network.denied[0].port, 80);
  EXPECT_EQ(result.network.denied[1].port, 443);
  EXPECT_EQ(result.network.denied[1].reason, "it is not in the allowlist");
  // What it reached is recorded too (for the audit log): hosts and ports, nothing else.
  ASSERT_EQ(result.network.allowed.size(), 1u);
  EXPECT_EQ(result.network.allowed[0].host, "registry.npmjs.org");
  EXPECT_EQ(result.network.allowed[0].port, 443);
}

// A program that ignores the proxy variables has no way out at all: no route, no DNS, no UDP.
TEST(Egress, ProgramsIgnoringTheProxyCannotConnectAtAll) {
  runtime::RunResult result = run_ok(allowlisted(
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
  std::string port = listener.port();
  ASSERT_FALSE(port.empty());
  runtime::RunResult by_name =
      run_ok(allowlisted(connect_script("localhost:" + port), {"localhost:" + port}));
  EXPECT_EQ(by_name.stdout_data.data.substr(0, by_name.stdout_data.data.find('\n')),
            "HTTP/1.1 403 Forbidden")
      << by_name.stdout_data.data << by_name.stderr_data.data;
  // The refusal names the address, its block and the one flag that opens it (issue 55).
  EXPECT_NE(by_name.stdout_data.data.find("resolves only to 127.0.0.1, in 127.0.0.0/8 (loopback)"),
            std::string::npos)
      << by_name.stdout_data.data;
  EXPECT_NE(by_name.stdout_data.data.find("open it with --allow-private 127.0.0.1 "),
            std::string::npos)
      << by_name.stdout_data.data;
  runtime::RunResult by_range =
      run_ok(allowlisted(connect_script("127.0.0.1:" + port), {"127.0.0.1:" + port}));
  EXPECT_EQ(by_range.stdout_data.data.substr(0, by_range.stdout_data.data.find('\n')),
            "HTTP/1.1 200 Connection established")
      << by_range.stdout_data.data << by_range.stderr_data.data;
  // A range that means "anywhere" is not a range of the host's loopback.
  runtime::RunResult by_everything =
      run_ok(allowlisted(connect_script("127.0.0.1:" + port), {"0.0.0.0/0:" + port}));
  EXPECT_EQ(by_everything.stdout_data.data.substr(0, by_everything.stdout_data.data.find('\n')),
            "HTTP/1.1 403 Forbidden")
      << by_everything.stdout_data.data << by_everything.stderr_data.data;
  // Nor is an IPv6 address that embeds it (NAT64's prefix), even when named exactly.
  runtime::RunResult embedded = run_ok(
      allowlisted(connect_script("[64:ff9b::7f00:1]:" + port), {"[64:ff9b::7f00:1]:" + port}));
  EXPECT_EQ(embedded.stdout_data.data.substr(0, embedded.stdout_data.data.find('\n')),
            "HTTP/1.1 403 Forbidden")
      << embedded.stdout_data.data << embedded.stderr_data.data;
  std::filesystem::remove(listener_log);
}

// Plain HTTP keeps a connection open for more requests: each must be for the host the
// connection was checked and opened for. A second request naming another host on the same
// server (one address, two names: any shared CDN address) is refused and the connection closed.
TEST(Egress, EveryRequestOnAKeptAliveConnectionIsChecked) {
  std::string dir = "/tmp/paddock-egress-keepalive-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  Server web(
      {"/usr/bin/python3", "-c",
       "import http.server, sys\n"
       "class H(http.server.BaseHTTPRequestHandler):\n"
       "    protocol_version = 'HTTP/1.1'\n"
       "    def do_GET(self):\n"
       "        with open(sys.argv[1], 'a') as log: log.write(self.headers['Host'] + '\\n')\n"
       "        body = ('hello ' + self.headers['Host']).encode()\n"
       "        self.send_response(200); self.send_header('Content-Length', str(len(body)))\n"
       "        self.end_headers(); self.wfile.write(body)\n"
       "    do_POST = do_GET\n"
       "    def log_message(self, *a): pass\n"
       "s = http.server.HTTPServer(('127.0.0.1', 0), H)\n"
       "print(s.server_port, flush=True)\n"
       "s.serve_forever()\n",
       dir + "/hosts.log"},
      dir + "/port");
  std::string port = web.port();
  ASSERT_FALSE(port.empty());
  net::egress::answer_names_for_tests({{"a.test", "127.0.0.1"}, {"b.test", "127.0.0.1"}});
  auto request = [&](const std::string& host, const std::string& extra) {
    return "b'GET http://" + host + ":" + port + "/ HTTP/1.1\\r\\nHost: " + host + ":" + port +
           "\\r\\n" + extra + "\\r\\n'";
  };
  runtime::RunResult result =
      run_ok(allowlisted("import socket\n"
                         "s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
                         "s.sendall(" +
                             request("a.test", "") + " + " + request("b.test", "") +
                             ")\n"
                             "got = b''\n"
                             "while True:\n"
                             "    chunk = s.recv(4096)\n"
                             "    if not chunk: break\n"
                             "    got += chunk\n"
                             "print(got.count(b'hello a.test'), got.count(b'hello b.test'))\n"
                             "s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
                             "s.sendall(" +
                             request("a.test", "Transfer-Encoding: chunked\\r\\n") +
                             ")\n"
                             "print(s.recv(4096).split(b'\\r\\n')[0].decode())\n",
                         {"a.test:" + port, "127.0.0.1:" + port}));
  net::egress::answer_names_for_tests({});
  std::ifstream log(dir + "/hosts.log");
  std::string hosts((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  web.stop();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(result.stdout_data.data, "1 0\nHTTP/1.1 400 Bad Request\n")
      << result.stdout_data.data << result.stderr_data.data;
  EXPECT_EQ(hosts, "a.test:" + port + "\n");
  ASSERT_EQ(result.network.denied.size(), 1u);
  EXPECT_EQ(result.network.denied[0].host, "b.test");
  EXPECT_EQ(result.network.denied[0].reason, "a request on a connection opened to a.test:" + port);
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
  std::string port = tls.port();
  ASSERT_FALSE(port.empty());
  std::filesystem::copy_file(dir + "/cert.pem", dir + "/ca.pem");
  std::filesystem::permissions(dir, std::filesystem::perms::all);
  std::filesystem::permissions(dir + "/ca.pem", std::filesystem::perms::all);
  net::egress::answer_names_for_tests({{"tls.test", "127.0.0.1"}});
  auto attempt = [&](const std::string& server_name) {
    TestSpec spec = allowlisted(
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
  runtime::RunResult same = attempt("tls.test");
  runtime::RunResult fronted = attempt("other.test");
  net::egress::answer_names_for_tests({});
  std::filesystem::remove_all(dir);
  EXPECT_EQ(same.stdout_data.data, "hello over tls\n") << same.stderr_data.data;
  EXPECT_EQ(fronted.stdout_data.data, "closed\n") << fronted.stderr_data.data;
  ASSERT_EQ(fronted.network.denied.size(), 1u);
  EXPECT_EQ(fronted.network.denied[0].host, "other.test");
  EXPECT_NE(fronted.network.denied[0].reason.find("domain fronting"), std::string::npos);
}

// The result of `paddock run --json ARGS` as JSON, with the environment given set meanwhile.
nlohmann::json run_json(std::vector<std::string> args,
                        const std::vector<std::pair<std::string, std::string>>& env = {}) {
  for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
  args.insert(args.begin(), {"run", "--json"});
  CliResult ran = run_cli(args);
  for (const auto& [name, value] : env) unsetenv(name.c_str());
  auto parsed = nlohmann::json::parse(ran.out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << ran.out << ran.err;
  return parsed.is_discarded() ? nlohmann::json::object() : parsed;
}

bool lists(const nlohmann::json& destinations, const std::string& host, int port) {
  for (const auto& destination : destinations) {
    if (destination["host"] == host && destination["port"] == port) return true;
  }
  return false;
}

// The program's own attempt at the proxy after the install: its status line, or the error.
const char* kProgramTriesTheProxy =
    "const net = require('net');\n"
    "console.log(require('left-pad')('x', 3, '-'));\n"
    "console.log('proxy variables:', process.env.HTTPS_PROXY || 'none');\n"
    "const s = net.connect(3128, '127.0.0.1', () =>\n"
    "  s.write('CONNECT registry.npmjs.org:443 HTTP/1.1\\r\\n\\r\\n'));\n"
    "s.on('data', d => { console.log(d.toString().split('\\r\\n')[0]); s.destroy(); });\n"
    "s.on('error', e => console.log('error', e.code));\n";

// npm installs through the proxy with its registry's host in the built-in list; the program after
// it gets nothing of that list (nor the proxy's variables).
TEST(Egress, AnInstallerReachesItsPackageIndexAndTheProgramAfterItNothing) {
  nlohmann::json result =
      run_json({"--lang", "javascript", "--lib", "left-pad", "--code", kProgramTriesTheProxy});
  EXPECT_EQ(result["exit_code"], 0) << result.dump();
  EXPECT_EQ(result["stdout"], "--x\nproxy variables: none\nHTTP/1.1 403 Forbidden\n")
      << result.dump();
  EXPECT_TRUE(lists(result["network"]["allowed"], "registry.npmjs.org", 443)) << result.dump();
  ASSERT_EQ(result["network"]["denied"].size(), 1u) << result.dump();
  EXPECT_TRUE(lists(result["network"]["denied"], "registry.npmjs.org", 443)) << result.dump();
  EXPECT_EQ(result["isolation"]["network"].get<std::string>().rfind("none", 0), 0u);
}

// Without libraries to install, a run of a language whose installer has a list gets no proxy at
// all: nothing listens on the sandbox's loopback for it (fewer moving parts, and less to start).
TEST(Egress, ARunWithoutAnInstallHasNoProxy) {
  nlohmann::json result =
      run_json({"--lang", "python", "--code",
                "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 3128), 2)\n"
                "    print('a proxy listens')\nexcept ConnectionRefusedError:\n"
                "    print('refused')\n"});
  EXPECT_EQ(result["stdout"], "refused\n") << result.dump();
}

// An installer whose list does not name its registry is refused there, and says which host.
TEST(Egress, AnInstallerOutsideItsListFailsNamingTheHost) {
  std::string dir = "/tmp/paddock-egress-policy-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/javascript.json")
      << R"({"name": "javascript", "network": {"install_allow": ["deb.debian.org"]}})";
  nlohmann::json result = run_json({"--lang", "javascript", "--lib", "left-pad", "--code", "1"},
                                   {{"PADDOCK_POLICY_DIR", dir}});
  std::filesystem::remove_all(dir);
  EXPECT_EQ(result["phase"], "install") << result.dump();
  EXPECT_NE(result["exit_code"], 0) << result.dump();
  EXPECT_NE(result["stderr"].get<std::string>().find("403 Forbidden - GET "
                                                     "https://registry.npmjs.org/left-pad"),
            std::string::npos)
      << result.dump();
  ASSERT_EQ(result["network"]["denied"].size(), 1u) << result.dump();
  EXPECT_EQ(result["network"]["denied"][0]["host"], "registry.npmjs.org");
  EXPECT_EQ(result["network"]["denied"][0]["reason"], "it is not in the allowlist");
  EXPECT_TRUE(result["network"]["allowed"].empty());
}

// PADDOCK_NPM_REGISTRY and PADDOCK_PIP_INDEX_URL point the installers at a mirror (here on the
// host's 127.0.0.1, which only the proxy reaches), and their list becomes the mirror alone.
TEST(Egress, TheInstallersListFollowsAMirror) {
  std::string dir = "/tmp/paddock-egress-mirror-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  Server mirror({"/usr/bin/python3", source_dir() + "/tests/support/package_mirror.py", dir},
                dir + "/port");
  std::string port = mirror.port();
  ASSERT_FALSE(port.empty());
  std::string base = "http://127.0.0.1:" + port;
  nlohmann::json npm = run_json({"--lang", "javascript", "--lib", "paddock-probe", "--code",
                                 "console.log(require('paddock-probe'))"},
                                {{"PADDOCK_NPM_REGISTRY", base + "/"}});
  nlohmann::json pip = run_json({"--lang", "python", "--lib", "paddock-probe", "--code",
                                 "import paddock_probe\nprint(paddock_probe.VALUE)"},
                                {{"PADDOCK_PIP_INDEX_URL", base + "/simple/"}});
  // The built-in index is not on the list any more.
  nlohmann::json elsewhere = run_json({"--lang", "javascript", "--lib", "left-pad", "--code", "1"},
                                      {{"PADDOCK_NPM_REGISTRY", base + "/"}});
  std::ifstream log(dir + "/requests.log");
  std::string requests((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  mirror.stop();
  std::filesystem::remove_all(dir);
  for (const auto* result : {&npm, &pip}) {
    EXPECT_EQ((*result)["stdout"], "from the mirror\n") << result->dump();
    ASSERT_EQ((*result)["network"]["allowed"].size(), 1u) << result->dump();
    EXPECT_TRUE(lists((*result)["network"]["allowed"], "127.0.0.1", std::stoi(port)));
  }
  EXPECT_NE(requests.find("/tarballs/probe.tgz"), std::string::npos) << requests;
  EXPECT_NE(requests.find("/wheels/paddock_probe-1.0-py3-none-any.whl"), std::string::npos);
  EXPECT_EQ(elsewhere["phase"], "install") << elsewhere.dump();
  EXPECT_FALSE(lists(elsewhere["network"]["allowed"], "registry.npmjs.org", 443));
}

// A policy's network.allow is the program's list, as --allow-host is.
TEST(Egress, APolicysAllowlistIsTheProgramsList) {
  std::string dir = "/tmp/paddock-egress-allow-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/python.json")
      << R"({"name": "python", "network": {"allow": ["registry.npmjs.org"]}})";
  nlohmann::json result = run_json(
      {"--lang", "python", "--code",
       fetch_script({"https://registry.npmjs.org/left-pad", "http://deb.debian.org/debian/"})},
      {{"PADDOCK_POLICY_DIR", dir}});
  std::filesystem::remove_all(dir);
  std::string out = result["stdout"];
  EXPECT_NE(out.find("https://registry.npmjs.org/left-pad 200\n"), std::string::npos) << out;
  EXPECT_NE(out.find("http://deb.debian.org/debian/ 403 paddock: deb.debian.org:80 is refused"),
            std::string::npos)
      << out;
  EXPECT_EQ(result["isolation"]["network"],
            "none; the program reaches registry.npmjs.org through the egress proxy");
}

// A mirror that is not an http(s) URL is one line before anything runs.
TEST(Egress, ABadMirrorIsOneLine) {
  setenv("PADDOCK_PIP_INDEX_URL", "ftp://mirror.example/simple", 1);
  CliResult bad = run_cli({"run", "--lang", "python", "--code", "print(1)"});
  unsetenv("PADDOCK_PIP_INDEX_URL");
  EXPECT_EQ(bad.exit_status, 125);
  EXPECT_NE(bad.err.find("PADDOCK_PIP_INDEX_URL: 'ftp://mirror.example/simple' is not an http:// "
                         "or https:// URL"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
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
  // Refused where the command line is read (config/), in the flags' words.
  EXPECT_NE(both.err.find("cannot be combined with --network user"), std::string::npos) << both.err;
  // And nothing of a run with an allowlist is left: no proxy thread outlives it (the CLI exits).
  CliResult ran =
      run_cli({"run", "--json", "--allow-host", "registry.npmjs.org", "--", "python3", "-c",
               "import urllib.request\ntry:\n"
               "    urllib.request.urlopen('http://deb.debian.org/', timeout=20)\n"
               "except Exception as e:\n    print('refused')"});
  EXPECT_EQ(ran.exit_status, 0) << ran.err;
  EXPECT_NE(ran.out.find("\"network\":{\"allowed\":[],\"denied\":[{\"host\":\"deb.debian.org\","
                         "\"port\":80,"),
            std::string::npos)
      << ran.out;
}

}  // namespace
}  // namespace paddock::testing::egress_test
