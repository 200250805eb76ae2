#include "language/install_diagnosis.h"

#include <array>
#include <map>

#include <re2/re2.h>

namespace paddock::language {
namespace {

enum class Cause { kUnreachable, kBuildFailed, kUnknownPackage, kVersionConflict };

// A sign is a plain substring, or an RE2 pattern where the words alone would be ambiguous.
struct Sign {
  std::string_view text;
  Cause cause;
  std::string_view why = {};  // for kUnreachable: what failed
  bool pattern = false;
};

// In the order they are tried. Name resolution first among the network's: without it nothing
// was even tried, and the later errors follow from it. Then a failed build before the rest: a
// build's output quotes whatever the package printed. Then a package the index does not have
// before a version it does not have: pip and gem say both with the same sentence, and only the
// part saying "none" or "(>= 0)" (any version at all) tells them apart.
constexpr std::array kSigns = {
    Sign{"Temporary failure in name resolution", Cause::kUnreachable, "name resolution failed"},
    Sign{"Name or service not known", Cause::kUnreachable, "name resolution failed"},
    Sign{"No address associated with hostname", Cause::kUnreachable, "name resolution failed"},
    Sign{"NameResolutionError", Cause::kUnreachable, "name resolution failed"},
    Sign{"getaddrinfo ENOTFOUND", Cause::kUnreachable, "name resolution failed"},
    Sign{"getaddrinfo EAI_AGAIN", Cause::kUnreachable, "name resolution failed"},
    Sign{"Could not resolve host", Cause::kUnreachable, "name resolution failed"},
    Sign{"no such host", Cause::kUnreachable, "name resolution failed"},
    Sign{"Network is unreachable", Cause::kUnreachable, "the network is unreachable"},
    Sign{"ENETUNREACH", Cause::kUnreachable, "the network is unreachable"},
    Sign{"Connection refused", Cause::kUnreachable, "the connection was refused"},
    Sign{"connection refused", Cause::kUnreachable, "the connection was refused"},
    Sign{"ECONNREFUSED", Cause::kUnreachable, "the connection was refused"},
    Sign{"Failed to establish a new connection", Cause::kUnreachable, "the connection failed"},
    Sign{"ETIMEDOUT", Cause::kUnreachable, "the connection timed out"},
    Sign{"Connection timed out", Cause::kUnreachable, "the connection timed out"},
    Sign{"ConnectTimeoutError", Cause::kUnreachable, "the connection timed out"},
    // pip, of a plain-http index on a host it was not told to trust: it then reads no index at
    // all and says "from versions: none"
    Sign{"is not a trusted or secure host and is being ignored", Cause::kUnreachable,
         "pip ignores a plain http:// index unless its host is trusted: PIP_TRUSTED_HOST"},
    // R, as the policy's install script says it once install.packages has given up.
    Sign{"could not be read (is it reachable?)", Cause::kUnreachable, "its package list"},
    // pip (a setup.py or a PEP 517 backend that failed)
    Sign{"error: subprocess-exited-with-error", Cause::kBuildFailed},
    Sign{"Failed building wheel for", Cause::kBuildFailed},
    Sign{"error: metadata-generation-failed", Cause::kBuildFailed},
    // npm (an install script that failed), old and new words
    Sign{"npm ERR! code ELIFECYCLE", Cause::kBuildFailed},
    Sign{"npm ERR! command failed", Cause::kBuildFailed},
    Sign{"npm error command failed", Cause::kBuildFailed},
    // gem
    Sign{"Failed to build gem native extension", Cause::kBuildFailed},
    // R: R CMD INSTALL's own words, and the policy's script's
    Sign{"had non-zero exit status", Cause::kBuildFailed},
    Sign{R"(paddock: \S+ failed to build)", Cause::kBuildFailed, {}, true},
    // go: the policy's build of the packages it got, a compiler's "file.go:line:col: ..."
    Sign{R"((?m)^\S+\.go:\d+:\d+: )", Cause::kBuildFailed, {}, true},
    // pip
    Sign{"(from versions: none)", Cause::kUnknownPackage},
    // npm
    Sign{"npm ERR! code E404", Cause::kUnknownPackage},
    Sign{"npm error code E404", Cause::kUnknownPackage},
    // gem
    Sign{R"(Could not find a valid gem '[^']+' \(>= 0\))", Cause::kUnknownPackage, {}, true},
    // R, as the policy's install script says it
    Sign{R"(paddock: no package \S+ in the package index)", Cause::kUnknownPackage, {}, true},
    // go: the index has no versions of the module at all
    Sign{R"(@v/list: (404 Not Found|410 Gone))", Cause::kUnknownPackage, {}, true},
    // pip
    Sign{"Could not find a version that satisfies the requirement", Cause::kVersionConflict},
    Sign{"ResolutionImpossible", Cause::kVersionConflict},
    // npm
    Sign{"code ETARGET", Cause::kVersionConflict},
    Sign{"code ERESOLVE", Cause::kVersionConflict},
    // gem
    Sign{"Could not find a valid gem", Cause::kVersionConflict},
    // R, as the policy's install script says it
    Sign{R"(paddock: \S+ \S+ does not fit R)", Cause::kVersionConflict, {}, true},
    // go
    Sign{R"(@v/[^/\s]+\.info: (404 Not Found|410 Gone))", Cause::kVersionConflict, {}, true},
    Sign{"invalid version: unknown revision", Cause::kVersionConflict},
    Sign{"no matching versions for query", Cause::kVersionConflict},
};

// The patterns of kSigns, compiled once on first use (never freed: they live as long as the
// process, and a static's destructor could run while another thread still reads them).
const std::map<std::string_view, re2::RE2*>& compiled_patterns() {
  static const auto* compiled = [] {
    auto* map = new std::map<std::string_view, re2::RE2*>;
    for (const auto& sign : kSigns) {
      if (sign.pattern) {
        map->emplace(sign.text, new re2::RE2(re2::StringPiece(sign.text.data(), sign.text.size())));
      }
    }
    return map;
  }();
  return *compiled;
}

bool shows(std::string_view output, const Sign& sign) {
  if (!sign.pattern) return output.find(sign.text) != std::string_view::npos;
  return re2::RE2::PartialMatch(re2::StringPiece(output.data(), output.size()),
                                *compiled_patterns().at(sign.text));
}

std::string destination(const net::egress::Destination& where) {
  return where.host + ":" + std::to_string(where.port);
}

std::string line_for(const Sign& sign) {
  switch (sign.cause) {
    case Cause::kUnreachable:
      return "could not reach the package index (" + std::string(sign.why) + ")";
    case Cause::kBuildFailed:
      return "a package's build step failed (the package's own build, not its download); its "
             "output follows";
    case Cause::kUnknownPackage:
      return "no such package in the package index: check the library's name";
    case Cause::kVersionConflict:
      return "the package index has no version that fits what was asked (a version conflict): "
             "ask for another version, or none";
  }
  return {};
}

}  // namespace

std::optional<std::string> install_diagnosis(std::string_view installer_output,
                                             const net::egress::EgressRecord& network) {
  // The proxy's own record before any words: what it refused, then what it could not reach.
  if (!network.denied.empty()) {
    const net::egress::Destination& refused = network.denied.front();
    return "the installer was refused " + destination(refused) + " (" + refused.reason +
           "): only the user can allow a host (paddock mcp --allow-host)";
  }
  if (!network.unreachable.empty()) {
    const net::egress::Destination& failed = network.unreachable.front();
    return "could not reach the package index " + destination(failed) + ": " + failed.reason;
  }
  for (const auto& sign : kSigns) {
    if (shows(installer_output, sign)) return line_for(sign);
  }
  return std::nullopt;
}

}  // namespace paddock::language
