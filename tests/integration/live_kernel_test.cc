// Live sessions: a real Jupyter kernel (Debian's ipykernel) inside a native session's sandbox,
// driven through LiveKernel. State survives between cells; the kernel is under the sandbox's
// seccomp filter, capabilities and limits; its connection key is out of reach of the cells;
// nothing a cell starts outlives the cell; a kernel that dies or hangs is replaced; and while a
// command of the session has a network, the kernel is stopped.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "language/policy_store.h"
#include "language/spec_builder.h"
#include "runtime/live_kernel.h"
#include "runtime/native/native_backend.h"
#include "support/harness.h"

namespace paddock::testing::live_kernel_test {
namespace {

class LiveKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto policies = language::PolicyStore::load({});
    ASSERT_TRUE(policies) << policies.error().message;
    auto python = policies->find("python");
    ASSERT_TRUE(python);
    policy_ = **python;
    auto built = language::build_session_spec(policy_, {}, {});
    ASSERT_TRUE(built) << built.error().message;
    auto opened = backend_.open_session(built->shape, built->plan);
    ASSERT_TRUE(opened) << opened.error().message;
    session_ = std::move(*opened);
    auto started = runtime::LiveKernel::start(*session_, policy_.kernel, 120);
    ASSERT_TRUE(started) << started.error().message;
    kernel_ = std::move(*started);
  }

  runtime::RunResult cell(const std::string& code, double timeout = 30) {
    RecordingObserver observer;
    runtime::CellRequest request;
    request.code = code;
    request.timeout_seconds = timeout;
    auto result = kernel_->execute(request, observer);
    EXPECT_TRUE(result) << (result ? "" : result.error().message);
    if (!result) return {};
    EXPECT_TRUE(result->cell.has_value());
    return *result;
  }

  std::string error_of(const runtime::RunResult& result) {
    return result.cell && result.cell->error
               ? result.cell->error->name + ": " + result.cell->error->value
               : std::string("no error");
  }

  language::LanguagePolicy policy_;
  native::NativeBackend backend_;
  std::unique_ptr<runtime::Session> session_;
  std::unique_ptr<runtime::LiveKernel> kernel_;
};

TEST_F(LiveKernelTest, VariablesAndTheLastValueSurviveBetweenCells) {
  runtime::RunResult set = cell("x = 41\ndef twice(v):\n    return 2 * v\n");
  EXPECT_EQ(set.exit_code, 0) << error_of(set);
  runtime::RunResult used = cell("print(x + 1)\ntwice(x)");
  EXPECT_EQ(used.stdout_data.data, "42\n") << error_of(used);
  EXPECT_EQ(used.cell->result_text, "82");
  EXPECT_TRUE(used.cell->state_lost.empty());
  EXPECT_EQ(kernel_->status().cells, 2);
}

TEST_F(LiveKernelTest, AnErrorIsACellResultWithItsTraceback) {
  runtime::RunResult failed = cell("undefined_name + 1");
  EXPECT_EQ(failed.outcome, runtime::Outcome::kExited);
  EXPECT_EQ(failed.exit_code, 1);
  ASSERT_TRUE(failed.cell->error);
  EXPECT_EQ(failed.cell->error->name, "NameError");
  ASSERT_FALSE(failed.cell->error->traceback.empty());
  for (const auto& line : failed.cell->error->traceback) {
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << "ANSI codes left in: " << line;
  }
}

// The kernel is the sandbox's program: the same filter, no capabilities, no new privileges, and
// the session's file size limit.
TEST_F(LiveKernelTest, TheKernelRunsUnderTheSandboxsSeccompCapabilitiesAndLimits) {
  runtime::RunResult status = cell(
      "import resource\n"
      "print(''.join(l for l in open('/proc/self/status') if l.split(':')[0] in "
      "('Seccomp', 'NoNewPrivs', 'CapEff', 'CapBnd')), end='')\n"
      "print('fsize', resource.getrlimit(resource.RLIMIT_FSIZE)[0])\n"
      "import socket\n"
      "try:\n"
      "    socket.create_connection(('1.1.1.1', 53), timeout=2); print('network: yes')\n"
      "except OSError as e:\n"
      "    print('network: no')\n");
  const std::string& out = status.stdout_data.data;
  EXPECT_NE(out.find("Seccomp:\t2"), std::string::npos) << out;
  EXPECT_NE(out.find("NoNewPrivs:\t1"), std::string::npos) << out;
  EXPECT_NE(out.find("CapEff:\t0000000000000000"), std::string::npos) << out;
  EXPECT_NE(out.find("CapBnd:\t0000000000000000"), std::string::npos) << out;
  ASSERT_TRUE(policy_.limits.file_size_bytes);
  EXPECT_NE(out.find("fsize " + std::to_string(*policy_.limits.file_size_bytes)), std::string::npos)
      << out;
  EXPECT_NE(out.find("network: no"), std::string::npos) << out;
}

// The connection key is in the kernel's memory (where the cell runs, unavoidably), but nowhere a
// process of the sandbox could read it from: no file under /tmp or /work, no environment, and
// not the bridge's memory or environment (it is not dumpable).
TEST_F(LiveKernelTest, TheConnectionKeyIsInNoFileNoEnvironmentAndNotInTheBridge) {
  runtime::RunResult looked = cell(
      "import os\n"
      "key = get_ipython().kernel.session.key\n"
      "assert len(key) >= 16, key\n"
      "found = []\n"
      "for top in ('/tmp', '/work'):\n"
      "    for root, dirs, files in os.walk(top):\n"
      "        for name in files:\n"
      "            try:\n"
      "                if key in open(os.path.join(root, name), 'rb').read(): "
      "found.append(os.path.join(root, name))\n"
      "            except OSError:\n"
      "                pass\n"
      "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
      "    for what in ('environ', 'cmdline'):\n"
      "        try:\n"
      "            if key in open('/proc/%s/%s' % (pid, what), 'rb').read(): "
      "found.append(pid + ' ' + what)\n"
      "        except OSError:\n"
      "            pass\n"
      "bridge = os.getppid()\n"
      "for what in ('mem', 'environ'):\n"
      "    try:\n"
      "        open('/proc/%d/%s' % (bridge, what), 'rb').read(1)\n"
      "        found.append('bridge ' + what + ' readable')\n"
      "    except OSError:\n"
      "        pass\n"
      "print(found)\n");
  EXPECT_EQ(looked.stdout_data.data, "[]\n") << error_of(looked) << looked.stderr_data.data;
}

TEST_F(LiveKernelTest, NothingACellStartsOutlivesTheCell) {
  runtime::RunResult started = cell(
      "import subprocess\n"
      "child = subprocess.Popen(['sleep', '100'])\n"
      "subprocess.run(['sh', '-c', 'sleep 100 >/dev/null 2>&1 & echo $! > /tmp/orphan'])\n"
      "print('started')\n");
  ASSERT_EQ(started.stdout_data.data, "started\n") << error_of(started);
  runtime::RunResult after = cell(
      "import os\n"
      "orphan = int(open('/tmp/orphan').read())\n"
      "print(child.wait(timeout=5), os.path.exists('/proc/%d' % orphan), os.getpid() > 0)\n");
  EXPECT_EQ(after.stdout_data.data, "-9 False True\n") << error_of(after);
}

TEST_F(LiveKernelTest, ACellPastItsTimeoutIsInterruptedAndTheStateIsKept) {
  cell("x = 5");
  auto started = std::chrono::steady_clock::now();
  runtime::RunResult slow = cell("while True:\n    pass\n", 1);
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(slow.outcome, runtime::Outcome::kTimedOut);
  EXPECT_TRUE(slow.cell->state_lost.empty()) << slow.cell->state_lost;
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_EQ(cell("print(x)").stdout_data.data, "5\n");
}

// Under a flood of output the kernel's iopub socket drops what its reader cannot take yet, and
// the cell's idle status can go with it: a cell whose reply has come is not held until its
// timeout waiting for an idle status that will never come. Here the cell stops the kernel
// sending status at all, the way the high-water mark drops it.
TEST_F(LiveKernelTest, ACellWhoseIdleStatusIsDroppedEndsWithItsReply) {
  runtime::RunResult quiet = cell(
      "get_ipython().kernel._publish_status = lambda *args, **kwargs: None\nprint('quiet')\n", 120);
  EXPECT_EQ(quiet.outcome, runtime::Outcome::kExited) << error_of(quiet);
  EXPECT_EQ(quiet.stdout_data.data, "quiet\n");
  runtime::RunResult next = cell("print('next')", 120);
  EXPECT_EQ(next.outcome, runtime::Outcome::kExited) << error_of(next);
  EXPECT_EQ(next.stdout_data.data, "next\n");
}

// SIGINT ignored: the kernel does not come back within the grace, so it is replaced.
TEST_F(LiveKernelTest, ACellThatIgnoresTheInterruptLosesTheStateAndTheNextCellWorks) {
  cell("x = 5\nopen('kept.txt', 'w').write('kept')");
  runtime::RunResult stuck = cell(
      "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
      "while True:\n    time.sleep(0.01)\n",
      1);
  EXPECT_EQ(stuck.outcome, runtime::Outcome::kTimedOut);
  EXPECT_FALSE(stuck.cell->state_lost.empty());
  runtime::RunResult next = cell("print(open('kept.txt').read())\nprint('x' in dir())");
  EXPECT_EQ(next.stdout_data.data, "kept\nFalse\n") << error_of(next);
  EXPECT_EQ(kernel_->status().restarts, 1);
}

TEST_F(LiveKernelTest, AKernelThatDiesIsReplacedAndSaysWhy) {
  cell("x = 5\nopen('kept.txt', 'w').write('kept')");
  runtime::RunResult died = cell("import os\nos._exit(3)");
  EXPECT_NE(died.cell->state_lost.find("exited with code 3"), std::string::npos)
      << died.cell->state_lost;
  runtime::RunResult next = cell("print(open('kept.txt').read())\nprint('x' in dir())");
  EXPECT_EQ(next.stdout_data.data, "kept\nFalse\n") << error_of(next);
  runtime::RunResult killed = cell("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)");
  EXPECT_NE(killed.cell->state_lost.find("SIGSEGV"), std::string::npos) << killed.cell->state_lost;
  EXPECT_EQ(cell("print(1)").stdout_data.data, "1\n");
}

// The bridge itself killed from a cell: paddock starts a new one.
TEST_F(LiveKernelTest, ABridgeKilledFromACellIsReplaced) {
  runtime::RunResult killed = cell(
      "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
      "import time\ntime.sleep(5)");
  EXPECT_FALSE(killed.cell->state_lost.empty());
  EXPECT_EQ(cell("print(2)").stdout_data.data, "2\n");
}

// The attack: a thread the kernel keeps starts a process after the cell's sweep, which could
// use an installer's network or continue the stopped kernel. Before the network comes, the
// sandbox is swept again and everything left is stopped.
TEST_F(LiveKernelTest, NothingOfTheInterpreterRunsWhileACommandHasANetwork) {
  runtime::RunResult planted = cell(
      "import threading, subprocess, time\n"
      "def late():\n"
      "    time.sleep(0.5)\n"
      "    subprocess.Popen(['sleep', '100'])\n"
      "threading.Thread(target=late, daemon=True).start()\n");
  ASSERT_EQ(planted.exit_code, 0) << error_of(planted);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  runtime::ExecRequest look;
  look.argv = {"python3", "-c",
               "import os\n"
               "me = os.getpid()\n"
               "for p in sorted(os.listdir('/proc')):\n"
               "    if not p.isdigit() or int(p) in (1, me): continue\n"
               "    s = open('/proc/%s/stat' % p).read()\n"
               "    name, state = s[s.index('(') + 1:s.rindex(')')], s[s.rindex(')') + 2]\n"
               "    if state not in 'TZ': print(p, name, state)\n"};
  look.network = true;
  look.wall_seconds = 30;
  RecordingObserver observer;
  auto looked = session_->exec(look, observer);
  ASSERT_TRUE(looked) << looked.error().message;
  EXPECT_EQ(looked->stdout_data.data, "") << "running beside the networked command";
  EXPECT_EQ(looked->exit_code, 0) << looked->stderr_data.data;
  EXPECT_EQ(cell("print('thawed')").stdout_data.data, "thawed\n");
}

// clone(CLONE_PARENT) would make a sibling of the kernel, a child of its bridge, which every
// sweep spares: the filter refuses it.
TEST_F(LiveKernelTest, ACellCannotMakeASiblingOfTheKernel) {
  runtime::RunResult tried = cell(
      "import ctypes\n"
      "libc = ctypes.CDLL(None, use_errno=True)\n"
      "pid = libc.syscall(56, 0x8000 | 17, 0, 0, 0, 0)\n"
      "if pid == 0:\n"
      "    libc._exit(0)\n"
      "print(pid, ctypes.get_errno())\n");
  EXPECT_EQ(tried.stdout_data.data, "-1 1\n") << error_of(tried);
}

// IPython's profile is the kernel's own: a startup file a cell leaves in /tmp does not run in
// the fresh interpreter of a restart.
TEST_F(LiveKernelTest, ARestartedInterpreterRunsNothingACellPlanted) {
  runtime::RunResult planted = cell(
      "import os, glob\n"
      "for d in ['/tmp/.ipython'] + glob.glob('/tmp/paddock-kernel-*/ipython'):\n"
      "    os.makedirs(d + '/profile_default/startup', exist_ok=True)\n"
      "    open(d + '/profile_default/startup/00-planted.py', 'w').write('PLANTED = 1')\n"
      "print(os.environ['IPYTHONDIR'].startswith('/tmp/paddock-kernel-'))\n");
  EXPECT_EQ(planted.stdout_data.data, "True\n") << error_of(planted);
  ASSERT_TRUE(kernel_->restart());
  EXPECT_EQ(cell("print('PLANTED' in dir())").stdout_data.data, "False\n");
}

// The attack: a thread the kernel keeps forks, after the cell's sweep, a daemon in a session of
// its own, which outlives the kernel's process group. It waits for the next kernel's private
// directory and plants an IPython startup file there before that kernel reads its profile.
// A restart kills everything of the session's but init before the new interpreter starts, so
// nothing is planted and nothing of the old interpreter runs beside the new one.
TEST_F(LiveKernelTest, ARestartKillsWhatTheOldInterpreterLeftBeforeTheNewOneStarts) {
  runtime::RunResult planted = cell(
      "import os, threading, time\n"
      "def plant_in_next_kernel():\n"
      "    known = set(os.listdir('/tmp'))\n"
      "    while True:\n"
      "        for name in set(os.listdir('/tmp')) - known:\n"
      "            if name.startswith('paddock-kernel-'):\n"
      "                startup = '/tmp/' + name + '/ipython/profile_default/startup'\n"
      "                try:\n"
      "                    os.makedirs(startup, exist_ok=True)\n"
      "                    open(startup + '/00-planted.py', 'w').write('PLANTED = 1')\n"
      "                except OSError:\n"
      "                    pass\n"
      "        time.sleep(0.002)\n"
      "def later():\n"
      "    time.sleep(1)\n"
      "    if os.fork() == 0:\n"
      "        os.setsid()\n"
      "        if os.fork() == 0:\n"
      "            open('/tmp/planter-pid', 'w').write(str(os.getpid()))\n"
      "            plant_in_next_kernel()\n"
      "        os._exit(0)\n"
      "threading.Thread(target=later, daemon=True).start()\n");
  ASSERT_EQ(planted.exit_code, 0) << error_of(planted);
  // The daemon starts once the cell and its sweep are over (a command of the session would
  // sweep it away: only a restart may follow).
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto restarted = kernel_->restart();
  ASSERT_TRUE(restarted) << restarted.error().message;
  runtime::RunResult fresh = cell(
      "import os\n"
      "print('PLANTED' in dir())\n"
      "print(os.path.exists('/proc/' + open('/tmp/planter-pid').read()))\n");
  EXPECT_EQ(fresh.stdout_data.data, "False\nFalse\n") << error_of(fresh);
}

TEST_F(LiveKernelTest, ARestartForgetsTheVariablesAndKeepsTheFiles) {
  cell("x = 5\nopen('kept.txt', 'w').write('kept')");
  auto restarted = kernel_->restart();
  ASSERT_TRUE(restarted) << restarted.error().message;
  runtime::RunResult next = cell("print(open('kept.txt').read())\nprint('x' in dir())");
  EXPECT_EQ(next.stdout_data.data, "kept\nFalse\n") << error_of(next);
}

// What a cell writes comes in the order it was flushed, stream by stream: a flush with output
// still waits until the kernel has sent it, so a flushed stdout line comes before the stderr
// line written after it (the bridge skips only flushes with nothing to send).
TEST_F(LiveKernelTest, FlushedOutputKeepsItsOrderAcrossStreams) {
  // The streams as they alternate; a stream's line may come in more than one chunk.
  struct Ordered final : runtime::RunObserver {
    void on_output(runtime::StreamId stream, std::string_view chunk) override {
      if (seen.empty() || stream != last)
        seen += stream == runtime::StreamId::kStderr ? "err:" : "out:";
      last = stream;
      seen += chunk;
    }
    std::string seen;
    runtime::StreamId last = runtime::StreamId::kStdout;
  } observer;
  runtime::CellRequest request;
  request.code =
      "import sys\n"
      "for i in range(3):\n"
      "    print('o%d' % i); sys.stdout.flush()\n"
      "    print('e%d' % i, file=sys.stderr); sys.stderr.flush()\n"
      "print('end')\n";
  auto result = kernel_->execute(request, observer);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(observer.seen, "out:o0\nerr:e0\nout:o1\nerr:e1\nout:o2\nerr:e2\nout:end\n");
  EXPECT_EQ(result->stdout_data.data, "o0\no1\no2\nend\n");
  EXPECT_EQ(result->stderr_data.data, "e0\ne1\ne2\n");
}

// The kernel sends each iopub message from the thread that makes it (kernel_bridge.py,
// KERNEL_WAITS): threads that write and flush at once share one socket, one at a time, and every
// line (one write each) arrives whole, before the cell ends.
TEST_F(LiveKernelTest, ThreadsPrintingAtOnceLoseNoLineAndTheCellEndsAfterThem) {
  runtime::RunResult printed = cell(
      "import sys, threading\n"
      "def say(k):\n"
      "    for i in range(300):\n"
      "        sys.stdout.write('t%d-%d\\n' % (k, i))\n"
      "        sys.stdout.flush()\n"
      "threads = [threading.Thread(target=say, args=(k,)) for k in range(4)]\n"
      "[t.start() for t in threads]\n"
      "[t.join() for t in threads]\n"
      "print('done')\n",
      60);
  ASSERT_EQ(printed.outcome, runtime::Outcome::kExited) << error_of(printed);
  std::istringstream lines(printed.stdout_data.data);
  std::map<std::string, int> per_thread;
  std::string line, last;
  while (std::getline(lines, line)) {
    last = line;
    if (line == "done") continue;
    ASSERT_EQ(line.rfind('t', 0), 0u) << "a line not whole: " << line;
    ++per_thread[line.substr(0, line.find('-'))];
  }
  EXPECT_EQ(last, "done");
  EXPECT_EQ(per_thread,
            (std::map<std::string, int>{{"t0", 300}, {"t1", 300}, {"t2", 300}, {"t3", 300}}));
}

// An interrupt that arrives while a message's frames are going out waits until the message is
// whole: otherwise the half message would swallow the next one. The cell sends itself SIGINT
// right after the first frame of its output's message leaves, from inside the kernel's own
// zmq send: the output still arrives, then the KeyboardInterrupt, and the next cell is whole.
TEST_F(LiveKernelTest, AnInterruptBetweenAMessagesFramesWaitsForTheMessage) {
  cell("x = 7");
  runtime::RunResult cut = cell(
      "import os, signal, zmq\n"
      "plain_send = zmq.Socket.send\n"
      "armed = [True]\n"
      "def send(self, data, flags=0, *args, **kwargs):\n"
      "    sent = plain_send(self, data, flags, *args, **kwargs)\n"
      "    if armed[0] and flags & zmq.SNDMORE and self.socket_type == zmq.PUB:\n"
      "        armed[0] = False\n"
      "        os.kill(os.getpid(), signal.SIGINT)\n"
      "    return sent\n"
      "zmq.Socket.send = send\n"
      "try:\n"
      "    print('whole', flush=True)\n"
      "finally:\n"
      "    zmq.Socket.send = plain_send\n");
  EXPECT_EQ(cut.stdout_data.data, "whole\n") << error_of(cut);
  EXPECT_EQ(error_of(cut).rfind("KeyboardInterrupt", 0), 0u) << error_of(cut);
  runtime::RunResult next = cell("print('after', x)");
  EXPECT_EQ(next.stdout_data.data, "after 7\n") << error_of(next);
  EXPECT_EQ(kernel_->status().restarts, 0);
}

// IPython keeps the cells' code in memory only: no file of the sandbox holds it (by default a
// thread of IPython's writes every cell to an SQLite file in the kernel's directory in /tmp, whose
// lock the next cell waited for). The session's own history still reads it. writeout_cache is
// IPython's own "write the history now", so the file, if there were one, is written before it
// is looked for.
TEST_F(LiveKernelTest, TheCellsCodeIsInNoFileAndTheHistoryStillHasIt) {
  cell("secret_code = 'kept-' 'in-memory-only'\nsecret_code_line = 1");
  runtime::RunResult looked = cell(
      "import os\n"
      "get_ipython().history_manager.writeout_cache()\n"
      "needle = b'secret_code_line' + b' = 1'\n"
      "found = []\n"
      "for top in ('/tmp', '/work'):\n"
      "    for root, dirs, files in os.walk(top):\n"
      "        for name in files:\n"
      "            try:\n"
      "                if needle in open(os.path.join(root, name), 'rb').read():\n"
      "                    found.append(os.path.join(root, name))\n"
      "            except OSError:\n"
      "                pass\n"
      "print(found)\n"
      "print(any('secret_code_line' in line for line in In))\n");
  EXPECT_EQ(looked.stdout_data.data, "[]\nTrue\n") << error_of(looked);
  runtime::RunResult history = cell("%history -l 3");
  EXPECT_NE(history.stdout_data.data.find("secret_code_line = 1"), std::string::npos)
      << history.stdout_data.data << error_of(history);
}

TEST_F(LiveKernelTest, FiguresBelongToTheCellThatDrewThem) {
  runtime::RunResult none = cell("import matplotlib.pyplot as plt\nx = 1");
  EXPECT_TRUE(none.artifacts.empty());
  runtime::RunResult two = cell("plt.plot([1, 2]); plt.show()\nplt.figure(); plt.bar([1], [2]);");
  ASSERT_EQ(two.artifacts.size(), 2u) << error_of(two);
  for (const auto& figure : two.artifacts) {
    EXPECT_EQ(figure.mime_type, "image/png");
    EXPECT_EQ(figure.data.rfind("\x89PNG", 0), 0u);
  }
  EXPECT_TRUE(cell("print(x)").artifacts.empty());
}

// pip in a cell cannot install (Debian's python is externally managed, and a cell has no
// network): each way of asking for it fails as an error that says what installs instead, and the
// restart keeps it so. What does not install still works.
TEST_F(LiveKernelTest, InstallingFromACellIsAnErrorThatNamesInstallLibraries) {
  const std::vector<std::string> spellings = {
      "%pip install requests",
      "!pip install requests",
      "! pip3 install -q requests",
      "!!pip install requests",
      "!python3 -m pip install requests",
      "import sys\n!{sys.executable} -m pip install requests",
      "!/usr/bin/python3 -I -m pip install requests",
      "!cd /tmp && pip install requests",
      "pip install requests",
      "%pip3 install requests",
      "%conda install requests",
      "!mamba install requests",
      "out = !pip install requests",
      "%sx pip install requests",
      "%%bash\necho first\npip install requests",
      "if True:\n    %pip install requests",
  };
  auto expect_refused = [&](const std::string& code) {
    runtime::RunResult refused = cell(code);
    EXPECT_EQ(refused.exit_code, 1) << code << ": " << refused.stdout_data.data;
    ASSERT_TRUE(refused.cell->error) << code << ": " << refused.stdout_data.data;
    EXPECT_EQ(refused.cell->error->name, "InstallRefused") << code;
    ASSERT_EQ(refused.cell->error->traceback.size(), 1u) << code;
    const std::string& line = refused.cell->error->traceback[0];
    EXPECT_NE(line.find("install_libraries"), std::string::npos) << line;
    EXPECT_NE(line.find("`libraries`"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(refused.stdout_data.data.find("externally-managed"), std::string::npos) << code;
  };
  for (const auto& code : spellings) expect_refused(code);
  runtime::RunResult kept = cell("s = '!pip install requests'\nprint(s)\n!echo shell works");
  // (`!` runs the command on a terminal, whose lines end in \r\n.)
  EXPECT_EQ(kept.stdout_data.data.rfind("!pip install requests\nshell works", 0), 0u)
      << kept.stdout_data.data << error_of(kept);
  runtime::RunResult version = cell("%pip --version");
  EXPECT_EQ(version.stdout_data.data.rfind("pip ", 0), 0u) << version.stdout_data.data;
  auto restarted = kernel_->restart();
  ASSERT_TRUE(restarted) << restarted.error().message;
  expect_refused("%pip install requests");
}

// A live cell's streams are what a notebook shows, without terminal colour codes.
TEST_F(LiveKernelTest, StreamsComeWithoutTerminalCodes) {
  runtime::RunResult coloured = cell(
      "import sys\nprint('\\x1b[1;31mred\\x1b[0m plain')\n"
      "sys.stderr.write('\\x1b[33mwarn\\x1b[0m\\n')");
  EXPECT_EQ(coloured.stdout_data.data, "red plain\n") << error_of(coloured);
  EXPECT_EQ(coloured.stderr_data.data, "warn\n");
}

// Cancellation reaches the cell as an interrupt; the state stays.
TEST_F(LiveKernelTest, CancellationInterruptsTheCell) {
  cell("x = 7");
  RecordingObserver observer;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    observer.token_.cancel();
  });
  runtime::CellRequest request{"import time\ntime.sleep(60)", 60};
  auto result = kernel_->execute(request, observer);
  canceller.join();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->outcome, runtime::Outcome::kCancelled);
  EXPECT_TRUE(result->cell->state_lost.empty());
  EXPECT_EQ(cell("print(x)").stdout_data.data, "7\n");
}

// A command with a network (an installer) runs while the kernel is stopped, so nothing of the
// interpreter's (a thread a cell left behind) can use that network; afterwards it runs again.
TEST_F(LiveKernelTest, TheKernelIsStoppedWhileACommandHasANetwork) {
  runtime::RunResult pid = cell("import os\nprint(os.getpid(), end='')");
  ASSERT_EQ(pid.exit_code, 0);
  runtime::ExecRequest look;
  look.argv = {"sh", "-c", "cut -d' ' -f3 /proc/" + pid.stdout_data.data + "/stat"};
  look.network = true;
  look.wall_seconds = 30;
  RecordingObserver observer;
  auto looked = session_->exec(look, observer);
  ASSERT_TRUE(looked) << looked.error().message;
  EXPECT_EQ(looked->stdout_data.data, "T\n") << looked->stderr_data.data;
  look.network = false;
  auto unfrozen = session_->exec(look, observer);
  ASSERT_TRUE(unfrozen) << unfrozen.error().message;
  EXPECT_NE(unfrozen->stdout_data.data, "T\n");
  EXPECT_EQ(cell("print(3)").stdout_data.data, "3\n");
}

// What an installer puts in the user site directory (a command of the session, as pip --user
// runs) imports in the running kernel, whose path has that directory from its start.
TEST_F(LiveKernelTest, ALibraryACommandInstalledImportsWithoutARestart) {
  cell("x = 1");
  runtime::ExecRequest install;
  install.argv = {"sh", "-c",
                  "site=$(python3 -c 'import site; print(site.getusersitepackages())') && "
                  "mkdir -p \"$site/paddock_fake_lib\" && "
                  "echo 'VALUE = 42' > \"$site/paddock_fake_lib/__init__.py\""};
  RecordingObserver observer;
  auto installed = session_->exec(install, observer);
  ASSERT_TRUE(installed) << installed.error().message;
  ASSERT_EQ(installed->exit_code, 0) << installed->stderr_data.data;
  ASSERT_TRUE(kernel_->refresh_after_install());
  runtime::RunResult imported = cell("import paddock_fake_lib\nprint(paddock_fake_lib.VALUE, x)");
  EXPECT_EQ(imported.stdout_data.data, "42 1\n") << error_of(imported);
}

// A cell can fill the sandbox's /tmp, which outlives kernels, and then end its interpreter. The
// old kernel's private directory goes with it, which is usually room enough for the next one;
// where it is not, the error names /tmp and what to do, since no cell can run to make room.
TEST_F(LiveKernelTest, AFullTmpDoesNotLeaveTheSessionWithoutAWord) {
  runtime::RunResult filled = cell(
      "chunk = b'x' * (1 << 16)\n"
      "try:\n"
      "    with open('/tmp/fill', 'wb') as f:\n"
      "        while True: f.write(chunk)\n"
      "except OSError as e:\n"
      "    print(e.errno)\n");
  ASSERT_EQ(filled.stdout_data.data, "28\n") << error_of(filled);
  RecordingObserver observer;
  runtime::CellRequest request{"import os\nos._exit(3)", 30};
  auto died = kernel_->execute(request, observer);
  if (!died) {
    EXPECT_NE(died.error().message.find("/tmp is full"), std::string::npos) << died.error().message;
    EXPECT_NE(died.error().message.find("close this session"), std::string::npos);
    return;
  }
  EXPECT_NE(died->cell->state_lost.find("exited with code 3"), std::string::npos);
  runtime::RunResult next = cell("import os\nprint(os.path.getsize('/tmp/fill') > 0)");
  EXPECT_EQ(next.stdout_data.data, "True\n") << error_of(next);
}

// The policy's start-up code runs in every new interpreter: the first, one the bridge starts
// after a death, and one restart_session asks for.
TEST(LiveKernelStart, TheStartUpCodeRunsInEveryNewInterpreter) {
  auto policies = language::PolicyStore::load({});
  ASSERT_TRUE(policies) << policies.error().message;
  const language::LanguagePolicy& python = **policies->find("python");
  auto built = language::build_session_spec(python, {}, {});
  ASSERT_TRUE(built) << built.error().message;
  native::NativeBackend backend;
  auto session = backend.open_session(built->shape, built->plan);
  ASSERT_TRUE(session) << session.error().message;
  runtime::KernelConfig config = python.kernel;
  config.startup += "\nstarted_up = 'yes'";
  auto kernel = runtime::LiveKernel::start(**session, config, 120);
  ASSERT_TRUE(kernel) << kernel.error().message;
  RecordingObserver observer;
  auto look = [&] {
    auto result = (*kernel)->execute(runtime::CellRequest{"print(started_up)", 30}, observer);
    return result ? result->stdout_data.data : result.error().message;
  };
  EXPECT_EQ(look(), "yes\n");
  auto died = (*kernel)->execute(runtime::CellRequest{"import os\nos._exit(1)", 30}, observer);
  ASSERT_TRUE(died && !died->cell->state_lost.empty());
  EXPECT_EQ(look(), "yes\n") << "after the bridge replaced a dead kernel";
  ASSERT_TRUE((*kernel)->restart());
  EXPECT_EQ(look(), "yes\n") << "after restart_session";
}

// Beside a live interpreter, a command with a network (an installer) must run in a Landlock
// domain of its own; where it cannot (here a filter that refuses Landlock, as a kernel without
// it would), the command is refused with a line that says why, rather than run unconfined.
TEST(LiveKernelStart, AnInstallThatCannotBeKeptFromTheInterpreterIsRefused) {
  auto policies = language::PolicyStore::load({});
  ASSERT_TRUE(policies) << policies.error().message;
  const language::LanguagePolicy& python = **policies->find("python");
  auto built = language::build_session_spec(python, {}, {});
  ASSERT_TRUE(built) << built.error().message;
  runtime::SandboxShape shape = built->shape;
  shape.seccomp_deny.push_back("landlock_create_ruleset");
  native::NativeBackend backend;
  auto session = backend.open_session(shape, built->plan);
  ASSERT_TRUE(session) << session.error().message;
  runtime::ExecRequest install;
  install.argv = {"sh", "-c", "echo installed"};
  install.network = true;
  install.wall_seconds = 30;
  RecordingObserver observer;
  // No interpreter yet: nothing to keep the command from, so it runs.
  auto alone = (*session)->exec(install, observer);
  ASSERT_TRUE(alone) << alone.error().message;
  EXPECT_EQ(alone->stdout_data.data, "installed\n");
  auto kernel = runtime::LiveKernel::start(**session, python.kernel, 120);
  ASSERT_TRUE(kernel) << kernel.error().message;
  auto beside = (*session)->exec(install, observer);
  std::string said =
      beside ? beside->stdout_data.data + beside->stderr_data.data : beside.error().message;
  EXPECT_NE(said.find("needs Landlock"), std::string::npos) << said;
  EXPECT_EQ(said.find("installed"), std::string::npos) << said;
  auto after = (*kernel)->execute(runtime::CellRequest{"print('still here')", 30}, observer);
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->stdout_data.data, "still here\n");
}

TEST(LiveKernelStart, AMissingKernelspecIsOneClearError) {
  native::NativeBackend backend;
  TestSpec spec = spec_for({});
  spec.argv.clear();
  auto session = backend.open_session(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(session) << session.error().message;
  runtime::KernelConfig config;
  config.name = "no-such-kernel";
  auto started = runtime::LiveKernel::start(**session, config, 60);
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("no Jupyter kernelspec named 'no-such-kernel'"),
            std::string::npos)
      << started.error().message;
  // The session still works for commands and files.
  runtime::ExecRequest echo;
  echo.argv = {"echo", "still"};
  RecordingObserver observer;
  auto ran = (*session)->exec(echo, observer);
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->stdout_data.data, "still\n");
}

}  // namespace
}  // namespace paddock::testing::live_kernel_test
