// A failed install leads with one line naming its cause: what the egress proxy saw first, then
// each installer's own words for an unreachable index, a failed build, an unknown package and a
// version that does not exist.

#include "language/install_diagnosis.h"

#include <gtest/gtest.h>

namespace paddock::install_diagnosis_test {
namespace {

constexpr const char* kUnknown = "no such package in the package index: check the library's name";
constexpr const char* kConflict =
    "the package index has no version that fits what was asked (a version conflict): ask for "
    "another version, or none";
constexpr const char* kBuild =
    "a package's build step failed (the package's own build, not its download); its output "
    "follows";

TEST(InstallDiagnosis, EachInstallersWordsForAnUnreachableIndex) {
  // As pip, npm, R and go print them when there is no network.
  EXPECT_EQ(language::install_diagnosis(
                "WARNING: Retrying ... NewConnectionError('<pip._vendor.urllib3."
                "connection.HTTPSConnection>: Failed to establish a new connection: "
                "[Errno -3] Temporary failure in name resolution')"),
            "could not reach the package index (name resolution failed)");
  EXPECT_EQ(language::install_diagnosis(
                "npm ERR! request to https://registry.npmjs.org/x failed, reason: "
                "getaddrinfo EAI_AGAIN registry.npmjs.org"),
            "could not reach the package index (name resolution failed)");
  EXPECT_EQ(language::install_diagnosis("dial tcp: lookup proxy.golang.org: no such host"),
            "could not reach the package index (name resolution failed)");
  EXPECT_EQ(language::install_diagnosis("connect ECONNREFUSED 127.0.0.1:3128"),
            "could not reach the package index (the connection was refused)");
  EXPECT_EQ(
      language::install_diagnosis("WARNING: The repository located at mirror.example is not a "
                                  "trusted or secure host and is being ignored.\nERROR: Could not "
                                  "find a version that satisfies the requirement x (from versions: "
                                  "none)"),
      "could not reach the package index (pip ignores a plain http:// index unless its "
      "host is trusted: PIP_TRUSTED_HOST)");
}

// Through the proxy an installer only sees a 502, and says something that reads like a wrong
// name; the proxy's record says what happened.
TEST(InstallDiagnosis, TheProxysRecordComesBeforeTheInstallersWords) {
  net::egress::EgressRecord unreachable;
  unreachable.unreachable.push_back(
      {"pypi.org", 443, "its name could not be resolved: Name or service not known"});
  EXPECT_EQ(
      language::install_diagnosis("ERROR: Could not find a version that satisfies the requirement "
                                  "rich (from versions: none)",
                                  unreachable),
      "could not reach the package index pypi.org:443: its name could not be resolved: "
      "Name or service not known");
  net::egress::EgressRecord refused;
  refused.denied.push_back({"example.org", 443, "it is not in the allowlist"});
  refused.unreachable = unreachable.unreachable;
  EXPECT_EQ(
      language::install_diagnosis("npm error 403 Forbidden - GET https://example.org/x", refused),
      "the installer was refused example.org:443 (it is not in the allowlist): only the "
      "user can allow a host (paddock mcp --allow-host)");
}

TEST(InstallDiagnosis, EachInstallersWordsForAnUnknownPackage) {
  EXPECT_EQ(language::install_diagnosis(
                "ERROR: Could not find a version that satisfies the requirement "
                "nope (from versions: none)\nERROR: No matching distribution found "
                "for nope"),
            kUnknown);
  EXPECT_EQ(
      language::install_diagnosis("npm error code E404\nnpm error 404 Not Found - GET x/nope"),
      kUnknown);
  EXPECT_EQ(language::install_diagnosis(
                "ERROR:  Could not find a valid gem 'nope' (>= 0) in any repository"),
            kUnknown);
  EXPECT_EQ(language::install_diagnosis("paddock: no package nope in the package index https://x"),
            kUnknown);
  EXPECT_EQ(language::install_diagnosis(
                "go: module example.org/nope: reading "
                "https://proxy.golang.org/example.org/nope/@v/list: 404 Not Found"),
            kUnknown);
}

TEST(InstallDiagnosis, EachInstallersWordsForAVersionConflict) {
  EXPECT_EQ(
      language::install_diagnosis("ERROR: Could not find a version that satisfies the requirement "
                                  "rich==99 (from versions: 13.0, 13.1)"),
      kConflict);
  EXPECT_EQ(language::install_diagnosis("ERROR: ResolutionImpossible: for help visit ..."),
            kConflict);
  EXPECT_EQ(
      language::install_diagnosis("npm error code ETARGET\nnpm error notarget No matching version"),
      kConflict);
  EXPECT_EQ(language::install_diagnosis(
                "ERROR:  Could not find a valid gem 'rake' (= 99) in any repository"),
            kConflict);
  EXPECT_EQ(
      language::install_diagnosis("paddock: pkg 1.0 does not fit R 4.2.2 (Depends: R (>= 99.0))"),
      kConflict);
  EXPECT_EQ(language::install_diagnosis(
                "go: example.org/m@v9.9.9: reading "
                "https://proxy.golang.org/example.org/m/@v/v9.9.9.info: 410 Gone"),
            kConflict);
}

TEST(InstallDiagnosis, EachInstallersWordsForAFailedBuild) {
  EXPECT_EQ(language::install_diagnosis(
                "error: subprocess-exited-with-error\n\n× Getting requirements to "
                "build wheel did not run successfully."),
            kBuild);
  EXPECT_EQ(language::install_diagnosis(
                "npm error code 1\nnpm error command failed\nnpm error command sh "
                "-c exit 1"),
            kBuild);
  EXPECT_EQ(language::install_diagnosis(
                "ERROR:  Error installing x:\n\tERROR: Failed to build gem native "
                "extension."),
            kBuild);
  EXPECT_EQ(language::install_diagnosis("installation of package 'x' had non-zero exit status"),
            kBuild);
  EXPECT_EQ(
      language::install_diagnosis("# example.org/m\ngo/pkg/mod/example.org/m@v1.0.0/m.go:4:15: "
                                  "undefined: x"),
      kBuild);
}

TEST(InstallDiagnosis, OtherFailuresHaveNoLine) {
  EXPECT_EQ(language::install_diagnosis("Killed"), std::nullopt);
  EXPECT_EQ(language::install_diagnosis(""), std::nullopt);
}

}  // namespace
}  // namespace paddock::install_diagnosis_test
