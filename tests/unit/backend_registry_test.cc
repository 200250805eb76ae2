#include "cli/available_backends.h"

#include <gtest/gtest.h>

namespace paddock::backend_registry_test {
namespace {

TEST(BackendRegistry, NativeIsBuiltIn) {
  cli::BackendRegistry registry = cli::builtin_backends();
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"native"}));
  auto backend = registry.create("native");
  ASSERT_TRUE(backend.ok());
  EXPECT_EQ((*backend)->name(), "native");
}

TEST(BackendRegistry, UnknownNamesListTheKnownOnes) {
  auto backend = cli::builtin_backends().create("kubernetes");
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().message, "unknown backend 'kubernetes'; available: native");
}

}  // namespace
}  // namespace paddock::backend_registry_test
