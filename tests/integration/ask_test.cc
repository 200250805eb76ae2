// paddock mcp --ask (docs/ask.md), as a client with MCP elicitation sees it, with real sandboxes
// and a real listener on the host's loopback (opened with --allow-private, so that what decides
// is the person's answer alone): a destination the allowlist lacks is reached only when the
// person allows it, a refusal says why, a sandbox cannot flood the person with questions nor
// hold a thread of the server per connection, and a client that cannot ask is not asked.

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"
#include "support/helper_process.h"
#include "support/mcp_process.h"

namespace paddock::testing::ask_test {
namespace {

using json = nlohmann::json;

// Code that opens a tunnel through the sandbox's proxy to each of `targets` in turn and prints
// each answer's status line and body.
std::string tunnels(const std::vector<std::string>& targets) {
  std::string list;
  for (const auto& target : targets) list += "'" + target + "', ";
  return "import socket\n"
         "for target in (" +
         list +
         "):\n"
         "    s = socket.create_connection(('127.0.0.1', 3128), timeout=60)\n"
         "    s.sendall(('CONNECT ' + target + ' HTTP/1.1\\r\\n\\r\\n').encode())\n"
         "    answer = s.recv(4096).decode()\n"
         "    print(target, answer.split('\\r\\n')[0], answer.split('\\r\\n\\r\\n', "
         "1)[-1].strip())\n";
}

// A listener on the host's 127.0.0.1 for the sandbox to reach through its proxy (the host's
// loopback opened with --allow-private, so that a destination there is asked about).
class AskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = "/tmp/paddock-ask-listener-" + std::to_string(getpid()) + ".log";
    listener_ = std::make_unique<Server>(
        std::vector<std::string>{"/usr/bin/python3", "-c",
                                 "import socket, time\ns = socket.socket()\n"
                                 "s.bind(('127.0.0.1', 0))\ns.listen(64)\n"
                                 "print(s.getsockname()[1], flush=True)\ntime.sleep(300)"},
        log_);
    port_ = listener_->port();
    ASSERT_FALSE(port_.empty());
    target_ = "127.0.0.1:" + port_;
  }
  void TearDown() override {
    listener_.reset();
    std::filesystem::remove(log_);
  }

  // A server that asks about `what` (--ask), and a client of `version` that said it can ask its
  // user.
  static std::unique_ptr<McpProcess> asking_server(std::vector<std::string> more = {},
                                                   bool elicitation = true,
                                                   const std::string& what = "network",
                                                   const std::string& version = "2025-11-25") {
    std::vector<std::string> flags = {"--ask", what, "--allow-private", "127.0.0.0/8"};
    flags.insert(flags.end(), more.begin(), more.end());
    // Sessions end with the server, unless the case keeps them.
    if (std::find(more.begin(), more.end(), "--state-dir") == more.end()) {
      flags.insert(flags.end(), {"--state-dir", "none"});
    }
    auto server = std::make_unique<McpProcess>(flags);
    json capabilities = elicitation ? json{{"elicitation", json::object()}} : json::object();
    server->request(1, "initialize",
                    {{"protocolVersion", version},
                     {"capabilities", capabilities},
                     {"clientInfo", {{"name", "ask-test"}, {"version", "1"}}}});
    EXPECT_FALSE(server->wait_for(1).is_null());
    return server;
  }
  // Answers a question with `decision` ("once", "session", "deny").
  static void answer(McpProcess& server, const json& question, const std::string& decision) {
    server.send({{"jsonrpc", "2.0"},
                 {"id", question["id"]},
                 {"result", {{"action", "accept"}, {"content", {{"decision", decision}}}}}});
  }

  std::string log_;
  std::unique_ptr<Server> listener_;
  std::string port_;
  std::string target_;
};

TEST_F(AskTest, OnceLetsThatConnectionThroughAndTheNextIsAskedAgain) {
  auto server = asking_server();
  server->call(2, "execute_code", {{"code", tunnels({target_, target_})}});
  for (int asked = 0; asked < 2; ++asked) {
    json question = server->wait_for_request("elicitation/create");
    ASSERT_FALSE(question.is_null()) << "question " << asked + 1 << " never came";
    std::string message = question["params"]["message"];
    EXPECT_NE(message.find("wants to connect to " + target_ + " (its program)"), std::string::npos)
        << message;
    EXPECT_EQ(question["params"]["mode"], "form");
    answer(*server, question, "once");
  }
  json result = server->wait_for(2);
  const json& structured = result["result"]["structuredContent"];
  std::string out = structured["stdout"];
  EXPECT_EQ(out, target_ + " HTTP/1.1 200 Connection established \n" + target_ +
                     " HTTP/1.1 200 Connection established \n");
  ASSERT_TRUE(structured.contains("network")) << structured.dump();
  EXPECT_EQ(structured["network"]["allowed_by_user"],
            json::array({{{"host", "127.0.0.1"}, {"port", std::stoi(port_)}, {"scope", "once"}}}));
  EXPECT_NE(McpProcess::text_of(result).find("network: the user allowed " + target_ + " once"),
            std::string::npos);
}

TEST_F(AskTest, ADenialIsARefusalThatSaysSoAndIsNotAskedAgainInTheCall) {
  auto server = asking_server();
  server->call(2, "execute_code", {{"code", tunnels({target_, target_})}});
  json question = server->wait_for_request("elicitation/create");
  ASSERT_FALSE(question.is_null());
  answer(*server, question, "deny");
  json result = server->wait_for(2);
  std::string out = result["result"]["structuredContent"]["stdout"];
  EXPECT_NE(out.find(target_ + " HTTP/1.1 403 Forbidden paddock: " + target_ +
                     " is refused: the user denied it."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("the user denied it (asked once in this call)"), std::string::npos) << out;
  EXPECT_TRUE(server->wait_for_request("elicitation/create", std::chrono::seconds(0)).is_null());
}

// A lookup reaches the name's own DNS servers, a way out for whatever is written in the name:
// a name the allowlist lacks is asked about first, and looked up only if the person allows it.
// (Were it looked up first, a name that does not resolve would be refused with no question.)
TEST_F(AskTest, ANameIsAskedAboutBeforeItIsLookedUp) {
  auto server = asking_server();
  server->call(2, "execute_code", {{"code", tunnels({"secret-data.no-such-name.invalid:443"})}});
  json question = server->wait_for_request("elicitation/create");
  ASSERT_FALSE(question.is_null()) << "no question came before the lookup";
  std::string message = question["params"]["message"];
  EXPECT_NE(message.find("secret-data.no-such-name.invalid:443"), std::string::npos) << message;
  answer(*server, question, "deny");
  json result = server->wait_for(2);
  std::string out = result["result"]["structuredContent"]["stdout"];
  EXPECT_NE(out.find("403 Forbidden paddock: secret-data.no-such-name.invalid:443 is refused: the "
                     "user denied it"),
            std::string::npos)
      << out;
}

TEST_F(AskTest, AQuestionNobodyAnswersIsARefusalThatSaysNobodyAnswered) {
  auto server = asking_server({"--ask-timeout", "1"});
  server->call(2, "execute_code", {{"code", tunnels({target_})}});
  ASSERT_FALSE(server->wait_for_request("elicitation/create").is_null());
  json result = server->wait_for(2);
  std::string out = result["result"]["structuredContent"]["stdout"];
  EXPECT_NE(out.find("is refused: nobody answered within 1 s"), std::string::npos) << out;
}

TEST_F(AskTest, AClientWithoutElicitationIsNeverAsked) {
  auto server = asking_server({}, /*elicitation=*/false);
  server->call(2, "execute_code", {{"code", tunnels({target_})}});
  json result = server->wait_for(2);
  std::string out = result["result"]["structuredContent"]["stdout"];
  EXPECT_NE(out.find("HTTP/1.1 403 Forbidden"), std::string::npos) << out;
  EXPECT_NE(out.find("this client cannot ask the user"), std::string::npos) << out;
  for (const auto& message : server->received()) {
    EXPECT_NE(message.value("method", ""), "elicitation/create") << message.dump();
  }
}

// The number of threads of process `pid`.
std::size_t threads_of(pid_t pid) {
  std::size_t count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    (void)entry;
    ++count;
  }
  return count;
}

// A sandbox that tries a thousand destinations shows the person three questions, the rest are
// refused at once; and the connections held for an answer hold no thread of the server's.
TEST_F(AskTest, AThousandDestinationsShowThreeQuestionsAndHeldConnectionsHoldNoThread) {
  auto server = asking_server();
  // 20 connections to the same destination wait behind its one question; then 1,000 others, 16
  // at a time (within the sandbox's 64 connections through its proxy).
  std::string code =
      "import socket, threading\n"
      "def tunnel(target, answers):\n"
      "    s = socket.create_connection(('127.0.0.1', 3128), timeout=120)\n"
      "    s.sendall(('CONNECT ' + target + ' HTTP/1.1\\r\\n\\r\\n').encode())\n"
      "    answers.append(s.recv(4096).decode().split('\\r\\n')[0])\n"
      "held = []\n"
      "waiting = [threading.Thread(target=tunnel, args=('" +
      target_ +
      "', held)) for _ in range(20)]\n"
      "for t in waiting: t.start()\n"
      "others = []\n"
      "from concurrent.futures import ThreadPoolExecutor\n"
      "with ThreadPoolExecutor(16) as pool:\n"
      "    for port in range(1, 1001): pool.submit(tunnel, '127.0.0.2:%d' % port, others)\n"
      "print('others refused', sum(a.startswith('HTTP/1.1 403') for a in others))\n"
      "for t in waiting: t.join()\n"
      "print('held allowed', sum(a.startswith('HTTP/1.1 200') for a in held))\n";
  server->call(2, "execute_code", {{"code", code}, {"timeout", 120}});
  std::vector<json> questions;
  for (int i = 0; i < 3; ++i) {
    json question = server->wait_for_request("elicitation/create");
    ASSERT_FALSE(question.is_null())
        << "question " << i + 1 << ": "
        << server->wait_for(2, std::chrono::seconds(90)).dump().substr(0, 3000);
    questions.push_back(question);
  }
  std::size_t while_held = threads_of(server->pid());
  // Nothing more is asked however long the person takes.
  EXPECT_TRUE(server->wait_for_request("elicitation/create", std::chrono::seconds(5)).is_null());
  EXPECT_LE(threads_of(server->pid()), while_held + 2) << "held connections took threads";
  for (const auto& question : questions) {
    std::string message = question["params"]["message"];
    answer(*server, question, message.find(target_ + " ") != std::string::npos ? "once" : "deny");
  }
  json result = server->wait_for(2, std::chrono::seconds(150));
  std::string out = result["result"]["structuredContent"]["stdout"];
  EXPECT_NE(out.find("others refused 1000"), std::string::npos) << out;
  EXPECT_NE(out.find("held allowed 20"), std::string::npos) << out;
}

TEST_F(AskTest, AModernCallReturnsInputRequiredAndItsRetryGetsTheResult) {
  auto server = asking_server();
  json meta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
               {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", {{"form", {}}}}}}};
  json params = {
      {"name", "execute_code"}, {"arguments", {{"code", tunnels({target_})}}}, {"_meta", meta}};
  server->request(2, "tools/call", params);
  json first = server->wait_for(2);
  ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
  const json& requests = first["result"]["inputRequests"];
  ASSERT_EQ(requests.size(), 1u);
  std::string key = requests.begin().key();
  EXPECT_EQ(requests[key]["method"], "elicitation/create");
  params["requestState"] = first["result"]["requestState"];
  params["inputResponses"] = {{key, {{"action", "accept"}, {"content", {{"decision", "once"}}}}}};
  server->request(3, "tools/call", params);
  json done = server->wait_for(3);
  EXPECT_EQ(done["result"]["resultType"], "complete") << done.dump();
  std::string out = done["result"]["structuredContent"]["stdout"];
  EXPECT_NE(out.find("HTTP/1.1 200 Connection established"), std::string::npos) << out;
  // A state that names no waiting call is refused in one line.
  server->request(4, "tools/call", params);
  json stale = server->wait_for(4);
  EXPECT_EQ(stale["error"]["code"], -32602) << stale.dump();
}

// A retry that brings the answers and is then cancelled cancels the call it joined: its
// sandbox goes, and nothing answers the cancelled request.
TEST_F(AskTest, CancellingAModernRetryCancelsItsCall) {
  auto server = asking_server();
  std::string marker = "paddock-ask-cancel-" + std::to_string(getpid());
  json meta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
               {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", {{"form", {}}}}}}};
  std::string code = tunnels({target_}) +
                     "import os\nos.execvp('python3', ['python3', '-c', "
                     "'import time; time.sleep(120)', '" +
                     marker + "'])\n";
  json params = {{"name", "execute_code"}, {"arguments", {{"code", code}}}, {"_meta", meta}};
  server->request(2, "tools/call", params);
  json first = server->wait_for(2);
  ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
  std::string key = first["result"]["inputRequests"].begin().key();
  params["requestState"] = first["result"]["requestState"];
  params["inputResponses"] = {{key, {{"action", "accept"}, {"content", {{"decision", "once"}}}}}};
  server->request(3, "tools/call", params);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (processes_with(marker).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(processes_with(marker).empty()) << "the call never got past its question";
  server->send({{"jsonrpc", "2.0"},
                {"method", "notifications/cancelled"},
                {"params", {{"requestId", 3}, {"reason", "the user stopped it"}}}});
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!processes_with(marker).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(processes_with(marker).empty()) << "the cancelled call's sandbox still runs";
  EXPECT_TRUE(server->wait_for(3, std::chrono::seconds(2)).is_null());
  server->request(4, "ping");
  EXPECT_FALSE(server->wait_for(4).is_null());
}

TEST_F(AskTest, ExposePortUnderAskPreviewOpensOnlyWhatThePersonAllows) {
  auto server = asking_server({}, true, "preview", "2025-06-18");
  std::string session = server->open_session(2, {{"language", "python"}});
  ASSERT_FALSE(session.empty());
  for (const auto& [id, decision] : {std::pair{3, "deny"}, std::pair{4, "allow"}}) {
    server->call(id, "expose_port", {{"session_id", session}, {"port", 8000}});
    json question = server->wait_for_request("elicitation/create");
    ASSERT_FALSE(question.is_null());
    std::string message = question["params"]["message"];
    EXPECT_NE(message.find("Session " + session + " wants to open its port 8000"),
              std::string::npos)
        << message;
    // 2025-06-18 names its choices with enumNames.
    EXPECT_TRUE(
        question["params"]["requestedSchema"]["properties"]["decision"].contains("enumNames"));
    answer(*server, question, decision);
    json result = server->wait_for(id);
    if (std::string(decision) == "deny") {
      EXPECT_TRUE(McpProcess::is_tool_error(result));
      EXPECT_NE(McpProcess::text_of(result).find("port 8000 was not opened: the user denied it"),
                std::string::npos)
          << result.dump();
    } else {
      EXPECT_FALSE(McpProcess::is_tool_error(result)) << result.dump();
      EXPECT_NE(McpProcess::text_of(result).find("is open to the user at http://127.0.0.1:"),
                std::string::npos);
    }
  }
}

// "For this session" is kept with a kept session: after the server is killed and started again
// on its state directory, the session reaches the destination without a question, and the audit
// log says that the grant came back.
TEST_F(AskTest, ASessionsGrantComesBackWithTheKeptSessionAndTheAuditLogSaysSo) {
  std::string state = "/tmp/paddock-ask-state-" + std::to_string(getpid());
  std::string audit = state + ".audit.jsonl";
  std::vector<std::string> kept = {"--state-dir", state, "--audit-log", audit, "--warm", "0"};
  {
    auto server = asking_server(kept);
    std::string session = server->open_session(2, {{"language", "python"}, {"name", "kept"}});
    ASSERT_FALSE(session.empty());
    server->call(3, "execute_code", {{"session_id", "kept"}, {"code", tunnels({target_})}});
    json question = server->wait_for_request("elicitation/create");
    ASSERT_FALSE(question.is_null());
    answer(*server, question, "session");
    json result = server->wait_for(3);
    EXPECT_EQ(result["result"]["structuredContent"].value("stdout", ""),
              target_ + " HTTP/1.1 200 Connection established \n");
  }
  auto again = asking_server(kept);
  again->call(2, "execute_code", {{"session_id", "kept"}, {"code", tunnels({target_})}});
  json result = again->wait_for(2);
  EXPECT_EQ(result["result"]["structuredContent"].value("stdout", ""),
            target_ + " HTTP/1.1 200 Connection established \n")
      << result.dump();
  EXPECT_TRUE(again->wait_for_request("elicitation/create", std::chrono::seconds(0)).is_null());
  std::ifstream lines(audit);
  std::vector<std::string> answers;
  for (std::string line; std::getline(lines, line);) {
    json record = json::parse(line, nullptr, false);
    if (record.value("tool", "") == "ask") answers.push_back(record.value("answer", ""));
  }
  EXPECT_EQ(answers, (std::vector<std::string>{"session", "restored"}));
  again.reset();
  std::filesystem::remove_all(state);
  std::filesystem::remove(audit);
}

// A preview's question counts among the server's open questions: with three of the network's
// open, expose_port is refused at once, and a preview question's wait ends with its call.
TEST_F(AskTest, PreviewQuestionsCountAmongTheOpenOnesAndEndWithTheirCall) {
  auto server = asking_server({}, true, "network,preview");
  std::string session = server->open_session(2, {{"language", "python"}});
  ASSERT_FALSE(session.empty());
  std::string code =
      "import socket, threading\n"
      "def tunnel(target):\n"
      "    s = socket.create_connection(('127.0.0.1', 3128), timeout=60)\n"
      "    s.sendall(('CONNECT ' + target + ' HTTP/1.1\\r\\n\\r\\n').encode())\n"
      "    s.recv(4096)\n"
      "threads = [threading.Thread(target=tunnel, args=(t,)) for t in\n"
      "           ('127.0.0.2:1', '127.0.0.3:1', '127.0.0.4:1')]\n"
      "for t in threads: t.start()\n"
      "for t in threads: t.join()\n";
  server->call(3, "execute_code", {{"code", code}});
  std::vector<json> questions;
  for (int n = 0; n < 3; ++n) {
    questions.push_back(server->wait_for_request("elicitation/create"));
    ASSERT_FALSE(questions.back().is_null()) << "network question " << n + 1;
  }
  server->call(4, "expose_port", {{"session_id", session}, {"port", 8000}});
  json refused = server->wait_for(4, std::chrono::seconds(10));
  EXPECT_TRUE(McpProcess::is_tool_error(refused)) << refused.dump();
  EXPECT_NE(McpProcess::text_of(refused).find(
                "port 8000 was not opened: 3 questions to the user are open already"),
            std::string::npos)
      << refused.dump();
  EXPECT_TRUE(server->wait_for_request("elicitation/create", std::chrono::seconds(0)).is_null());
  for (const auto& question : questions) answer(*server, question, "deny");
  ASSERT_FALSE(server->wait_for(3).is_null());

  // Now asked; cancelling the call ends its wait, and the session is free for the next call.
  server->call(5, "expose_port", {{"session_id", session}, {"port", 8001}});
  ASSERT_FALSE(server->wait_for_request("elicitation/create").is_null());
  server->send(
      {{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 5}}}});
  auto asked = std::chrono::steady_clock::now();
  server->call(6, "get_session", {{"session_id", session}});
  json state = server->wait_for(6, std::chrono::seconds(10));
  EXPECT_FALSE(McpProcess::is_tool_error(state)) << state.dump();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(5));
  EXPECT_TRUE(server->wait_for(5, std::chrono::seconds(1)).is_null())
      << "a cancelled call is answered";
}

// Two retries of one 2026-07-28 call at once: the earlier gets an error at once instead of
// waiting forever, and the later gets the call's result.
TEST_F(AskTest, ASecondModernRetryTakesOverAndTheFirstIsAnsweredWithAnError) {
  auto server = asking_server();
  json meta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
               {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", {{"form", {}}}}}}};
  json params = {{"name", "execute_code"},
                 {"arguments", {{"code", tunnels({target_, "127.0.0.2:1"})}}},
                 {"_meta", meta}};
  server->request(2, "tools/call", params);
  json first = server->wait_for(2);
  ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
  std::string key = first["result"]["inputRequests"].begin().key();
  params["requestState"] = first["result"]["requestState"];
  // A retry that answers nothing waits; a second one takes its place.
  params["inputResponses"] = json::object();
  server->request(3, "tools/call", params);
  params["inputResponses"] = {{key, {{"action", "accept"}, {"content", {{"decision", "once"}}}}}};
  server->request(4, "tools/call", params);
  json superseded = server->wait_for(3, std::chrono::seconds(10));
  EXPECT_EQ(superseded["error"]["code"], -32600) << superseded.dump();
  EXPECT_NE(superseded.dump().find("a later retry of this call"), std::string::npos);
  // The second destination's question goes to the retry now owed, which answers it.
  json next = server->wait_for(4);
  ASSERT_EQ(next["result"]["resultType"], "input_required") << next.dump();
  std::string second = next["result"]["inputRequests"].begin().key();
  params["inputResponses"] = {{second, {{"action", "decline"}}}};
  server->request(5, "tools/call", params);
  json done = server->wait_for(5);
  EXPECT_EQ(done["result"]["resultType"], "complete") << done.dump();
}

}  // namespace
}  // namespace paddock::testing::ask_test
