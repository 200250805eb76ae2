#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/dispatch.h"
#include "cli/output.h"
#include "core/companion_program.h"

namespace paddock::cli {

int exec_full_paddock(const ImageRequest& /*request*/) {
  // Beside paddock in a build folder, in lib/paddock once installed.
  std::vector<std::string> paths = core::companion_program_paths("paddock-full");
  if (paths.empty()) return fail("cannot find paddock's own executable (/proc/self/exe)");
  // The arguments as given: paddock-full parses the same command line.
  std::string cmdline;
  {
    // /proc/self/cmdline holds the original argv, NUL-separated.
    FILE* file = std::fopen("/proc/self/cmdline", "r");
    if (file == nullptr) return fail("cannot read /proc/self/cmdline");
    for (int c; (c = std::fgetc(file)) != EOF;) cmdline += static_cast<char>(c);
    std::fclose(file);
  }
  std::vector<char*> argv;
  for (std::size_t at = 0; at < cmdline.size(); at = cmdline.find('\0', at) + 1) {
    argv.push_back(cmdline.data() + at);
  }
  argv.push_back(nullptr);
  // libcurl's dependencies (librtmp, libldap) load GnuTLS, whose constructor initializes it at
  // load time: about 0.75 MiB of the server's idle memory, for a library paddock never calls
  // (its HTTP goes through libcurl's OpenSSL, and only over http and https). GnuTLS skips that
  // when this variable is set, and a constructor runs before main, so it is set here.
  std::vector<char*> envp;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::strncmp(*variable, "GNUTLS_NO_IMPLICIT_INIT=", 24) != 0) envp.push_back(*variable);
  }
  std::string no_gnutls_init = "GNUTLS_NO_IMPLICIT_INIT=1";
  envp.push_back(no_gnutls_init.data());
  envp.push_back(nullptr);
  int first_error = 0;
  for (std::string& path : paths) {
    argv[0] = path.data();
    execve(path.c_str(), argv.data(), envp.data());
    if (first_error == 0 || first_error == ENOENT) first_error = errno;
  }
  return fail("cannot run paddock-full from " + paths[0] + " or " + paths[1] +
              " (paddock mcp, doctor, import, pull and the container backends live there; copy or "
              "build it beside paddock): " +
              std::strerror(first_error));
}

}  // namespace paddock::cli
