#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "config/settings.h"
#include "language/builtin_policies.h"
#include "language/language_run.h"
#include "language/policy.h"
#include "language/policy_store.h"
#include "support/harness.h"

namespace paddock::policy_test {
namespace {

using nlohmann::json;

json minimal() {
  return json::parse(R"({"name": "toy", "source_file": "main.toy", "run": ["toy", "{file}"]})");
}

std::string error_of(const json& document) {
  auto policy = language::parse_policy(document, "toy.json", config::process_environment());
  EXPECT_FALSE(policy.ok());
  return policy.ok() ? "" : policy.error().message;
}

TEST(Policy, MinimalPolicyParses) {
  auto policy = language::parse_policy(minimal(), "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->name, "toy");
  EXPECT_TRUE(policy->compile.empty());
  EXPECT_EQ(policy->run_network, runtime::NetworkMode::kNone);
  EXPECT_EQ(policy->rootfs, "host");
}

TEST(Policy, EveryFieldIsRead) {
  json document = minimal();
  document["aliases"] = {"t"};
  document["compile"] = {"toyc", "{file}"};
  document["env"] = {{"TOY_HOME", "/work"}};
  document["limits"] = {{"timeout", "90s"}, {"memory", "1g"}, {"pids", 512},  {"cpus", 2},
                        {"cpu_time", "60"}, {"output", "2m"}, {"tmp", "128m"}};
  document["network"] = {{"run", "host"}, {"install", "user"}};
  document["install"] = {"toypkg", "install", "{libraries}"};
  document["install_env"] = {{"TOYPKG_CONFIG", "/dev/null"}};
  document["library_names"] = {{"pattern", "[a-z]+"}, {"hint", "a toy name"}};
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->install_env.at("TOYPKG_CONFIG"), "/dev/null");
  EXPECT_EQ(policy->library_pattern, "[a-z]+");
  EXPECT_EQ(policy->library_hint, "a toy name");
  EXPECT_EQ(policy->compile, (std::vector<std::string>{"toyc", "{file}"}));
  EXPECT_EQ(policy->env.at("TOY_HOME"), "/work");
  EXPECT_EQ(policy->limits.wall_seconds, 90.0);
  EXPECT_EQ(policy->limits.memory_bytes, 1ull << 30);
  EXPECT_EQ(policy->limits.pids, 512u);
  EXPECT_EQ(policy->limits.cpus, 2.0);
  EXPECT_EQ(policy->limits.output_bytes, 2u << 20);
  EXPECT_EQ(policy->run_network, runtime::NetworkMode::kHost);
  EXPECT_EQ(policy->install_network, "user");
}

TEST(Policy, AllowlistsAreReadAndChecked) {
  json document = minimal();
  document["install"] = {"toypkg", "{libraries}"};
  document["library_names"] = {{"pattern", "[a-z]+"}, {"hint", "a toy name"}};
  document["network"] = {{"install", "allowlist"},
                         {"install_allow", {"index.toy.org", "*.cdn.toy.org"}},
                         {"allow", {"api.toy.org:8443", "10.1.2.0/24"}}};
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->install_network, "allowlist");
  EXPECT_EQ(policy->install_allow, (std::vector<std::string>{"index.toy.org", "*.cdn.toy.org"}));
  EXPECT_EQ(policy->run_allow, (std::vector<std::string>{"api.toy.org:8443", "10.1.2.0/24"}));

  json no_hosts = minimal();
  no_hosts["network"] = {{"install", "allowlist"}};
  EXPECT_NE(error_of(no_hosts).find("/network/install_allow: must name"), std::string::npos);
  json bad_pattern = minimal();
  bad_pattern["network"] = {{"allow", {"ok.org", "*.com"}}};
  std::string message = error_of(bad_pattern);
  EXPECT_NE(message.find("toy.json: /network/allow/1: allowed host '*.com'"), std::string::npos)
      << message;
  json with_host_network = minimal();
  with_host_network["network"] = {{"run", "host"}, {"allow", {"ok.org"}}};
  EXPECT_NE(error_of(with_host_network).find("needs network.run none"), std::string::npos);
}

// PADDOCK_NPM_REGISTRY and friends: the installer is pointed at the mirror, and its allowlist is
// the mirror's host alone.
TEST(Policy, AMirrorInPaddocksEnvironmentReplacesThePackageIndex) {
  json document = minimal();
  document["install"] = {"toypkg", "{libraries}"};
  document["library_names"] = {{"pattern", "[a-z]+"}, {"hint", "a toy name"}};
  document["network"] = {
      {"install", "allowlist"},
      {"install_allow", {"index.toy.org"}},
      {"install_mirror", {{"variable", "PADDOCK_TEST_TOY_MIRROR"}, {"env", "TOY_INDEX"}}}};
  unsetenv("PADDOCK_TEST_TOY_MIRROR");
  auto plain = language::parse_policy(document, "toy.json", config::process_environment());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->install_allow, (std::vector<std::string>{"index.toy.org"}));
  EXPECT_EQ(plain->install_env.count("TOY_INDEX"), 0u);

  setenv("PADDOCK_TEST_TOY_MIRROR", "http://user:secret@10.0.0.5:3141/root/+simple/", 1);
  auto mirrored = language::parse_policy(document, "toy.json", config::process_environment());
  ASSERT_TRUE(mirrored.ok()) << mirrored.error().message;
  EXPECT_EQ(mirrored->install_allow, (std::vector<std::string>{"10.0.0.5:3141"}));
  EXPECT_EQ(mirrored->install_env.at("TOY_INDEX"),
            "http://user:secret@10.0.0.5:3141/root/+simple/");

  setenv("PADDOCK_TEST_TOY_MIRROR", "ftp://mirror.example/", 1);
  std::string message = error_of(document);
  EXPECT_NE(message.find("PADDOCK_TEST_TOY_MIRROR: 'ftp://mirror.example/' is not an http:// or "
                         "https:// URL"),
            std::string::npos)
      << message;
  unsetenv("PADDOCK_TEST_TOY_MIRROR");
}

TEST(Policy, ErrorsNameTheFileAndThePointer) {
  json missing_run = minimal();
  missing_run.erase("run");
  EXPECT_EQ(error_of(missing_run), "toy.json: /run: is missing");
  json bad_memory = minimal();
  bad_memory["limits"] = {{"memory", "12 parsecs"}};
  EXPECT_NE(error_of(bad_memory).find("toy.json: /limits/memory: "), std::string::npos);
  json bad_arg = minimal();
  bad_arg["run"] = {"toy", 3};
  EXPECT_EQ(error_of(bad_arg), "toy.json: /run/1: must be a string");
  json unknown = minimal();
  unknown["runn"] = {"x"};
  EXPECT_EQ(error_of(unknown), "toy.json: /runn: is not a known policy field");
  json bad_network = minimal();
  bad_network["network"] = {{"run", "bridge"}};
  EXPECT_NE(error_of(bad_network).find("/network/run"), std::string::npos);
  json bad_limit = minimal();
  bad_limit["limits"] = {{"memroy", "1g"}};
  EXPECT_NE(error_of(bad_limit).find("/limits/memroy"), std::string::npos);
  json escaping = minimal();
  escaping["source_file"] = "../../etc/passwd";
  EXPECT_NE(error_of(escaping).find("/source_file"), std::string::npos);
  json bad_seccomp = minimal();
  bad_seccomp["seccomp"] = {{"deny", {"not a name"}}};
  EXPECT_NE(error_of(bad_seccomp).find("/seccomp"), std::string::npos);
  json unknown_seccomp = minimal();
  unknown_seccomp["seccomp"] = {{"remove", {"mkdir"}}};
  EXPECT_NE(error_of(unknown_seccomp).find("/seccomp/remove"), std::string::npos);
  json bad_env = minimal();
  bad_env["env"] = {{"NOT VALID", "x"}};
  EXPECT_NE(error_of(bad_env).find("/env/NOT VALID"), std::string::npos);
}

TEST(Policy, AKernelIsReadWithItsEnvironmentAndCode) {
  json document = minimal();
  document["kernel"] = {
      {"name", "toy3"},       {"env", {{"TOY_BACKEND", "inline"}}}, {"unset_env", {"TOY_HOOK"}},
      {"startup", "setup()"}, {"after_install", "refresh()"},       {"grace", 5}};
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(policy->kernel.name, "toy3");
  EXPECT_EQ(policy->kernel.env, (std::vector<std::string>{"TOY_BACKEND=inline"}));
  EXPECT_EQ(policy->kernel.unset_env, (std::vector<std::string>{"TOY_HOOK"}));
  EXPECT_EQ(policy->kernel.startup, "setup()");
  EXPECT_EQ(policy->kernel.after_install, "refresh()");
  EXPECT_EQ(policy->kernel.grace_seconds, 5.0);
  EXPECT_TRUE(language::parse_policy(minimal(), "toy.json")->kernel.name.empty())
      << "no kernel: not live";
}

TEST(Policy, AKernelsMistakesNameTheirPointer) {
  auto with_kernel = [](json kernel) {
    json document = minimal();
    document["kernel"] = std::move(kernel);
    return document;
  };
  EXPECT_EQ(error_of(with_kernel({{"env", json::object()}})), "toy.json: /kernel/name: is missing");
  EXPECT_NE(error_of(with_kernel({{"name", "../python3"}})).find("/kernel/name"),
            std::string::npos);
  EXPECT_NE(error_of(with_kernel({{"name", "k"}, {"env", {{"NOT VALID", "x"}}}}))
                .find("/kernel/env/NOT VALID"),
            std::string::npos);
  EXPECT_NE(error_of(with_kernel({{"name", "k"}, {"grace", 0}})).find("/kernel/grace"),
            std::string::npos);
  EXPECT_NE(error_of(with_kernel({{"name", "k"}, {"argv", {"x"}}})).find("/kernel/argv"),
            std::string::npos);
  EXPECT_NE(error_of(with_kernel("python3")).find("/kernel: must be an object"), std::string::npos);
}

TEST(Policy, AWarmCallComesOnPipesOnlyToStreamsMadeAtTheStart) {
  json document = minimal();
  document["warm"] = {
      {"loader", "r/warm_start.R"}, {"streams", "from_start"}, {"channel", "pipes"}};
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_TRUE(policy->warm.streams_from_start);
  EXPECT_TRUE(policy->warm.call_on_pipes);
  document["warm"]["channel"] = "socket";
  EXPECT_FALSE(language::parse_policy(document, "toy.json")->warm.call_on_pipes);
  document["warm"] = {{"loader", "r/warm_start.R"}, {"channel", "pipes"}};
  EXPECT_EQ(error_of(document), "toy.json: /warm/channel: pipes needs \"streams\": \"from_start\"");
  document["warm"] = {{"loader", "r/warm_start.R"}, {"channel", "fifo"}};
  EXPECT_NE(error_of(document).find("/warm/channel"), std::string::npos);
}

TEST(PolicyStore, PythonAndRHaveKernelsAndCompiledLanguagesNone) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ((*store->find("python"))->kernel.name, "python3");
  EXPECT_EQ((*store->find("r"))->kernel.name, "ir");
  for (const char* language : {"c", "cpp", "java", "go", "bash"}) {
    EXPECT_TRUE((*store->find(language))->kernel.name.empty()) << language;
  }
}

TEST(PolicyStore, BuiltInLanguagesAreAllThere) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok()) << store.error().message;
  for (const char* name : {"python", "javascript", "java", "cpp", "c", "go", "r", "ruby", "bash"}) {
    auto policy = store->find(name);
    EXPECT_TRUE(policy.ok()) << name;
  }
  for (const char* alias : {"js", "node", "c++", "golang", "py", "PYTHON"}) {
    EXPECT_TRUE(store->find(alias).ok()) << alias;
  }
  auto unknown = store->find("cobol");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("python"), std::string::npos);  // lists what exists
}

class PolicyDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = ::testing::TempDir() + "/paddock-policies-" + std::to_string(getpid());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::string write(const std::string& name, const std::string& text) {
    std::string path = directory_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string directory_;
};

TEST_F(PolicyDirectory, LoadOneChecksOnlyTheLanguageAskedFor) {
  write("ruby.json", R"({"name": "ruby", "limits": {"pids": "many"}})");
  auto python = language::PolicyStore::load_one({directory_}, "py");  // by alias
  ASSERT_TRUE(python.ok()) << python.error().message;
  EXPECT_EQ(python->name, "python");
  auto ruby = language::PolicyStore::load_one({directory_}, "ruby");
  ASSERT_FALSE(ruby.ok());
  EXPECT_NE(ruby.error().message.find("/limits/pids"), std::string::npos);
  auto unknown = language::PolicyStore::load_one({directory_}, "cobol");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown language 'cobol'"), std::string::npos);
  write("zz.json", "{broken");  // every file is still read: broken JSON stops any run
  EXPECT_FALSE(language::PolicyStore::load_one({directory_}, "python").ok());
}

// load_one parses only the built-in policies that answer to the name by themselves: a file that
// gives a built-in language another alias must still bring that language's built-in fields.
TEST_F(PolicyDirectory, LoadOneFindsABuiltInLanguageByAnAliasAFileGivesIt) {
  write("python.json", R"({"name": "python", "aliases": ["snake"]})");
  auto python = language::PolicyStore::load_one({directory_}, "Snake");
  ASSERT_TRUE(python.ok()) << python.error().message;
  EXPECT_EQ(python->name, "python");
  EXPECT_EQ(python->source_file, "main.py");
  // The file's list replaced the built-in one.
  EXPECT_FALSE(language::PolicyStore::load_one({directory_}, "py").ok());
  auto unknown = language::PolicyStore::load_one({directory_}, "cobol");
  ASSERT_FALSE(unknown.ok());
  for (const char* known : {"bash", "java", "python", "ruby"}) {
    EXPECT_NE(unknown.error().message.find(known), std::string::npos) << unknown.error().message;
  }
}

TEST_F(PolicyDirectory, LaterFilesOverrideFieldByField) {
  write("python.json", R"({"name": "python", "limits": {"memory": "2g"}, "env": {"EXTRA": "1"}})");
  auto store = language::PolicyStore::load({directory_});
  ASSERT_TRUE(store.ok()) << store.error().message;
  const language::LanguagePolicy* python = *store->find("python");
  EXPECT_EQ(python->limits.memory_bytes, 2ull << 30);
  EXPECT_EQ(python->env.at("EXTRA"), "1");
  EXPECT_FALSE(python->run.empty());  // the built-in fields the override did not touch stay
  EXPECT_NE(python->origin.find(directory_), std::string::npos);
}

TEST_F(PolicyDirectory, ADroppedInFileAddsALanguage) {
  write("lua.json", R"({"name": "lua", "source_file": "main.lua", "run": ["lua", "{file}"]})");
  auto store = language::PolicyStore::load({directory_});
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_TRUE(store->find("lua").ok());
}

TEST_F(PolicyDirectory, ABrokenFileFailsTheLoadNamingIt) {
  std::string path = write("python.json", R"({"name": "python", "limits": {"pids": "many"}})");
  auto store = language::PolicyStore::load({directory_});
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find(path), std::string::npos);
  EXPECT_NE(store.error().message.find("/limits/pids"), std::string::npos);
  std::string bad_json = write("zz.json", "{nope");
  auto check = language::check_policy_file(bad_json);
  ASSERT_FALSE(check.ok());
  EXPECT_NE(check.error().message.find("not valid JSON"), std::string::npos);
}

TEST_F(PolicyDirectory, CheckMergesOverTheBuiltInOfTheSameName) {
  std::string override = write("python.json", R"({"name": "python", "limits": {"timeout": "5s"}})");
  auto checked = language::check_policy_file(override);
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  EXPECT_EQ(checked->limits.wall_seconds, 5.0);
  std::string incomplete = write("new.json", R"({"name": "new"})");
  EXPECT_FALSE(language::check_policy_file(incomplete).ok());
}

// policies/schema.json documents the format for people and editors; the parser is what enforces
// it. They must describe the same fields, and every built-in policy must use only those.
TEST(PolicySchema, DescribesExactlyTheFieldsTheParserKnows) {
  std::ifstream in(testing::source_dir() + "/policies/schema.json");
  json schema = json::parse(in);
  json document = minimal();
  for (const auto& [field, definition] : schema["properties"].items()) {
    if (field == "$schema") continue;
    json with_field = document;
    if (with_field.contains(field)) continue;
    with_field[field] = nullptr;  // the wrong type: the parser must name this very field
    auto parsed = language::parse_policy(with_field, "x.json");
    ASSERT_FALSE(parsed.ok()) << field;
    EXPECT_EQ(parsed.error().message.find("is not a known policy field"), std::string::npos)
        << field << ": " << parsed.error().message;
  }
  for (const auto& [field, definition] : schema["properties"]["limits"]["properties"].items()) {
    json with_limit = document;
    with_limit["limits"] = {{field, 2}};
    auto parsed = language::parse_policy(with_limit, "x.json");
    EXPECT_TRUE(parsed.ok()) << field << ": " << (parsed.ok() ? "" : parsed.error().message);
  }
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok());
  for (const auto& [file, text] : language::builtin_policy_texts()) {
    // Held: items() of a temporary would be read after the temporary is gone.
    json builtin = json::parse(text);
    for (const auto& [field, value] : builtin.items()) {
      EXPECT_TRUE(schema["properties"].contains(field)) << file << ": " << field;
    }
  }
}

TEST(LanguageRun, JavaFilesAreNamedAfterThePublicClass) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok());
  const language::LanguagePolicy& java = **store->find("java");
  EXPECT_EQ(language::class_name_of(java, "public class Hello { }"), "Hello");
  EXPECT_EQ(language::class_name_of(java, "import x;\npublic final class Greeter{}"), "Greeter");
  EXPECT_EQ(language::class_name_of(java, "class Hidden {}"), "Main");
  EXPECT_EQ(language::class_name_of(java, "// public class InAComment\nclass X{}"), "Main");
}

TEST(LanguageRun, WorkFilesAreTheCodesFileAndTheSupportFiles) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(language::language_work_files(**store->find("python")),
            (std::vector<std::string>{"main.py", ".paddock/python/paddock_plots.py",
                                      ".paddock/python/sitecustomize.py"}));
  EXPECT_EQ(language::language_work_files(**store->find("c")),
            (std::vector<std::string>{"main.c"}));
  // Java names its file after the code's class: without code, after the default one.
  EXPECT_EQ(language::language_work_files(**store->find("java")),
            (std::vector<std::string>{"Main.java"}));
}

// The code is the caller's: std::regex recursed once per character of `\s+` here and a few
// hundred kilobytes of blanks overflowed the stack, which took the whole MCP server down.
TEST(LanguageRun, TheClassNameIsFoundInLinearTimeWhateverTheCode) {
  auto store = language::PolicyStore::load({});
  ASSERT_TRUE(store.ok());
  const language::LanguagePolicy& java = **store->find("java");
  std::string blanks(4 << 20, ' ');
  EXPECT_EQ(language::class_name_of(java, "public" + blanks + "class Big {}"), "Big");
  EXPECT_EQ(language::class_name_of(java, "public final" + blanks + "class Far {}"), "Far");
  std::string finals;
  for (int i = 0; i < 200000; ++i) finals += "final ";
  EXPECT_EQ(language::class_name_of(java, "public " + finals + "record R() {}"), "R");
  EXPECT_EQ(language::class_name_of(java, "x" + blanks), "Main");
}

// The code chooses the name; a careless policy pattern must not let it choose a path or an
// option of the compiler.
TEST(LanguageRun, AClassNameThatIsAPathOrAnOptionFallsBackToTheDefault) {
  json document = minimal();
  document["source_file"] = "{class}.toy";
  document["class_name"] = {{"pattern", R"(class\s+(\S+))"}, {"default", "Main"}};
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_EQ(language::class_name_of(*policy, "class Fine"), "Fine");
  for (const char* code :
       {"class ../../etc/cron.d/x", "class a/b", "class ..", "class -e", "class --output=/tmp/x"}) {
    EXPECT_EQ(language::class_name_of(*policy, code), "Main") << code;
  }
}

TEST(Policy, HostEtcNamesOnlyPlainEntries) {
  for (const char* bad : {"../shadow", "shadow", "ssl/private", "passwd", "sudoers.d"}) {
    json document = minimal();
    document["host_etc"] = {"python3", bad};
    auto parsed = language::parse_policy(document, "toy.json");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.error().message.find("/host_etc/1"), std::string::npos)
        << parsed.error().message;
  }
  json document = minimal();
  document["host_etc"] = {"python3", "R"};
  auto parsed = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->host_etc, (std::vector<std::string>{"python3", "R"}));
}

TEST(LanguageRun, CodeBecomesAFileAndTheCompilerThePrelude) {
  json document = minimal();
  document["source_file"] = "{class}.toy";
  document["class_name"] = {{"pattern", R"(public\s+class\s+(\w+))"}};
  document["compile"] = {"toyc", "{file}"};
  document["run"] = {"toy", "{class}"};
  document["env"] = {{"A", "1"}};
  document["limits"] = {{"pids", 99}};
  auto policy = language::parse_policy(document, "toy.json");
  ASSERT_TRUE(policy.ok());
  auto spec = language::language_spec(*policy, "public class Widget {}", {"arg"});
  ASSERT_TRUE(spec.ok());
  const runtime::RunPlan& plan = spec->plan;
  std::vector<std::vector<std::string>> prelude(plan.steps.begin(), plan.steps.end() - 1);
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0].path, "Widget.toy");
  EXPECT_EQ(plan.files[0].content, "public class Widget {}");
  EXPECT_EQ(prelude, (std::vector<std::vector<std::string>>{{"toyc", "Widget.toy"}}));
  EXPECT_EQ(plan.program(), (std::vector<std::string>{"toy", "Widget", "arg"}));
  EXPECT_EQ(plan.env, (std::vector<std::string>{"A=1"}));
  EXPECT_EQ(spec->limits.pids, 99u);

  runtime::RunResult compile_failed;
  compile_failed.step = 0;
  EXPECT_EQ(language::label_result(*policy, compile_failed).phase, "compile");
  runtime::RunResult ran;
  ran.step = 1;
  language::LanguageRunResult labelled = language::label_result(*policy, ran);
  EXPECT_EQ(labelled.phase, "run");
  EXPECT_EQ(language::to_json(labelled)["language"], "toy");
}

}  // namespace
}  // namespace paddock::policy_test
