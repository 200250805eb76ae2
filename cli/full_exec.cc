#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/dispatch.h"
#include "cli/output.h"

namespace paddock::cli {

int exec_full_paddock(const ImageRequest& /*request*/) {
  // The arguments as given: paddock-full parses the same command line.
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return fail("cannot find paddock's own executable (/proc/self/exe)");
  std::string path(self, static_cast<std::size_t>(length));
  path = path.substr(0, path.rfind('/') + 1) + "paddock-full";
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
  argv[0] = path.data();
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
  execve(path.c_str(), argv.data(), envp.data());
  return fail("cannot run " + path +
              " (paddock mcp, doctor, import, pull and the container backends live there; copy or "
              "build it beside paddock): " +
              std::strerror(errno));
}

}  // namespace paddock::cli
