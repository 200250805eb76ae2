// Figures come back from language runs without the code doing anything special, and nothing
// of the capture machinery shows in the program's output.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"

namespace paddock::testing::plots_test {
namespace {

nlohmann::json run_json(const std::vector<std::string>& args) {
  CliResult result = run_cli(args);
  EXPECT_EQ(result.exit_status, 0) << result.err << result.out;
  return nlohmann::json::parse(result.out, nullptr, false);
}

std::vector<std::string> artifact_names(const nlohmann::json& result) {
  std::vector<std::string> names;
  for (const auto& artifact : result["artifacts"]) names.push_back(artifact["name"]);
  return names;
}

TEST(Plots, MatplotlibFiguresAreCapturedAtShowSavefigAndExit) {
  nlohmann::json result = run_json(
      {"run", "--json", "--lang", "python", "--code",
       "import matplotlib.pyplot as plt\n"
       "plt.plot([1, 2, 3]); plt.show()\n"  // shown
       "fig = plt.figure(); plt.bar([1], [2]); fig.savefig('/tmp/mine.png'); plt.close(fig)\n"
       "plt.figure(); plt.scatter([1], [2])\n"  // still open at exit
       "print('done')\n"});
  EXPECT_EQ(result["stdout"], "done\n");
  EXPECT_EQ(result["stderr"], "");
  ASSERT_EQ(artifact_names(result),
            (std::vector<std::string>{".paddock/plots/figure-1.png", ".paddock/plots/figure-2.png",
                                      ".paddock/plots/figure-3.png"}));
  for (const auto& artifact : result["artifacts"]) {
    EXPECT_EQ(artifact["mime_type"], "image/png");
    // base64 of the PNG signature \x89PNG\r\n\x1a\n
    EXPECT_EQ(artifact["base64"].get<std::string>().rfind("iVBORw0KGgo", 0), 0u);
  }
}

TEST(Plots, SvgToo_WhenAsked) {
  nlohmann::json result =
      run_json({"run", "--json", "--lang", "python", "--env", "PADDOCK_PLOT_FORMATS=png,svg",
                "--code", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"});
  EXPECT_EQ(artifact_names(result), (std::vector<std::string>{".paddock/plots/figure-1.png",
                                                              ".paddock/plots/figure-1.svg"}));
}

TEST(Plots, CodeWithoutMatplotlibDoesNotPayForIt) {
  nlohmann::json result = run_json({"run", "--json", "--lang", "python", "--code",
                                    "import sys\nprint('matplotlib' in sys.modules)\n"});
  EXPECT_EQ(result["stdout"], "False\n");
  EXPECT_TRUE(result["artifacts"].empty());
}

// The capture hooks come as bytecode the sandbox's python (the host's, here) loads as it is: no
// python start compiles them (about 1.5 ms each, as the sandbox writes no bytecode).
TEST(Plots, TheHooksAreBytecodeThePythonUsesAsItIs) {
  nlohmann::json result = run_json(
      {"run", "--json", "--lang", "python", "--code",
       "import importlib.util, sys\n"
       "for name in ('sitecustomize', 'paddock_plots'):\n"
       "    path = importlib.util.cache_from_source('/work/.paddock/python/' + name + '.py')\n"
       "    data = open(path, 'rb').read()\n"
       "    # the interpreter's own magic, and flags 1: hash-based, not checked against the "
       "source\n"
       "    print(name, data[:4] == importlib.util.MAGIC_NUMBER, int.from_bytes(data[4:8], "
       "'little'))\n"
       "print(sys.modules['sitecustomize'].__spec__.cached == importlib.util.cache_from_source("
       "'/work/.paddock/python/sitecustomize.py'))\n"});
  EXPECT_EQ(result["stdout"], "sitecustomize True 1\npaddock_plots True 1\nTrue\n")
      << result.dump();
}

TEST(Plots, EveryRGraphicsPageBecomesAPng) {
  nlohmann::json result = run_json({"run", "--json", "--lang", "r", "--code",
                                    "plot(1:10)\nhist(c(1, 2, 2, 3))\ncat('done\\n')\n"});
  EXPECT_EQ(result["stdout"], "done\n");
  EXPECT_EQ(artifact_names(result), (std::vector<std::string>{".paddock/plots/figure-1.png",
                                                              ".paddock/plots/figure-2.png"}));
}

TEST(Plots, FilesWrittenToOutputsComeBack) {
  nlohmann::json result =
      run_json({"run", "--json", "--lang", "bash", "--code",
                "mkdir -p outputs && echo 'a,b' > outputs/table.csv && echo written"});
  ASSERT_EQ(artifact_names(result), (std::vector<std::string>{"outputs/table.csv"}));
  EXPECT_EQ(result["artifacts"][0]["mime_type"], "text/csv");
  EXPECT_EQ(result["artifacts"][0]["base64"], "YSxiCg==");
}

}  // namespace
}  // namespace paddock::testing::plots_test
