// Warm interpreters (runtime/warm_interpreter.h), through a real `paddock mcp`: a fresh python
// call taken by an interpreter started before it, preloaded or not, behaves as one started for
// it (the same probe prints the same warm and cold), a call that sets a start-up variable runs
// cold with it in effect, a waiting interpreter holds no secret, and calls at once each get one.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "language/policy_store.h"
#include "language/spec_builder.h"
#include "language/warm_spec.h"
#include "runtime/native/native_backend.h"
#include "runtime/warm_run.h"
#include "support/harness.h"
#include "support/warm_server.h"

namespace paddock::testing::warm_interpreter_test {
namespace {

using json = nlohmann::json;

// The default preload of the python policy: what a model's data calls find loaded.
const std::vector<std::string> kDataPreload = {
    "--preload", "python=numpy,pandas,matplotlib.pyplot,sklearn.linear_model"};

// Prints everything the issue lists that a program could tell a warm interpreter by, besides
// what is imported and how long things take. Reads its stdin, leaves an atexit handler and an
// unclosed file (which python's exit flushes), and ends with an uncaught exception.
const char* kProbe = R"PROBE(import atexit, os, resource, signal, sys
import __main__
lines = []
def say(*parts):
    lines.append(" ".join(str(part) for part in parts))
say("name", __name__, "file", __file__, "doc", __doc__, "spec", __spec__)
hidden = {"atexit", "os", "resource", "signal", "sys", "__main__", "lines", "say"}
say("main", sorted((k, type(v).__name__) for k, v in vars(__main__).items() if k not in hidden))
say("argv", sys.argv, sys.orig_argv, open("/proc/self/cmdline", "rb").read())
say("path", sys.path, sys.executable, sys.flags)
say("cwd", os.getcwd(), oct(os.umask(0o22)), os.getuid(), os.getgid(), os.getgroups())
say("env", sorted(os.environ.items()))
say("stdin", repr(sys.stdin.read()), sys.stdin.seekable(), sys.stdin.encoding, sys.stdin.errors)
for stream in (sys.stdout, sys.stderr):
    say("stream", stream.encoding, stream.errors, stream.line_buffering, stream.write_through,
        stream.isatty(), type(stream.buffer).__name__)
say("signals", [(int(n), str(signal.getsignal(n))) for n in signal.valid_signals()
                 if n not in (signal.SIGKILL, signal.SIGSTOP)])
say("blocked", sorted(int(n) for n in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
say("limits", [(n, resource.getrlimit(getattr(resource, n))) for n in sorted(dir(resource))
               if n.startswith("RLIMIT_")])
say("fds", sorted(os.listdir("/proc/self/fd")))
say("exc", sys.exc_info())
print("\n".join(lines))
os.makedirs("outputs", exist_ok=True)
unclosed = open("outputs/unclosed.txt", "w")
unclosed.write("flushed at exit\n")
atexit.register(print, "atexit ran")
def fails():
    raise ValueError("probe failed on purpose")
fails()
)PROBE";

// What a result shows that a warm and a cold run must agree on.
json comparable(const json& result) {
  json shown = {{"stdout", result.value("stdout", "")},
                {"stderr", result.value("stderr", "")},
                {"exit_code", result.value("exit_code", -1)},
                {"phase", result.value("phase", "")},
                {"timed_out", result.value("timed_out", false)}};
  for (const auto& artifact : result.value("artifacts", json::array())) {
    shown["artifacts"].push_back(
        {artifact.value("path", ""), artifact.value("size", 0), artifact.value("mime_type", "")});
  }
  return shown;
}

json with_data_import(const std::string& code) {
  return {{"code", "import numpy\n" + code}};
}

// The same calls to a server whose interpreters wait (`preload`), and to one that starts each
// call's: every result alike, and every warm call warm.
void expect_alike_warm_and_cold(const std::vector<std::string>& preload,
                                const std::vector<json>& calls) {
  std::vector<std::string> flags = {"--warm", "1"};
  flags.insert(flags.end(), preload.begin(), preload.end());
  WarmServer warm(flags);
  WarmServer cold({"--warm", "0"});
  std::vector<bool> expected(calls.size(), true);
  if (!preload.empty()) {
    // The first call that imports a data library runs cold, and has the pool keep a preloaded
    // interpreter from then on.
    warm.run(with_data_import("pass"));
    expected.insert(expected.begin(), false);
  }
  for (const json& call : calls) {
    settled_interpreters(warm.pid(), preload.empty() ? 1 : 2);
    json from_warm = warm.run(call, true);
    json from_cold = cold.run(call, true);
    EXPECT_EQ(comparable(from_warm).dump(1), comparable(from_cold).dump(1))
        << "code:\n"
        << call.value("code", "");
  }
  EXPECT_EQ(warm.warm_runs(), expected);
}

TEST(WarmInterpreter, CodeCannotTellAPlainOneFromANewProcess) {
  expect_alike_warm_and_cold(
      {}, {{{"code", kProbe}, {"stdin", "the call's stdin\n"}}, {{"code", kProbe}}});
}

TEST(WarmInterpreter, CodeCannotTellAPreloadedOneFromANewProcess) {
  json call = with_data_import(kProbe);
  call["stdin"] = "the call's stdin\n";
  expect_alike_warm_and_cold(kDataPreload, {call});
}

// A call that brings its own numpy (a package in the script's folder, first on sys.path) would
// import that one in a cold run: the preloaded interpreter, which holds the system's, ends
// before it takes the call, and the call runs cold.
TEST(WarmInterpreter, AModuleTheCallBringsIsTheOneItImports) {
  WarmServer warm({"--warm", "1", kDataPreload[0], kDataPreload[1]});
  WarmServer cold({"--warm", "0"});
  warm.run(with_data_import("pass"));
  settled_interpreters(warm.pid(), 2);
  json call = with_data_import("print(numpy.__file__, numpy.__version__)");
  call["files"] = json::array(
      {{{"path", "numpy/__init__.py"},
        {"content", "print('the call brought this numpy')\n__version__ = 'its own'\n"}}});
  json from_warm = warm.run(call, true);
  json from_cold = cold.run(call, true);
  EXPECT_EQ(from_cold.value("stdout", ""),
            "the call brought this numpy\n/work/numpy/__init__.py its own\n");
  EXPECT_EQ(comparable(from_warm).dump(1), comparable(from_cold).dump(1));
  EXPECT_EQ(warm.warm_runs(), (std::vector<bool>{false, false}));
}

// How a program ends, as python ends it: exit statuses and messages, uncaught exceptions (their
// traceback without the loader's frames), a syntax error, an interrupt, a killed process, a
// timeout, the output cap, and a figure.
TEST(WarmInterpreter, EveryWayOfEndingIsANewProcesss) {
  std::vector<json> calls = {
      {{"code", "print('ok')"}},
      {{"code", "import sys\nprint('out')\nsys.exit(3)"}},
      {{"code", "import sys\nsys.exit('a message to stderr')"}},
      {{"code", "raise SystemExit(None)"}},
      {{"code", "def f():\n    return 1 / 0\nf()"}},
      {{"code", "print('before'\n"}},
      {{"code", "raise KeyboardInterrupt"}},
      {{"code", "import os, signal\nprint('x', flush=True)\nos.kill(os.getpid(), signal.SIGTERM)"}},
      {{"code", "import os\nos._exit(7)"}},
      {{"code",
        "import threading, time\n"
        "def late():\n    time.sleep(0.3)\n    print('thread done')\n"
        "threading.Thread(target=late).start()\nprint('main done')"}},
      {{"code",
        "class Noisy:\n    def __del__(self):\n        print('finalized')\n"
        "kept = Noisy()\nprint('end')"}},
      {{"code", "import time\ntime.sleep(5)"}, {"timeout", 1}},
      {{"code", "print('y' * 3000000)"}},
  };
  expect_alike_warm_and_cold({}, calls);
  std::vector<json> data_calls;
  for (const json& call : calls) {
    json data_call = call;
    data_call["code"] = "import numpy\n" + call.value("code", "");
    data_calls.push_back(data_call);
  }
  data_calls.push_back(with_data_import(
      "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.savefig('outputs/a.png')\n"
      "plt.figure()\nplt.plot([3, 1])\nplt.show()\nprint('plotted')"));
  expect_alike_warm_and_cold(kDataPreload, data_calls);
}

// A call whose environment gives a start-up variable another value than the interpreter started
// with (here the server passes its own PYTHONPATH through) runs cold, with the variable in
// effect; the waiting interpreter is left for the calls that fit it.
TEST(WarmInterpreter, ACallThatSetsAStartupVariableRunsColdWithItInEffect) {
  setenv("PYTHONPATH", "/work/lib", 1);
  WarmServer server({"--warm", "1", "--pass-through-env", "PYTHONPATH"});
  unsetenv("PYTHONPATH");
  settled_interpreters(server.pid(), 1);
  json result =
      server.run({{"code",
                   "import os, sys\nos.makedirs('lib', exist_ok=True)\n"
                   "print('/work/lib' in sys.path, os.environ['PYTHONPATH'] == '/work/lib')"}});
  EXPECT_EQ(result.value("stdout", ""), "True True\n") << result.dump();
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{false}));
}

// A waiting interpreter that preloaded the data libraries holds none of the server's
// pass-through secret, in its command line, environment or (as root) memory; the call gets it.
TEST(WarmInterpreter, APreloadedOneHoldsNoSecretWhileItWaits) {
  std::string secret = random_text("preload-secret-");
  setenv("WARM_INTERPRETER_SECRET", secret.c_str(), 1);
  std::vector<std::string> flags = {"--warm", "1", "--pass-through-env", "WARM_INTERPRETER_SECRET"};
  flags.insert(flags.end(), kDataPreload.begin(), kDataPreload.end());
  WarmServer server(flags);
  unsetenv("WARM_INTERPRETER_SECRET");
  server.run(with_data_import("pass"));  // cold: the pool keeps a preloaded one from now on
  settled_interpreters(server.pid(), 2);
  json result = server.run(with_data_import(
      "import os\nprint(os.environ['WARM_INTERPRETER_SECRET'] == '" + secret + "')"));
  EXPECT_EQ(result.value("stdout", ""), "True\n") << result.dump();
  std::size_t interpreters = 0;
  for (pid_t sandbox : settled_interpreters(server.pid(), 2)) {
    for (pid_t pid : process_tree(sandbox)) {
      std::string state = readable_state(pid);
      if (state.starts_with("python3")) ++interpreters;
      EXPECT_EQ(state.find(secret), std::string::npos) << "process " << pid << " holds it";
    }
  }
  if (geteuid() == 0) {
    EXPECT_EQ(interpreters, 2u) << "the plain and the preloaded interpreter";
  }
  EXPECT_EQ(server.warm_runs(), (std::vector<bool>{false, true}));
}

// With --warm 8, eight calls at once all run warm, each in its own interpreter; the pool then
// refills, one of the refilled sandboxes is killed while it waits, and the next eight still all
// get answers (the dead one's call cold).
TEST(WarmInterpreter, EightCallsAtOnceEachTakeTheirOwn) {
  WarmServer server({"--warm", "8"});
  McpProcess& mcp = server.mcp();
  for (int round = 0; round < 2; ++round) {
    std::vector<pid_t> waiting = settled_interpreters(server.pid(), 8);
    if (round == 1 && !waiting.empty()) kill(waiting.front(), SIGKILL);
    for (int id = 1; id <= 8; ++id) {
      mcp.call(100 * round + id, "execute_code",
               {{"code", "import os, time\nopen('mine-" + std::to_string(id) +
                             "', 'w').close()\ntime.sleep(0.3)\n"
                             "print(sorted(f for f in os.listdir('.') if f.startswith('mine')))"}});
    }
    for (int id = 1; id <= 8; ++id) {
      json answer = mcp.wait_for(100 * round + id);
      ASSERT_TRUE(answer["result"].contains("structuredContent")) << answer.dump();
      EXPECT_EQ(answer["result"]["structuredContent"].value("stdout", ""),
                "['mine-" + std::to_string(id) + "']\n")
          << answer.dump();
    }
  }
  std::vector<bool> runs = server.warm_runs();
  ASSERT_EQ(runs.size(), 16u);
  EXPECT_EQ(std::count(runs.begin(), runs.begin() + 8, true), 8);
  EXPECT_EQ(std::count(runs.begin() + 8, runs.end(), true), 7);
}

// What the interpreter spent starting and importing its preload list (a second or more of CPU
// for pandas and scikit-learn) is not the call's: a print(1) that took it reports next to none.
// Through the runtime itself, where the result's CPU time is seen.
TEST(WarmInterpreter, ThePreloadsCpuTimeIsNotTheCalls) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store) << store.error().message;
  const language::LanguagePolicy& python = **store->find("python");
  language::CodeCall call;
  call.code = "print(1)";
  auto built = language::build_language_spec(python, call, language::SpecOverrides{},
                                             language::ImageSource{});
  auto empty = language::build_language_spec(python, language::CodeCall{},
                                             language::SpecOverrides{}, language::ImageSource{});
  ASSERT_TRUE(built && empty);
  built->shape.session_networking = false;
  auto interpreter = language::warm_interpreter(python, built->shape, empty->plan,
                                                {"numpy", "pandas", "sklearn.linear_model"});
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(runtime::fits(*interpreter, built->plan));
  native::NativeBackend backend;
  auto sandbox = runtime::open_warm(backend, built->shape, interpreter);
  ASSERT_TRUE(sandbox) << sandbox.error().message;
  RecordingObserver observer;
  auto result = runtime::run_warm(**sandbox, built->plan, observer);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stdout_data.data, "1\n");
  EXPECT_LT(result->cpu_ms, 400) << "the preload's CPU time was counted as the call's";
}

}  // namespace
}  // namespace paddock::testing::warm_interpreter_test
