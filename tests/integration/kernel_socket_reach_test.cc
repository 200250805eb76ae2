// The live kernel's ZMQ sockets and an installer beside it (issue 49, item 13): the sockets were
// unix sockets in /tmp/paddock-kernel-*, which a command with a network (an installer, in a
// Landlock domain of its own) could connect() to; only the key kept it out. It must not reach
// them at all, while the session's other commands, which run as the cells do, still can.

#include <gtest/gtest.h>

#include <string>

#include "language/policy_store.h"
#include "language/spec_builder.h"
#include "runtime/live_kernel.h"
#include "runtime/native/native_backend.h"
#include "support/harness.h"

namespace paddock::testing::kernel_socket_reach_test {
namespace {

// Lists the kernel's sockets as /proc/net/unix names them ("@name" for an abstract one), or
// connects to those given: "found N connected M", then one line per socket reached.
constexpr const char* kReach =
    "import socket, sys\n"
    "names = sys.argv[1:]\n"
    "if not names:\n"
    "    for line in open('/proc/net/unix').read().splitlines()[1:]:\n"
    "        parts = line.split()\n"
    "        if len(parts) >= 8 and 'paddock-kernel-' in parts[7] and parts[7] not in names:\n"
    "            names.append(parts[7])\n"
    "connected = []\n"
    "for name in names:\n"
    "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "    try:\n"
    "        s.connect('\\0' + name[1:] if name.startswith('@') else name)\n"
    "        connected.append(name)\n"
    "    except OSError as e:\n"
    "        print('refused', name, e.errno, file=sys.stderr)\n"
    "    s.close()\n"
    "print('found', len(names), 'connected', len(connected))\n"
    "for name in connected: print(name)\n";

TEST(KernelSocketReach, AnInstallerCannotConnectToTheKernelsSockets) {
  auto policies = language::PolicyStore::load({});
  ASSERT_TRUE(policies) << policies.error().message;
  const language::LanguagePolicy& python = **policies->find("python");
  auto built = language::build_session_spec(python, {}, {});
  ASSERT_TRUE(built) << built.error().message;
  native::NativeBackend backend;
  auto session = backend.open_session(built->shape, built->plan);
  ASSERT_TRUE(session) << session.error().message;
  auto kernel = runtime::LiveKernel::start(**session, python.kernel, 120);
  ASSERT_TRUE(kernel) << kernel.error().message;

  // A command of the session as the cells run: it finds the kernel's five sockets and reaches
  // them (the key, which it does not have, is what keeps it from talking to the kernel).
  runtime::ExecRequest look;
  look.argv = {"python3", "-c", kReach};
  look.wall_seconds = 30;
  RecordingObserver observer;
  auto seen = (*session)->exec(look, observer);
  ASSERT_TRUE(seen) << seen.error().message;
  const std::string& listed = seen->stdout_data.data;
  ASSERT_EQ(listed.rfind("found ", 0), 0u) << listed << seen->stderr_data.data;
  std::vector<std::string> names;
  for (std::size_t at = listed.find('\n') + 1; at < listed.size();) {
    std::size_t end = listed.find('\n', at);
    names.push_back(listed.substr(at, end - at));
    at = end + 1;
  }
  ASSERT_GE(names.size(), 5u) << listed;

  // The same names from a command with a network, in its Landlock domain: none is reached.
  runtime::ExecRequest install;
  install.argv = {"python3", "-c", kReach};
  install.argv.insert(install.argv.end(), names.begin(), names.end());
  install.network = true;
  install.wall_seconds = 30;
  auto tried = (*session)->exec(install, observer);
  ASSERT_TRUE(tried) << tried.error().message;
  EXPECT_EQ(tried->stdout_data.data.substr(0, tried->stdout_data.data.find('\n')),
            "found " + std::to_string(names.size()) + " connected 0")
      << tried->stdout_data.data << tried->stderr_data.data;
  // Refused by Landlock's scope (EPERM), not gone (ECONNREFUSED, ENOENT).
  for (const auto& name : names) {
    EXPECT_NE(tried->stderr_data.data.find("refused " + name + " 1\n"), std::string::npos)
        << tried->stderr_data.data;
  }

  // And the kernel is none the worse.
  auto after = (*kernel)->execute(runtime::CellRequest{"print('still here')", 30}, observer);
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->stdout_data.data, "still here\n");
}

}  // namespace
}  // namespace paddock::testing::kernel_socket_reach_test
