// Brokered secrets (issue 42, docs/secrets.md), attacked from inside real sandboxes: the real
// value must reach the secret's host in place of its placeholder, and nothing else of it may
// reach anywhere: not the sandbox's files, environment, memory or the proxy's answers, not
// another host by a redirect, not a host whose SNI or Host header does not match, not a host
// whose certificate fails. A local HTTPS server with a test authority of its own (passed with
// --egress-ca-file) answers every request with what it received, and logs it, so each test reads
// what really arrived. Names reach it through paddock-test-names (api.test, other.test), or as
// localhost through paddock itself.

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/helper_process.h"
#include "support/mcp_process.h"
#include "support/process_memory.h"
#include "support/temp_folder.h"

namespace paddock::testing::brokered_secrets_test {
namespace {

using json = nlohmann::json;

constexpr const char* kValue = "brokered-real-value-7f3a9c2e51";
constexpr const char* kVariable = "PADDOCK_TEST_BROKERED_VALUE";

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// What the echo server logged for the request to `path`, or "" when none came.
std::string request_for(const std::string& log, const std::string& path) {
  auto at = log.find(" " + path + " HTTP/1.1\n");
  if (at == std::string::npos) return "";
  auto end = log.find("\n---\n", at);
  return log.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The test authority, a certificate for the test names, and the echo server; the public part
// (the authority's certificate) in public/, which sandboxes may be shown.
class Lab {
 public:
  Lab() : folder_("brokered") {
    std::filesystem::create_directories(folder_ / "public");
    auto tool = [&](std::vector<std::string> args) {
      ToolResult made = run_tool(args);
      EXPECT_EQ(made.status, 0) << made.output;
    };
    tool({"/usr/bin/openssl",
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-days",
          "2",
          "-subj",
          "/CN=paddock test authority",
          "-addext",
          "basicConstraints=critical,CA:TRUE",
          "-addext",
          "keyUsage=critical,keyCertSign",
          "-keyout",
          folder_ / "ca.key",
          "-out",
          folder_ / "public/ca.pem"});
    tool({"/usr/bin/openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
          "-nodes", "-subj", "/CN=api.test", "-keyout", folder_ / "server.key", "-out",
          folder_ / "server.csr"});
    write(folder_ / "server.ext",
          "subjectAltName=DNS:api.test,DNS:other.test,DNS:localhost\nbasicConstraints=CA:FALSE\n"
          "extendedKeyUsage=serverAuth\n");
    tool({"/usr/bin/openssl", "x509", "-req", "-in", folder_ / "server.csr", "-CA",
          folder_ / "public/ca.pem", "-CAkey", folder_ / "ca.key", "-CAcreateserial", "-days", "2",
          "-out", folder_ / "server.pem", "-extfile", folder_ / "server.ext"});
    std::filesystem::permissions(folder_ / "public", std::filesystem::perms::all);
    std::filesystem::permissions(folder_ / "public/ca.pem",
                                 std::filesystem::perms::owner_all |
                                     std::filesystem::perms::group_read |
                                     std::filesystem::perms::others_read);
    server_ = std::make_unique<Server>(
        std::vector<std::string>{"/usr/bin/python3", source_dir() + "/tests/support/echo_https.py",
                                 folder_ / "server.pem", folder_ / "server.key",
                                 folder_ / "received.log", "https://other.test:{port}/landed"},
        folder_ / "server.out");
    port_ = server_->port();
    setenv(kVariable, kValue, 1);
    setenv("PADDOCK_EGRESS_TEST_RESOLVE", "api.test=127.0.0.1,other.test=127.0.0.1", 1);
  }
  ~Lab() {
    unsetenv(kVariable);
    unsetenv("PADDOCK_EGRESS_TEST_RESOLVE");
  }

  [[nodiscard]] bool ready() const { return !port_.empty(); }
  [[nodiscard]] const std::string& port() const { return port_; }
  [[nodiscard]] std::string authority() const { return folder_ / "public/ca.pem"; }
  [[nodiscard]] std::string received() const { return read_file(folder_ / "received.log"); }

  // `paddock run --json` (paddock-test-names) with TOKEN brokered for api.test, other.test
  // allowed as a plain destination, the test authority at /mnt/tls/ca.pem, and `flags`.
  json run(const std::string& python, std::vector<std::string> flags = {},
           bool trust_test_authority = true, const std::string& argument = "") const {
    std::vector<std::string> args = {paddock_test_names_binary(),
                                     "run",
                                     "--json",
                                     "--timeout",
                                     "60",
                                     "--secret",
                                     std::string("TOKEN=") + kVariable + "@api.test:" + port_,
                                     "--allow-host",
                                     "other.test:" + port_,
                                     "--allow-host",
                                     "127.0.0.1:" + port_,
                                     "--ro-bind",
                                     folder_ / "public:/mnt/tls"};
    if (trust_test_authority) args.insert(args.end(), {"--egress-ca-file", authority()});
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "/usr/bin/python3", "-c", python});
    if (!argument.empty()) args.push_back(argument);
    CliResult ran = run_program(args);
    auto parsed = json::parse(ran.out, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << ran.out << ran.err;
    if (parsed.is_discarded()) return json::object();
    EXPECT_EQ(ran.out.find(kValue), std::string::npos) << "the result holds the value";
    EXPECT_EQ(ran.err.find(kValue), std::string::npos) << "paddock's stderr holds the value";
    return parsed;
  }

  // Python that sends raw `request` (with {TOKEN} for the placeholder) through a CONNECT to
  // `connect_to`, with TLS for `server_name`, in the pieces split at each "|", each its own
  // write (and so its own TLS record) a moment apart; prints the answer's status line.
  std::string raw_request(const std::string& connect_to, const std::string& server_name,
                          const std::string& request, const std::string& cafile = "") const {
    return "import os, socket, ssl, time\n"
           "context = ssl.create_default_context(" +
           (cafile.empty() ? "" : "cafile='" + cafile + "'") +
           ")\n"
           "s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
           "s.sendall(b'CONNECT " +
           connect_to + ":" + port_ +
           " HTTP/1.1\\r\\n\\r\\n')\n"
           "assert s.recv(4096).startswith(b'HTTP/1.1 200')\n"
           "try:\n"
           "    t = context.wrap_socket(s, server_hostname='" +
           server_name +
           "')\n"
           "    request = '''" +
           request + "'''.replace('{TOKEN}', os.environ['TOKEN']).replace('{PORT}', '" + port_ +
           "').replace('\\n', '\\r\\n')\n"
           "    for piece in request.split('|'):\n"
           "        t.sendall(piece.encode()); time.sleep(0.2)\n"
           "    t.settimeout(5)\n"
           "    answer = t.recv(65536).decode('latin-1')\n"
           "    print(answer.split('\\r\\n')[0] if answer else 'closed')\n"
           "except (OSError, ssl.SSLError) as e:\n"
           "    print('failed', type(e).__name__)\n";
  }

 private:
  static void write(const std::string& path, const std::string& text) {
    FILE* file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs(text.c_str(), file);
    std::fclose(file);
  }

  TempFolder folder_;
  std::unique_ptr<Server> server_;
  std::string port_;
};

TEST(Brokered, CurlUrllibAndRequestsGetTheValueInPlaceOfThePlaceholder) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  json result = lab.run(
      "import os, subprocess, urllib.request, requests\n"
      "url = 'https://api.test:" +
      lab.port() +
      "/'\n"
      "h = {'Authorization': 'Bearer ' + os.environ['TOKEN']}\n"
      "r = urllib.request.urlopen(urllib.request.Request(url + 'urllib', headers=h), "
      "timeout=30)\n"
      "print('urllib', r.status)\n"
      "print('requests', requests.get(url + 'requests', headers=h, timeout=30).status_code)\n"
      "c = subprocess.run(['curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H',\n"
      "    'Authorization: Bearer ' + os.environ['TOKEN'], url + 'curl'], capture_output=True,\n"
      "    text=True)\n"
      "print('curl', c.stdout, c.stderr.strip())\n"
      "print(os.environ['TOKEN'][:21])\n");
  EXPECT_EQ(result.value("stdout", ""),
            "urllib 200\nrequests 200\ncurl 200 \npaddock-secret-TOKEN-\n")
      << result.dump();
  std::string log = lab.received();
  for (const char* path : {"/urllib", "/requests", "/curl"}) {
    std::string seen = request_for(log, path);
    EXPECT_NE(seen.find(std::string("Authorization: Bearer ") + kValue), std::string::npos)
        << path << "\n"
        << log;
    EXPECT_EQ(seen.find("paddock-secret-"), std::string::npos) << seen;
  }
  ASSERT_TRUE(result.contains("network")) << result.dump();
  ASSERT_EQ(result["network"]["secrets"].size(), 1u) << result.dump();
  EXPECT_EQ(result["network"]["secrets"][0]["name"], "TOKEN");
  EXPECT_EQ(result["network"]["secrets"][0]["substituted"], true);
}

// Every place code can look: its environment and every process's, command lines, its own
// memory, the files it can read (the trust bundle and the test authority among them), and the
// proxy's own answers (a refusal, a misdirected request). The script knows only the value's
// first half; wherever that occurs it prints what follows, so the test sees the whole value if
// it is anywhere. A control run with the value put in the environment proves the search works.
TEST(Brokered, CodeFindsNoValueAndNoKeyInProcEnvironMemoryFilesOrTheProxysAnswers) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  std::string half = std::string(kValue).substr(0, 14);
  std::string search =
      "import os, re, socket, ssl, sys\n"
      "half = sys.argv[1].encode()\n"
      "found, keys = [], []\n"
      "key = b'PRIVATE' + b' KEY-----'\n"
      "def look(where, data):\n"
      "    for m in re.finditer(re.escape(half), data):\n"
      "        found.append((where, data[m.start():m.start() + 40]))\n"
      "    if key in data and not where.startswith(('memory', '/etc/alternatives')):\n"
      "        keys.append(where)\n"
      "def read(path, limit=64 << 20):\n"
      "    try:\n"
      "        with open(path, 'rb') as f: return f.read(limit)\n"
      "    except OSError: return b''\n"
      "for pid in [p for p in os.listdir('/proc') if p.isdigit()] + ['self']:\n"
      "    for name in ('environ', 'cmdline'):\n"
      "        look('/proc/%s/%s' % (pid, name), read('/proc/%s/%s' % (pid, name)))\n"
      "with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:\n"
      "    for line in maps:\n"
      "        span, perms = line.split()[:2]\n"
      "        if not perms.startswith('r') or '[v' in line: continue\n"
      "        start, end = (int(x, 16) for x in span.split('-'))\n"
      "        try:\n"
      "            mem.seek(start); look('memory', mem.read(end - start))\n"
      "        except (OSError, OverflowError, ValueError): pass\n"
      "for top in ('/etc', '/tmp', '/work', '/mnt', '/run'):\n"
      "    for root, dirs, files in os.walk(top):\n"
      "        for name in files:\n"
      "            path = os.path.join(root, name)\n"
      "            if os.path.isfile(path): look(path, read(path))\n"
      "answers = b''\n"
      "for request in (b'CONNECT refused.test:443 HTTP/1.1\\r\\n\\r\\n',\n"
      "                b'GET http://api.test:" +
      lab.port() + "/ HTTP/1.1\\r\\nHost: api.test:" + lab.port() +
      "\\r\\n\\r\\n'):\n"
      "    s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
      "    s.sendall(request); answers += s.recv(65536); s.close()\n"
      "s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
      "s.sendall(b'CONNECT api.test:" +
      lab.port() +
      " HTTP/1.1\\r\\n\\r\\n'); s.recv(4096)\n"
      "t = ssl.create_default_context().wrap_socket(s, server_hostname='api.test')\n"
      "t.sendall(('GET / HTTP/1.1\\r\\nHost: elsewhere.test\\r\\nX: ' + os.environ['TOKEN'] +\n"
      "           '\\r\\n\\r\\n').encode())\n"
      "answers += t.recv(65536)\n"
      "look('answers', answers)\n"
      "print('answers:', b'421' in answers, b'403' in answers)\n"
      "print('keys:', keys)\n"
      "for where, what in found: print('found', where, what)\n";
  json clean = lab.run(search + "print('searched')\n", {}, true, half);
  // The script's own argv holds the half; nothing may hold the whole. (Programs' memory and
  // binaries hold PEM markers of their own; files, environments and answers must not.)
  std::string out = clean.value("stdout", "");
  EXPECT_NE(out.find("searched"), std::string::npos) << clean.dump();
  EXPECT_NE(out.find("answers: True True"), std::string::npos) << clean.dump();
  EXPECT_NE(out.find("keys: []"), std::string::npos) << out;
  EXPECT_EQ(out.find(kValue), std::string::npos) << out;
  // The control: the same search finds the value once it is in the environment.
  CliResult control = run_program({paddock_test_names_binary(), "run", "--timeout", "60", "--env",
                                   std::string("LEAKED=") + kValue, "--", "/usr/bin/python3", "-c",
                                   search.substr(0, search.find("answers = b''")) +
                                       "for where, what in found: print('found', where, "
                                       "what)\n",
                                   half});
  EXPECT_NE(control.out.find(kValue), std::string::npos) << control.out << control.err;
}

TEST(Brokered, ARedirectToAnotherHostCarriesOnlyThePlaceholderThere) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  // curl told to send the header on across hosts (--location-trusted): the second host gets
  // what the sandbox has, the placeholder; only the secret's host got the value.
  json result = lab.run(
      "import os, subprocess\n"
      "bundle = open('/etc/ssl/certs/ca-certificates.crt').read() + "
      "open('/mnt/tls/ca.pem').read()\n"
      "open('/tmp/both.pem', 'w').write(bundle)\n"
      "c = subprocess.run(['curl', '-sS', '-L', '--location-trusted', '--cacert', "
      "'/tmp/both.pem',\n"
      "    '-o', '/dev/null', '-w', '%{http_code} %{url_effective}', '-H',\n"
      "    'Authorization: Bearer ' + os.environ['TOKEN'],\n"
      "    'https://api.test:" +
      lab.port() +
      "/redirect'], capture_output=True, text=True)\n"
      "print(c.stdout, c.stderr.strip())\n");
  EXPECT_EQ(result.value("stdout", ""), "200 https://other.test:" + lab.port() + "/landed \n")
      << result.dump();
  std::string log = lab.received();
  EXPECT_NE(request_for(log, "/redirect").find(kValue), std::string::npos) << log;
  std::string landed = request_for(log, "/landed");
  ASSERT_FALSE(landed.empty()) << log;
  EXPECT_EQ(landed.find(kValue), std::string::npos) << landed;
  EXPECT_NE(landed.find("Authorization: Bearer paddock-secret-TOKEN-"), std::string::npos)
      << landed;
}

TEST(Brokered, ASniOrHostHeaderThatDoesNotMatchGetsNoSubstitution) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  // The Host header of a request inside api.test's TLS names another host: refused (421), sent
  // nowhere, and noted.
  json host = lab.run(lab.raw_request(
      "api.test", "api.test", "GET /host HTTP/1.1\nHost: other.test:{PORT}\nX-Key: {TOKEN}\n\n"));
  EXPECT_EQ(host.value("stdout", ""), "HTTP/1.1 421 Misdirected Request\n") << host.dump();
  ASSERT_EQ(host["network"]["secrets"].size(), 1u) << host.dump();
  EXPECT_EQ(host["network"]["secrets"][0]["substituted"], false);
  EXPECT_NE(host["network"]["secrets"][0]["reason"].get<std::string>().find("Host header"),
            std::string::npos);
  // TLS for other.test (not a secret's host) is not intercepted, whatever Host it carries:
  // the server gets the placeholder as it is.
  json other = lab.run(lab.raw_request("other.test", "other.test",
                                       "GET /fronted HTTP/1.1\nHost: api.test:{PORT}\n"
                                       "X-Key: {TOKEN}\n\n",
                                       "/mnt/tls/ca.pem"));
  EXPECT_EQ(other.value("stdout", ""), "HTTP/1.1 200 OK\n") << other.dump();
  // A tunnel to api.test whose TLS names other.test: domain fronting, closed.
  json fronted = lab.run(lab.raw_request(
      "api.test", "other.test", "GET /sni HTTP/1.1\nHost: api.test:{PORT}\nX-Key: {TOKEN}\n\n",
      "/mnt/tls/ca.pem"));
  EXPECT_EQ(fronted.value("stdout", "").substr(0, 6), "failed") << fronted.dump();
  // Plain http never goes through TLS the proxy could terminate: a placeholder there goes as it
  // is, and is noted.
  json plain = lab.run(
      "import os, urllib.request\n"
      "try:\n"
      "    urllib.request.urlopen(urllib.request.Request('http://other.test:" +
      lab.port() +
      "/plain',\n"
      "        headers={'X-Key': os.environ['TOKEN']}), timeout=10)\n"
      "except Exception:\n"
      "    pass\n");
  ASSERT_EQ(plain["network"]["secrets"].size(), 1u) << plain.dump();
  EXPECT_EQ(plain["network"]["secrets"][0]["host"], "other.test");
  EXPECT_NE(plain["network"]["secrets"][0]["reason"].get<std::string>().find("plain http"),
            std::string::npos);
  std::string log = lab.received();
  EXPECT_TRUE(request_for(log, "/host").empty()) << log;
  EXPECT_TRUE(request_for(log, "/sni").empty()) << log;
  std::string seen = request_for(log, "/fronted");
  EXPECT_NE(seen.find("X-Key: paddock-secret-TOKEN-"), std::string::npos) << log;
  EXPECT_EQ(log.find(kValue), std::string::npos) << log;
}

TEST(Brokered, APlaceholderSplitAcrossWritesAndRecordsIsStillSubstitutedOrNeverSent) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  // Each piece is its own write, and so its own TLS record: the placeholder in two, and a
  // body in two with --secret-in-body.
  std::string split_header = lab.raw_request(
      "api.test", "api.test", "GET /split HTTP/1.1\nHost: api.test:{PORT}\nX-Key: {TOKEN}\n\n");
  // "{TOKEN}" becomes the placeholder before the split at "|": put the cut inside it by hand.
  std::string cut = "os.environ['TOKEN'][:18] + '|' + os.environ['TOKEN'][18:]";
  auto replace = [](std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  };
  split_header = replace(split_header, ".replace('{TOKEN}', os.environ['TOKEN'])",
                         ".replace('{TOKEN}', " + cut + ")");
  json header = lab.run(split_header);
  EXPECT_EQ(header.value("stdout", ""), "HTTP/1.1 200 OK\n") << header.dump();
  std::string body_request = replace(
      lab.raw_request("api.test", "api.test",
                      "POST /body HTTP/1.1\nHost: api.test:{PORT}\nTransfer-Encoding: chunked\n\n"
                      "40\n{\"key\": \"{TOKEN}\"}\n0\n\n"),
      ".replace('{TOKEN}', os.environ['TOKEN'])", ".replace('{TOKEN}', " + cut + ")");
  json body = lab.run(body_request, {"--secret-in-body"});
  EXPECT_EQ(body.value("stdout", ""), "HTTP/1.1 200 OK\n") << body.dump();
  // Cut off inside the placeholder: that request never goes anywhere.
  json cut_off = lab.run(replace(
      lab.raw_request("api.test", "api.test",
                      "GET /cut HTTP/1.1\nHost: api.test:{PORT}\nX-Key: {TOKEN}"),
      ".replace('{TOKEN}', os.environ['TOKEN'])", ".replace('{TOKEN}', os.environ['TOKEN'][:18])"));
  std::string log = lab.received();
  EXPECT_NE(request_for(log, "/split").find(std::string("X-Key: ") + kValue), std::string::npos)
      << log;
  EXPECT_NE(request_for(log, "/body").find(std::string("{\"key\": \"") + kValue + "\"}"),
            std::string::npos)
      << log;
  EXPECT_TRUE(request_for(log, "/cut").empty()) << log;
  EXPECT_EQ(log.find("paddock-secret-"), std::string::npos) << log;
}

TEST(Brokered, ACertificateErrorIsA502OfOneLineAndTheValueIsNeverSent) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  // Without --egress-ca-file the system's trust store does not know the test authority.
  json result = lab.run(
      "import os, urllib.request, urllib.error\n"
      "try:\n"
      "    urllib.request.urlopen(urllib.request.Request('https://api.test:" +
          lab.port() +
          "/cert',\n"
          "        headers={'X-Key': os.environ['TOKEN']}), timeout=30)\n"
          "except urllib.error.HTTPError as e:\n"
          "    print(e.code); print(e.read().decode(), end='')\n",
      {}, false);
  std::string out = result.value("stdout", "");
  EXPECT_EQ(out.substr(0, 4), "502\n") << result.dump();
  EXPECT_EQ(count_of(out, "\n"), 2u) << out;
  EXPECT_NE(out.find("could not reach api.test:" + lab.port() +
                     " over TLS: its certificate failed verification"),
            std::string::npos)
      << out;
  EXPECT_EQ(lab.received().find("/cert"), std::string::npos) << lab.received();
  ASSERT_TRUE(result.contains("network")) << result.dump();
  ASSERT_EQ(result["network"]["unreachable"].size(), 1u) << result.dump();
  // Never sent: no note says the placeholder was substituted (the 502 may come before the
  // request is even read).
  for (const auto& use : result["network"].value("secrets", json::array())) {
    EXPECT_EQ(use["substituted"], false) << result.dump();
  }
}

TEST(Brokered, OtherHostsTlsIsAPlainTunnelWithTheServersOwnCertificate) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  std::string issuer_of =
      "import socket, ssl\n"
      "def issuer(name, context):\n"
      "    s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
      "    s.sendall(('CONNECT %s:" +
      lab.port() +
      " HTTP/1.1\\r\\n\\r\\n' % name).encode()); s.recv(4096)\n"
      "    t = context.wrap_socket(s, server_hostname=name)\n"
      "    return dict(x[0] for x in t.getpeercert()['issuer'])['commonName']\n"
      "print(issuer('other.test', ssl.create_default_context(cafile='/mnt/tls/ca.pem')))\n"
      "print(issuer('api.test', ssl.create_default_context()))\n";
  json result = lab.run(issuer_of);
  EXPECT_EQ(result.value("stdout", ""),
            "paddock test authority\npaddock brokered secrets (one server's, in memory)\n")
      << result.dump();
}

// An answer framed by the connection's close (no Content-Length) comes back whole: the proxy
// ends the sandbox's side only once it has handed on all the upstream sent.
TEST(Brokered, ALargeAnswerEndedByTheConnectionsCloseArrivesWhole) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  json result = lab.run(
      "import os, subprocess\n"
      "c = subprocess.run(['curl', '-sS', '--http1.1', '-H', 'X-Key: ' + os.environ['TOKEN'],\n"
      "    'https://api.test:" +
      lab.port() +
      "/big'], capture_output=True)\n"
      "print(len(c.stdout), c.stderr.decode().strip())\n");
  EXPECT_EQ(result.value("stdout", ""), std::to_string(4 << 20) + " \n") << result.dump();
}

// The sandbox's bytes inside an intercepted connection are hostile: garbage as plaintext, a head
// over its bound, raw bytes that are no TLS, and handshakes abandoned midway, forty at once. Each
// ends its own connection and nothing else: a normal request afterwards is served, and nothing of
// the hostile ones reached the server.
TEST(Brokered, HostileBytesInsideAnInterceptedConnectionEndOnlyThatConnection) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  json result = lab.run(
      "import os, random, socket, ssl, urllib.request\n"
      "port = " +
      lab.port() +
      "\n"
      "def tunnel():\n"
      "    s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
      "    s.sendall(b'CONNECT api.test:%d HTTP/1.1\\r\\n\\r\\n' % port)\n"
      "    assert s.recv(4096).startswith(b'HTTP/1.1 200')\n"
      "    return s\n"
      "def answer(t):\n"
      "    try:\n"
      "        return t.recv(4096)[:12].decode('latin-1') or 'closed'\n"
      "    except (OSError, ssl.SSLError) as e:\n"
      "        return type(e).__name__\n"
      "context = ssl.create_default_context()\n"
      "t = context.wrap_socket(tunnel(), server_hostname='api.test')\n"
      "try:\n"
      "    t.sendall(bytes(random.getrandbits(8) for _ in range(2000)))\n"
      "except (OSError, ssl.SSLError):\n"
      "    pass\n"
      "print('garbage', answer(t))\n"
      "t = context.wrap_socket(tunnel(), server_hostname='api.test')\n"
      "try:\n"
      "    t.sendall(b'GET /long HTTP/1.1\\r\\nHost: api.test\\r\\nX: ' + b'a' * 20000)\n"
      "except (OSError, ssl.SSLError):\n"
      "    pass\n"
      "print('long head', answer(t))\n"
      "s = tunnel(); s.sendall(b'\\x16\\x03\\x01\\x00\\x05hello' + os.urandom(5000))\n"
      "print('not tls', answer(s))\n"
      "incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()\n"
      "hello_maker = context.wrap_bio(incoming, outgoing, server_hostname='api.test')\n"
      "try:\n"
      "    hello_maker.do_handshake()\n"
      "except ssl.SSLWantReadError:\n"
      "    pass\n"
      "hello = outgoing.read()\n"
      "abandoned = [tunnel() for _ in range(40)]\n"
      "for s in abandoned: s.sendall(hello)\n"
      "for s in abandoned: s.close()\n"
      "r = urllib.request.urlopen(urllib.request.Request('https://api.test:%d/after' % port,\n"
      "    headers={'X-Key': os.environ['TOKEN']}), timeout=30)\n"
      "print('after', r.status)\n");
  EXPECT_EQ(result.value("stdout", ""),
            "garbage HTTP/1.1 400\nlong head HTTP/1.1 400\nnot tls closed\nafter 200\n")
      << result.dump();
  std::string log = lab.received();
  EXPECT_NE(request_for(log, "/after").find(std::string("X-Key: ") + kValue), std::string::npos)
      << log;
  EXPECT_TRUE(request_for(log, "/long").empty());
  EXPECT_EQ(count_of(log, "\n---\n"), 1u) << log;
}

// paddock itself (the lean executable hands a run with --secret to paddock-full), with the
// secret's host as localhost, which the proxy resolves from /etc/hosts. A program's NO_PROXY
// leaves localhost direct (its own servers), so the client is told to use the proxy anyway.
TEST(Brokered, PaddockRunWithSecretWorks) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  CliResult ran =
      run_cli({"run", "--secret", std::string("TOKEN=") + kVariable + "@localhost:" + lab.port(),
               "--allow-host", "127.0.0.1:" + lab.port(), "--egress-ca-file", lab.authority(), "--",
               "/bin/sh", "-c",
               "curl -sS --noproxy '' -o /dev/null -w '%{http_code}\\n' -H "
               "\"X-Key: $TOKEN\" "
               "https://localhost:" +
                   lab.port() + "/lean"});
  EXPECT_EQ(ran.out, "200\n") << ran.err;
  EXPECT_NE(request_for(lab.received(), "/lean").find(std::string("X-Key: ") + kValue),
            std::string::npos)
      << lab.received();
  // A variable that is not set: one line at start, naming it.
  CliResult unset = run_cli(
      {"run", "--secret", "TOKEN=PADDOCK_TEST_UNSET_VARIABLE@localhost", "--", "/bin/true"});
  EXPECT_NE(unset.exit_status, 0);
  EXPECT_NE(unset.err.find("PADDOCK_TEST_UNSET_VARIABLE, which is unset or empty"),
            std::string::npos)
      << unset.err;
  EXPECT_EQ(count_of(unset.err, "\n"), 1u) << unset.err;
}

// A wrapped MCP server (`paddock wrap --secret`) is brokered as a run is: it sees the placeholder,
// the secret's host receives the value, and the client's stream never holds it. The server here
// answers one request with what its HTTPS call got, as a real server's tool would.
TEST(Brokered, PaddockWrapWithSecretWorks) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  TempFolder state("wrap-secret");
  const std::string server =
      "import json, os, subprocess, sys\n"
      "request = json.loads(sys.stdin.readline())\n"
      "code = subprocess.run(['curl', '-sS', '--noproxy', '', '-o', '/dev/null', '-w', "
      "'%{http_code}', '-H', 'X-Key: ' + os.environ['TOKEN'], "
      "'https://localhost:" +
      lab.port() +
      "/wrapped'], capture_output=True, text=True).stdout\n"
      "print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': {'status': code, "
      "'placeholder': os.environ['TOKEN']}}), flush=True)\n";
  CliResult ran = run_cli(
      {"wrap", "--state-dir", state.path(), "--secret",
       std::string("TOKEN=") + kVariable + "@localhost:" + lab.port(), "--allow-host",
       "127.0.0.1:" + lab.port(), "--egress-ca-file", lab.authority(), "--", "/usr/bin/python3",
       "-c", server},
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n");
  EXPECT_EQ(ran.exit_status, 0) << ran.err;
  auto answer = json::parse(ran.out, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << ran.out << ran.err;
  EXPECT_EQ(answer["result"]["status"], "200") << ran.out << ran.err;
  EXPECT_NE(answer["result"]["placeholder"].get<std::string>(), kValue);
  EXPECT_EQ(ran.out.find(kValue), std::string::npos);
  EXPECT_EQ(ran.err.find(kValue), std::string::npos);
  EXPECT_NE(request_for(lab.received(), "/wrapped").find(std::string("X-Key: ") + kValue),
            std::string::npos)
      << lab.received();
}

// `paddock mcp` with `flags` and no state directory, initialized, and its answer to initialize.
struct InitializedServer {
  std::unique_ptr<McpProcess> server;
  json initialized;
};
InitializedServer initialized_server(std::vector<std::string> flags) {
  setenv("PADDOCK_STATE_DIR", "none", 1);
  auto server = std::make_unique<McpProcess>(std::move(flags));
  unsetenv("PADDOCK_STATE_DIR");
  server->request(1, "initialize",
                  {{"protocolVersion", "2025-06-18"},
                   {"capabilities", json::object()},
                   {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
  json initialized = server->wait_for(1);
  EXPECT_FALSE(initialized.is_null());
  return {std::move(server), std::move(initialized)};
}

// The MCP server: the instructions name the secret and its hosts, never the value; a call's
// result says the placeholder was substituted, and an echo of the value comes back masked.
TEST(Brokered, TheModelLearnsTheSecretsNamesAndUsesAndNeverTheValue) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  TempFolder audit_folder("brokered-audit");
  std::string audit = audit_folder / "audit.jsonl";
  auto [server, initialized] = initialized_server(
      {"--secret", std::string("TOKEN=") + kVariable + "@localhost:" + lab.port(), "--allow-host",
       "127.0.0.1:" + lab.port(), "--egress-ca-file", lab.authority(), "--warm", "0", "--audit-log",
       audit});
  std::string instructions = initialized["result"].value("instructions", "");
  EXPECT_NE(instructions.find("TOKEN (for localhost:" + lab.port() + ")"), std::string::npos)
      << instructions;
  EXPECT_EQ(initialized.dump().find(kValue), std::string::npos);
  server->call(2, "execute_code",
               {{"code",
                 "import os, urllib.request\n"
                 "os.environ.pop('NO_PROXY'); os.environ.pop('no_proxy')\n"
                 "r = urllib.request.urlopen(urllib.request.Request('https://localhost:" +
                     lab.port() +
                     "/mcp', headers={'X-Key': os.environ['TOKEN']}), timeout=30)\n"
                     "print(r.read().decode())\n"
                     "print(os.environ['TOKEN'][:21])\n"}});
  json run = server->wait_for(2, std::chrono::seconds(120));
  std::string text = McpProcess::text_of(run);
  EXPECT_EQ(run.dump().find(kValue), std::string::npos) << run.dump();
  EXPECT_NE(text.find("X-Key: ***"), std::string::npos) << text;
  EXPECT_NE(text.find("paddock-secret-TOKEN-"), std::string::npos) << text;
  EXPECT_NE(text.find("secret TOKEN: its placeholder was replaced by the real value in a request "
                      "to localhost:" +
                      lab.port()),
            std::string::npos)
      << text;
  EXPECT_NE(request_for(lab.received(), "/mcp").find(std::string("X-Key: ") + kValue),
            std::string::npos);
  // The audit line names the secret's use, never its value.
  std::string audited = read_file(audit);
  EXPECT_NE(audited.find("\"name\":\"TOKEN\""), std::string::npos) << audited;
  EXPECT_EQ(audited.find(kValue), std::string::npos) << audited;
  // A clean end: the server removes its trust bundle's folder (a killed one cannot).
  server->close_input();
  EXPECT_EQ(server->wait_exit(std::chrono::seconds(60)), 0);
}

// Issue 55 item 6: a secret for a local API, set up as docs/secrets.md says (no --allow-host,
// nothing cleared in the code): requests reaches the host's localhost:PORT through the proxy, with
// the value in place of the placeholder; the sandbox's own server is still direct at 127.0.0.1,
// and another port of localhost is refused with a line that says where the sandbox's own are.
TEST(Brokered, ASecretForALocalApiWorksAsTheDocsSetItUp) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  auto [server, initialized] = initialized_server(
      {"--secret", std::string("API_TOKEN=") + kVariable + "@localhost:" + lab.port(),
       "--egress-ca-file", lab.authority(), "--warm", "0"});
  std::string instructions = initialized["result"].value("instructions", "");
  EXPECT_NE(instructions.find("localhost names the user's machine"), std::string::npos)
      << instructions;
  server->call(
      2, "execute_code",
      {{"code",
        "import http.server, os, threading, requests\n"
        "own = http.server.HTTPServer(('127.0.0.1', 8123), http.server.BaseHTTPRequestHandler)\n"
        "threading.Thread(target=own.serve_forever, daemon=True).start()\n"
        "r = requests.get('https://localhost:" +
            lab.port() +
            "/local-api', headers={'Authorization': 'Bearer ' + os.environ['API_TOKEN']}, "
            "timeout=30)\n"
            "print('api', r.status_code)\n"
            "print('own', requests.get('http://127.0.0.1:8123/', timeout=10).status_code)\n"
            "other = requests.get('http://localhost:8124/', timeout=10)\n"
            "print('other', other.status_code, other.text.strip())\n"}});
  json run = server->wait_for(2, std::chrono::seconds(120));
  std::string text = McpProcess::text_of(run);
  EXPECT_EQ(run.dump().find(kValue), std::string::npos) << run.dump();
  EXPECT_NE(text.find("api 200"), std::string::npos) << text;
  EXPECT_NE(text.find("own 501"), std::string::npos) << text;  // its handler has no do_GET
  EXPECT_NE(text.find("other 403"), std::string::npos) << text;
  EXPECT_NE(text.find("this sandbox's own servers are at 127.0.0.1"), std::string::npos) << text;
  EXPECT_NE(request_for(lab.received(), "/local-api")
                .find(std::string("Authorization: Bearer ") + kValue),
            std::string::npos)
      << lab.received();
  server->close_input();
  EXPECT_EQ(server->wait_exit(std::chrono::seconds(60)), 0);
}

// `paddock mcp` brokering TOKEN for localhost (the lab's server) with --secret-in-body, and
// initialized.
std::unique_ptr<McpProcess> brokered_server(const Lab& lab) {
  return initialized_server({"--secret",
                             std::string("TOKEN=") + kVariable + "@localhost:" + lab.port(),
                             "--secret-in-body", "--allow-host", "127.0.0.1:" + lab.port(),
                             "--egress-ca-file", lab.authority(), "--warm", "0"})
      .server;
}

// The CPU seconds `pid` has spent (all its threads), from /proc/PID/stat.
double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto after_name = all.rfind(')');
  if (after_name == std::string::npos) return -1;
  std::istringstream fields(all.substr(after_name + 2));
  std::string field;
  double ticks = 0;
  // state is field 3; utime and stime are 14 and 15.
  for (int number = 3; number <= 15 && fields >> field; ++number) {
    if (number >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The most `pid` held resident (KiB) while `work` ran, sampled every 50 ms.
template <typename Work>
long peak_resident_kib_during(pid_t pid, Work work) {
  std::atomic<bool> done{false};
  std::atomic<long> peak{resident_kib(pid)};
  std::thread sampler([&] {
    while (!done) {
      long now = resident_kib(pid);
      if (now > peak) peak = now;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  work();
  done = true;
  sampler.join();
  return peak;
}

// Python for a sandbox of brokered_server(lab): tunnel() opens an intercepted connection to the
// lab's server (at the pace the proxy allows), head(length) is a POST /held head.
std::string tunnel_prelude(const Lab& lab) {
  return "import socket, ssl, time\n"
         "port = " +
         lab.port() +
         "\n"
         "context = ssl.create_default_context()\n"
         "def tunnel():\n"
         "    for attempt in range(50):\n"
         "        s = socket.create_connection(('127.0.0.1', 3128), timeout=60)\n"
         "        s.sendall(b'CONNECT localhost:%d HTTP/1.1\\r\\n\\r\\n' % port)\n"
         "        answer = s.recv(4096)\n"
         "        if not answer.startswith(b'HTTP/1.1 429'): break\n"
         "        s.close(); time.sleep(0.2)\n"
         "    assert answer.startswith(b'HTTP/1.1 200'), answer\n"
         "    return context.wrap_socket(s, server_hostname='localhost')\n"
         "def head(length):\n"
         "    return (b'POST /held HTTP/1.1\\r\\nHost: localhost:%d\\r\\nContent-Length: "
         "%d\\r\\n'\n"
         "            b'\\r\\n' % (port, length))\n";
}

// A brokered server with one session whose proxy and TLS were used once, so that the server's
// resident memory read after (`baseline_kib`) is its settled baseline.
struct WarmedBroker {
  std::unique_ptr<McpProcess> server;
  std::string session;
  std::string connect;  // tunnel_prelude's Python
  long baseline_kib = 0;
};

WarmedBroker warmed_broker(const Lab& lab) {
  WarmedBroker warmed{brokered_server(lab), "", tunnel_prelude(lab), 0};
  McpProcess& server = *warmed.server;
  warmed.session = server.open_session(2, json::object());
  if (warmed.session.empty()) return warmed;
  server.call(3, "execute_code",
              {{"session_id", warmed.session},
               {"code", warmed.connect + "t = tunnel(); t.sendall(head(5) + b'hello')\n"
                                         "print(t.recv(4096).split(b'\\r\\n')[0].decode())\n"}});
  json warm = server.wait_for(3, std::chrono::seconds(120));
  EXPECT_NE(McpProcess::text_of(warm).find("HTTP/1.1 200 OK"), std::string::npos) << warm.dump();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  warmed.baseline_kib = resident_kib(server.pid());
  return warmed;
}

// Issue 49, item 10: with --secret-in-body the proxy holds a request body whole until it has
// come. 60 intercepted connections that each send all but the last byte of a 1 MiB body held
// 84-93 MiB of the server's memory, with no deadline. Now the sandbox's bodies together are
// bounded (past it, a 503 that says so), and a body the client leaves unfinished is answered 408
// after the head's deadline, which ends the connection and frees what it held. A TLS handshake
// the client abandoned ends at the same deadline.
TEST(Brokered, HeldBodiesAreBoundedPerSandboxAndEndAtTheirDeadline) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  WarmedBroker warmed = warmed_broker(lab);
  McpProcess& server = *warmed.server;
  const std::string& session = warmed.session;
  ASSERT_FALSE(session.empty());
  const std::string& connect = warmed.connect;
  long before = warmed.baseline_kib;
  ASSERT_GT(before, 0);
  // 60 connections (opened at the pace the proxy allows intercepted handshakes), each sending
  // all but the last byte of a 1 MiB body; then each waits for what the proxy does with it.
  std::string attack = connect +
                       "incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()\n"
                       "maker = context.wrap_bio(incoming, outgoing, server_hostname='localhost')\n"
                       "try:\n"
                       "    maker.do_handshake()\n"
                       "except ssl.SSLWantReadError:\n"
                       "    pass\n"
                       "abandoned = socket.create_connection(('127.0.0.1', 3128), timeout=60)\n"
                       "abandoned.sendall(b'CONNECT localhost:%d HTTP/1.1\\r\\n\\r\\n' % port)\n"
                       "assert abandoned.recv(4096).startswith(b'HTTP/1.1 200')\n"
                       "abandoned.sendall(outgoing.read())\n"
                       "opened = time.monotonic()\n"
                       "held, refused = [], 0\n"
                       "for i in range(60):\n"
                       "    t = tunnel()\n"
                       "    try:\n"
                       "        t.sendall(head(1 << 20) + b'x' * ((1 << 20) - 1))\n"
                       "        held.append(t)\n"
                       "    except (OSError, ssl.SSLError):\n"
                       "        refused += 1\n"
                       "        try:\n"
                       "            print('refused:', t.recv(4096).split(b'\\r\\n')[0].decode())\n"
                       "        except (OSError, ssl.SSLError):\n"
                       "            pass\n"
                       "        continue\n"
                       "    time.sleep(0.1)\n"
                       "print('sent', flush=True)\n"
                       "abandoned.settimeout(45 - (time.monotonic() - opened))\n"
                       "try:\n"
                       "    while abandoned.recv(65536): pass\n"
                       "    print('abandoned handshake closed within 45 s')\n"
                       "except socket.timeout:\n"
                       "    print('abandoned handshake still open after 45 s')\n"
                       "except OSError as e:\n"
                       "    print('abandoned handshake', type(e).__name__)\n"
                       "fates = {}\n"
                       "start = time.monotonic()\n"
                       "for t in held:\n"
                       "    t.settimeout(max(1, 50 - (time.monotonic() - start)))\n"
                       "    try:\n"
                       "        line = t.recv(4096).split(b'\\r\\n')[0].decode() or 'closed'\n"
                       "    except socket.timeout:\n"
                       "        line = 'still open'\n"
                       "    except (OSError, ssl.SSLError) as e:\n"
                       "        line = type(e).__name__\n"
                       "    fates[line] = fates.get(line, 0) + 1\n"
                       "print('refused while sending', refused)\n"
                       "for line in sorted(fates): print(line, fates[line])\n"
                       "print('took', round(time.monotonic() - start))\n";
  json run;
  long peak = peak_resident_kib_during(server.pid(), [&] {
    server.call(4, "execute_code", {{"session_id", session}, {"code", attack}, {"timeout", 120}});
    run = server.wait_for(4, std::chrono::seconds(180));
  });
  std::string out = run.is_object() && run.contains("result")
                        ? run["result"]["structuredContent"].value("stdout", "")
                        : run.dump();
  long grew_mib = (peak - before) / 1024;
  // Between calls, with the session idle: what the server still holds once the connections ended.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  long between = resident_kib(server.pid());
  std::cout << "held bodies: the server grew by " << grew_mib << " MiB (" << before << " KiB to "
            << peak << " KiB), and holds " << between << " KiB between calls\n"
            << out;
  EXPECT_LT((between - before) / 1024, 8) << out;
  // About 4 MiB of bodies, and the connections' own buffers and TLS state.
  EXPECT_LT(grew_mib, 16) << out;
  EXPECT_EQ(out.find("\nstill open"), std::string::npos) << out;
  EXPECT_NE(out.find("HTTP/1.1 408 Request Timeout"), std::string::npos) << out;
  // A handshake the client abandoned holds its TLS state no longer than a held body.
  EXPECT_NE(out.find("abandoned handshake closed within 45 s"), std::string::npos) << out;
  EXPECT_NE(out.find("HTTP/1.1 503 Service Unavailable"), std::string::npos) << out;
  // Nothing of a held body went anywhere.
  EXPECT_EQ(count_of(lab.received(), "POST /held"), 1u);
  // A clean end: the server removes its trust bundle's folder (a killed one cannot).
  server.close_input();
  EXPECT_EQ(server.wait_exit(std::chrono::seconds(60)), 0);
}

// Issue 49, item 13: Forwarded and X-Forwarded-Host would tell a secret's host of another host
// than itself, which servers build links and redirects from; they are dropped from intercepted
// requests (and pass as they are elsewhere: the proxy does not read opaque tunnels).
TEST(Brokered, ForwardedHeadersNeverReachTheSecretsHost) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  json result = lab.run(lab.raw_request("api.test", "api.test",
                                        "GET /forwarded HTTP/1.1\nHost: api.test:{PORT}\n"
                                        "Forwarded: host=evil.test;proto=https\n"
                                        "X-Forwarded-Host: evil.test\nX-Key: {TOKEN}\n\n"));
  EXPECT_EQ(result.value("stdout", ""), "HTTP/1.1 200 OK\n") << result.dump();
  std::string seen = request_for(lab.received(), "/forwarded");
  ASSERT_FALSE(seen.empty()) << lab.received();
  EXPECT_NE(seen.find(std::string("X-Key: ") + kValue), std::string::npos) << seen;
  EXPECT_EQ(seen.find("evil.test"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("orwarded:"), std::string::npos) << seen;
}

// Python that makes one TLS ClientHello for api.test (`host`) without a socket, as `hello`.
std::string client_hello(const std::string& host) {
  return "import ssl\n"
         "incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()\n"
         "maker = ssl.create_default_context().wrap_bio(incoming, outgoing, "
         "server_hostname='" +
         host +
         "')\n"
         "try:\n"
         "    maker.do_handshake()\n"
         "except ssl.SSLWantReadError:\n"
         "    pass\n"
         "hello = outgoing.read()\n";
}

// What docs/security.md says a sandbox can make the proxy hold, besides its held bodies
// (HeldBodiesAreBoundedPerSandboxAndEndAtTheirDeadline): 60 intercepted connections, each asking
// for a 4 MiB answer it never reads, so that every buffer on the way fills.
TEST(Brokered, ASandboxsInterceptedConnectionsStayWithinTheDocumentedMemory) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  WarmedBroker warmed = warmed_broker(lab);
  McpProcess& server = *warmed.server;
  const std::string& session = warmed.session;
  ASSERT_FALSE(session.empty());
  const std::string& connect = warmed.connect;
  long before = warmed.baseline_kib;
  std::string attack =
      connect +
      "held = []\n"
      "for i in range(60):\n"
      "    t = tunnel(); t.setblocking(False)\n"
      "    request = b'GET /big HTTP/1.1\\r\\nHost: localhost:%d\\r\\n\\r\\n' % port\n"
      "    try:\n"
      "        while request:\n"
      "            request = request[t.send(request[:16384]):]\n"
      "    except (BlockingIOError, ssl.SSLWantWriteError, ssl.SSLWantReadError):\n"
      "        pass\n"
      "    except (OSError, ssl.SSLError):\n"
      "        pass\n"
      "    held.append(t)\n"
      "time.sleep(5)\n"
      "print('held', len(held))\n";
  json run;
  long peak = peak_resident_kib_during(server.pid(), [&] {
    server.call(4, "execute_code", {{"session_id", session}, {"code", attack}, {"timeout", 120}});
    run = server.wait_for(4, std::chrono::seconds(180));
  });
  std::string out = run.is_object() && run.contains("result")
                        ? run["result"]["structuredContent"].value("stdout", "")
                        : run.dump();
  long grew_mib = (peak - before) / 1024;
  std::cout << "60 intercepted connections that never read: the server grew by " << grew_mib
            << " MiB (" << before << " KiB to " << peak << " KiB)\n"
            << out;
  EXPECT_EQ(out, "held 60\n") << run.dump();
  // Measured: 13 MiB (about 220 KiB a connection); docs/security.md says so.
  EXPECT_LT(grew_mib, 16);
  // A clean end: the server removes its trust bundle's folder (a killed one cannot).
  server.close_input();
  EXPECT_EQ(server.wait_exit(std::chrono::seconds(60)), 0);
}

// Issue 49, item 11: every intercepted tunnel costs the server a TLS handshake with the sandbox
// and another with the real host, on the server's CPU. A sandbox replaying one ClientHello made
// the server spend 6.9 CPU seconds to its own 1.6 in 15 s. New intercepted tunnels are now a
// token bucket's worth per sandbox: past it a CONNECT is answered 429 in one line, recorded.
TEST(Brokered, InterceptedHandshakesAreRateLimitedPerSandbox) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  json result = lab.run(client_hello("api.test") +
                        "import socket\n"
                        "answers, bodies = {}, set()\n"
                        "for i in range(120):\n"
                        "    s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
                        "    s.sendall(b'CONNECT api.test:" +
                        lab.port() +
                        " HTTP/1.1\\r\\n\\r\\n')\n"
                        "    a = s.recv(4096)\n"
                        "    status = a.split(b'\\r\\n')[0].decode()\n"
                        "    answers[status] = answers.get(status, 0) + 1\n"
                        "    if a.startswith(b'HTTP/1.1 200'):\n"
                        "        s.sendall(hello); s.recv(4096)\n"
                        "    else:\n"
                        "        bodies.add(a.split(b'\\r\\n\\r\\n', 1)[1].decode())\n"
                        "    s.close()\n"
                        "for status in sorted(answers): print(status, answers[status])\n"
                        "for body in bodies: print(body.count('\\n'), body, end='')\n");
  std::string out = result.value("stdout", "");
  std::cout << out;
  // The burst of 64 (a sandbox's connections) passes at once, and a few more as the bucket refills;
  // the rest are refused.
  EXPECT_NE(out.find("HTTP/1.1 200 Connection established"), std::string::npos) << out;
  EXPECT_NE(out.find("HTTP/1.1 429 Too Many Requests"), std::string::npos) << out;
  // One line, the same for every refusal.
  EXPECT_NE(out.find("\n1 paddock's proxy: this sandbox opens at most 10 TLS connections a second "
                     "to brokered secrets' hosts, which the proxy terminates (keep connections "
                     "alive, or open fewer at once)\n"),
            std::string::npos)
      << out;
  bool recorded = false;
  for (const auto& denied : result["network"].value("denied", json::array())) {
    recorded = recorded ||
               denied.value("reason", "").find("10 TLS connections a second") != std::string::npos;
  }
  EXPECT_TRUE(recorded) << result.dump();
  // After a pause the bucket has refilled: a normal request is served.
  json after = lab.run(
      "import os, urllib.request\n"
      "r = urllib.request.urlopen(urllib.request.Request('https://api.test:" +
      lab.port() + "/after', headers={'X-Key': os.environ['TOKEN']}), timeout=30)\n" +
      "print(r.status)\n");
  EXPECT_EQ(after.value("stdout", ""), "200\n") << after.dump();
}

// What a sandbox replaying ClientHellos to a secret's host for 10 s makes the server spend, next
// to what it spends itself (the figure docs/security.md gives).
TEST(Brokered, ReplayedClientHellosCostTheServerLessThanTheSandbox) {
  Lab lab;
  ASSERT_TRUE(lab.ready());
  auto started = brokered_server(lab);
  McpProcess& server = *started;
  std::string code = client_hello("localhost") +
                     "import socket, time\n"
                     "start, handshakes, refused = time.monotonic(), 0, 0\n"
                     "while time.monotonic() - start < 10:\n"
                     "    s = socket.create_connection(('127.0.0.1', 3128), timeout=30)\n"
                     "    s.sendall(b'CONNECT localhost:" +
                     lab.port() +
                     " HTTP/1.1\\r\\n\\r\\n')\n"
                     "    if s.recv(4096).startswith(b'HTTP/1.1 200'):\n"
                     "        s.sendall(hello); s.recv(4096); handshakes += 1\n"
                     "    else:\n"
                     "        refused += 1\n"
                     "    s.close()\n"
                     "print('handshakes', handshakes, 'refused', refused, 'cpu', "
                     "round(time.process_time(), 2))\n";
  double before = cpu_seconds(server.pid());
  server.call(2, "execute_code", {{"code", code}, {"timeout", 60}});
  json run = server.wait_for(2, std::chrono::seconds(120));
  double spent = cpu_seconds(server.pid()) - before;
  std::string out = run.is_object() && run.contains("result")
                        ? run["result"]["structuredContent"].value("stdout", "")
                        : run.dump();
  std::cout << "replayed ClientHellos: the server spent " << spent << " CPU seconds; " << out;
  auto at = out.find("cpu ");
  ASSERT_NE(at, std::string::npos) << out;
  double sandbox = std::stod(out.substr(at + 4));
  // Intercepted: the bucket's burst and its rate for 10 s (a second's slack), no more; the rest
  // were refused at their CONNECT. The server's share (the call's own setup and teardown
  // included) is below the sandbox's.
  auto handshakes = out.find("handshakes ");
  ASSERT_NE(handshakes, std::string::npos) << out;
  EXPECT_LE(std::stoi(out.substr(handshakes + 11)), 64 + 10 * 11) << out;
  EXPECT_LT(spent, sandbox) << out;
  // A clean end: the server removes its trust bundle's folder (a killed one cannot).
  server.close_input();
  EXPECT_EQ(server.wait_exit(std::chrono::seconds(60)), 0);
}

}  // namespace
}  // namespace paddock::testing::brokered_secrets_test
