// A failed install leads with one line when the package index could not be reached.

#include "language/install_diagnosis.h"

#include <gtest/gtest.h>

namespace paddock {
namespace {

TEST(InstallDiagnosis, EachInstallersWordsForAnUnreachableIndex) {
  // As pip, npm, R and go print them when there is no network.
  EXPECT_EQ(install_diagnosis("WARNING: Retrying ... NewConnectionError('<pip._vendor.urllib3."
                              "connection.HTTPSConnection>: Failed to establish a new connection: "
                              "[Errno -3] Temporary failure in name resolution')"),
            "could not reach the package index (name resolution failed)");
  EXPECT_EQ(install_diagnosis("npm ERR! request to https://registry.npmjs.org/x failed, reason: "
                              "getaddrinfo EAI_AGAIN registry.npmjs.org"),
            "could not reach the package index (name resolution failed)");
  EXPECT_EQ(install_diagnosis("dial tcp: lookup proxy.golang.org: no such host"),
            "could not reach the package index (name resolution failed)");
  EXPECT_EQ(install_diagnosis("connect ECONNREFUSED 127.0.0.1:3128"),
            "could not reach the package index (the connection was refused)");
}

TEST(InstallDiagnosis, OtherFailuresHaveNoLine) {
  EXPECT_EQ(install_diagnosis("ERROR: No matching distribution found for not-a-package"),
            std::nullopt);
  EXPECT_EQ(install_diagnosis(""), std::nullopt);
}

}  // namespace
}  // namespace paddock
