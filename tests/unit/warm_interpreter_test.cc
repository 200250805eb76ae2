// What decides whether a call takes a warm interpreter, and which (runtime/warm_interpreter.h,
// language/warm_spec.h), and the --preload setting.

#include "runtime/warm_interpreter.h"

#include <gtest/gtest.h>

#include "language/policy_store.h"
#include "language/spec_builder.h"
#include "language/warm_spec.h"

namespace paddock::testing::warm_interpreter_test {
namespace {

runtime::WarmInterpreter python_like() {
  runtime::WarmInterpreter interpreter;
  interpreter.program = {"python3", "-u", "main.py"};
  interpreter.env = {"PYTHONPATH=/work/.paddock/python", "MPLBACKEND=Agg"};
  interpreter.startup_variables = {"PYTHON*", "LD_*", "TZ"};
  return interpreter;
}

runtime::RunPlan plan_with(std::vector<std::string> env) {
  runtime::RunPlan plan;
  plan.steps = {{"python3", "-u", "main.py"}};
  plan.env = std::move(env);
  return plan;
}

TEST(WarmInterpreter, ACallFitsWhenItStartsTheInterpreterAlike) {
  runtime::WarmInterpreter interpreter = python_like();
  EXPECT_TRUE(runtime::fits(interpreter, plan_with(interpreter.env)));
  // Secrets and the caller's own variables do not change how python starts.
  EXPECT_TRUE(runtime::fits(
      interpreter, plan_with({"PYTHONPATH=/work/.paddock/python", "MPLBACKEND=Agg", "API_KEY=x"})));
}

TEST(WarmInterpreter, AStartupVariableOrAnotherValueOfTheLanguagesSendsItCold) {
  runtime::WarmInterpreter interpreter = python_like();
  auto env = interpreter.env;
  for (const char* set : {"PYTHONHASHSEED=0", "LD_PRELOAD=/work/x.so", "TZ=UTC"}) {
    auto with = env;
    with.push_back(set);
    EXPECT_FALSE(runtime::fits(interpreter, plan_with(with))) << set;
  }
  // The language's own variable, given another value later in the list (the last one wins).
  auto overridden = env;
  overridden.push_back("MPLBACKEND=pdf");
  EXPECT_FALSE(runtime::fits(interpreter, plan_with(overridden)));
  EXPECT_FALSE(runtime::fits(interpreter, plan_with({"MPLBACKEND=Agg"})));  // PYTHONPATH missing
}

TEST(WarmInterpreter, OnlyTheProgramItStandsForAlone) {
  runtime::WarmInterpreter interpreter = python_like();
  runtime::RunPlan other = plan_with(interpreter.env);
  other.steps = {{"python3", "main.py"}};
  EXPECT_FALSE(runtime::fits(interpreter, other));
  runtime::RunPlan two = plan_with(interpreter.env);
  two.steps.insert(two.steps.begin(), {"pip", "install", "x"});
  EXPECT_FALSE(runtime::fits(interpreter, two));
}

TEST(WarmInterpreter, PatternsMatchNamesOrPrefixes) {
  EXPECT_TRUE(runtime::matches_variable({"PYTHON*"}, "PYTHONPATH"));
  EXPECT_TRUE(runtime::matches_variable({"TZ"}, "TZ"));
  EXPECT_FALSE(runtime::matches_variable({"TZ"}, "TZDIR"));
  EXPECT_FALSE(runtime::matches_variable({"PYTHON*"}, "MYPYTHON"));
}

TEST(WarmSpec, TheDataLibrariesImportsChooseThePreloadedOne) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store) << store.error().message;
  const language::LanguagePolicy& python = **store->find("python");
  const auto& preload = python.warm.preload;
  ASSERT_FALSE(preload.empty());
  EXPECT_TRUE(language::wants_preload(python, preload, "import pandas as pd\n"));
  EXPECT_TRUE(language::wants_preload(python, preload, "import os, numpy.linalg\n"));
  EXPECT_TRUE(language::wants_preload(python, preload, "from sklearn.linear_model import Ridge\n"));
  EXPECT_TRUE(language::wants_preload(python, preload, "import seaborn\n"));
  EXPECT_FALSE(language::wants_preload(python, preload, "import os, sys\nprint('pandas')\n"));
  EXPECT_FALSE(language::wants_preload(python, preload, "print(1)"));
  EXPECT_FALSE(language::wants_preload(python, {}, "import pandas"));  // nothing preloaded
}

TEST(WarmSpec, TheLoaderTakesThePreloadListAndNothingOfACall) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store) << store.error().message;
  const language::LanguagePolicy& python = **store->find("python");
  auto empty = language::build_language_spec(python, language::CodeCall{},
                                             language::SpecOverrides{}, language::ImageSource{});
  ASSERT_TRUE(empty) << empty.error().message;
  auto interpreter =
      language::warm_interpreter(python, empty->shape, empty->plan, {"numpy", "pandas"});
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->program, (std::vector<std::string>{"python3", "-u", "main.py"}));
  EXPECT_EQ(interpreter->loader.path, "main.py");
  EXPECT_NE(interpreter->loader.content.find("[\"numpy\",\"pandas\"]"), std::string::npos);
  EXPECT_EQ(interpreter->loader.content.find("PADDOCK_PRELOAD"), std::string::npos);
  EXPECT_EQ(interpreter->env, empty->plan.env);
  // A CPU-time limit would count the preload against the call: no interpreter then.
  runtime::SandboxShape limited = empty->shape;
  limited.limits.cpu_seconds = 10;
  EXPECT_FALSE(warm_interpreter(python, limited, empty->plan, {}));
  // A compiled language has none.
  const language::LanguagePolicy& c = **store->find("c");
  auto c_empty = language::build_language_spec(c, language::CodeCall{}, language::SpecOverrides{},
                                               language::ImageSource{});
  ASSERT_TRUE(c_empty) << c_empty.error().message;
  EXPECT_FALSE(warm_interpreter(c, c_empty->shape, c_empty->plan, {}));
}

// R's loader learns the names of the variables it starts with (which the call has too, with the
// same values) and waits on pipes, its streams made at its start.
TEST(WarmSpec, RsLoaderNamesTheVariablesItStartsWithAndWaitsOnPipes) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store) << store.error().message;
  const language::LanguagePolicy& r = **store->find("r");
  auto empty = language::build_language_spec(r, language::CodeCall{}, language::SpecOverrides{},
                                             language::ImageSource{});
  ASSERT_TRUE(empty) << empty.error().message;
  auto interpreter = language::warm_interpreter(r, empty->shape, empty->plan, {});
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->program, (std::vector<std::string>{"Rscript", "main.R"}));
  EXPECT_TRUE(interpreter->streams_from_start);
  EXPECT_TRUE(interpreter->call_on_pipes);
  const std::string& text = interpreter->loader.content;
  EXPECT_EQ(text.find("PADDOCK_START_ENV"), std::string::npos);
  EXPECT_EQ(text.find("PADDOCK_PRELOAD"), std::string::npos);
  ASSERT_FALSE(empty->plan.env.empty());
  for (const auto& entry : empty->plan.env) {
    std::string name = entry.substr(0, entry.find('='));
    EXPECT_NE(text.find("\"" + name + "\""), std::string::npos) << name;
  }
  // Another language's loader, without the placeholder, is left as it is.
  const language::LanguagePolicy& ruby = **store->find("ruby");
  auto ruby_empty = language::build_language_spec(
      ruby, language::CodeCall{}, language::SpecOverrides{}, language::ImageSource{});
  ASSERT_TRUE(ruby_empty) << ruby_empty.error().message;
  auto ruby_interpreter = language::warm_interpreter(ruby, ruby_empty->shape, ruby_empty->plan, {});
  ASSERT_TRUE(ruby_interpreter);
  EXPECT_FALSE(ruby_interpreter->call_on_pipes);
  EXPECT_EQ(ruby_interpreter->loader.content.find("R_LIBS_USER"), std::string::npos);
}

TEST(WarmSpec, PreloadNamesAreDottedIdentifiers) {
  EXPECT_TRUE(language::check_preload_name("matplotlib.pyplot"));
  for (const char* bad : {"", "os; import x", "a..b", "../x", "1abc", "a-b"}) {
    auto checked = language::check_preload_name(bad);
    ASSERT_FALSE(checked) << bad;
    EXPECT_NE(checked.error().message.find("module name"), std::string::npos);
  }
}

}  // namespace
}  // namespace paddock::testing::warm_interpreter_test
