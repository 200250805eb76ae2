// Every built-in language policy (policies/*.json) through `paddock run --lang`, as a user meets
// it: hello world, stdin, runtime and compile errors, and the time and memory limits. One table
// holds each language's snippets; the tests are the same for all of them.

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/harness.h"

namespace paddock::testing::languages_test {
namespace {

// A language and the programs every test runs in it. The programs print (or name) fixed markers
// so that one set of checks fits all languages.
struct Language {
  std::string name;
  std::vector<std::string> aliases = {};  // other names --lang takes for it
  bool compiled = false;
  std::string hello;  // prints "Hello, World!\n" and nothing else
  // Prints "> LINE" for every line of stdin, then "N lines".
  std::string echo_stdin;
  // Fails at run time with "boom-runtime" in its message.
  std::string runtime_error;
  // Does not compile because of the undeclared name undefinedBoom (compiled languages only; the
  // others leave it out).
  std::string compile_error = "";
  // Prints (and flushes) "spinning", then loops for ever.
  std::string busy_loop;
  // Allocates and touches memory 1 MiB at a time, up to 1 GiB, printing (and flushing)
  // "allocated 32" once 32 MiB are in use: far beyond the test's --memory, modest before.
  std::string grow_memory;
};

const std::vector<Language>& languages() {
  static const std::vector<Language> kLanguages = {
      {
          .name = "python",
          .aliases = {"py", "python3"},
          .hello = "print('Hello, World!')\n",
          .echo_stdin = "import sys\n"
                        "lines = sys.stdin.read().splitlines()\n"
                        "for line in lines:\n"
                        "    print('> ' + line)\n"
                        "print(f'{len(lines)} lines')\n",
          .runtime_error = "raise RuntimeError('boom-runtime')\n",
          .busy_loop = "print('spinning', flush=True)\n"
                       "while True:\n"
                       "    pass\n",
          .grow_memory = "keep = []\n"
                         "for i in range(1, 1025):\n"
                         "    keep.append(b'x' * (1 << 20))\n"
                         "    if i == 32:\n"
                         "        print('allocated 32', flush=True)\n",
      },
      {
          .name = "javascript",
          .aliases = {"js", "node", "nodejs"},
          .hello = "console.log('Hello, World!');\n",
          .echo_stdin =
              "const lines = require('fs').readFileSync(0, 'utf8').split('\\n').filter((l) => l);\n"
              "for (const line of lines) console.log('> ' + line);\n"
              "console.log(`${lines.length} lines`);\n",
          .runtime_error = "throw new Error('boom-runtime');\n",
          .busy_loop = "console.log('spinning');\n"
                       "for (;;) {}\n",
          // Plain arrays, so that the V8 heap itself grows (and meets the policy's heap size).
          .grow_memory = "const keep = [];\n"
                         "for (let i = 1; i <= 1024; i++) {\n"
                         "  keep.push(new Array(1 << 17).fill(i));\n"
                         "  if (i === 32) console.log('allocated 32');\n"
                         "}\n",
      },
      {
          .name = "java",
          .compiled = true,
          .hello = "public class Main {\n"
                   "  public static void main(String[] args) {\n"
                   "    System.out.println(\"Hello, World!\");\n"
                   "  }\n"
                   "}\n",
          .echo_stdin = "import java.io.*;\n"
                        "import java.util.*;\n"
                        "public class Main {\n"
                        "  public static void main(String[] args) throws IOException {\n"
                        "    var in = new BufferedReader(new InputStreamReader(System.in));\n"
                        "    List<String> lines = new ArrayList<>();\n"
                        "    for (String line; (line = in.readLine()) != null;) lines.add(line);\n"
                        "    for (String line : lines) System.out.println(\"> \" + line);\n"
                        "    System.out.println(lines.size() + \" lines\");\n"
                        "  }\n"
                        "}\n",
          .runtime_error = "public class Main {\n"
                           "  public static void main(String[] args) {\n"
                           "    throw new IllegalStateException(\"boom-runtime\");\n"
                           "  }\n"
                           "}\n",
          .compile_error = "public class Main {\n"
                           "  public static void main(String[] args) {\n"
                           "    System.out.println(undefinedBoom);\n"
                           "  }\n"
                           "}\n",
          .busy_loop = "public class Main {\n"
                       "  public static void main(String[] args) {\n"
                       "    System.out.println(\"spinning\");\n"
                       "    while (true) {}\n"
                       "  }\n"
                       "}\n",
          .grow_memory = "public class Main {\n"
                         "  public static void main(String[] args) {\n"
                         "    byte[][] keep = new byte[1024][];\n"
                         "    for (int i = 0; i < 1024; i++) {\n"
                         "      keep[i] = new byte[1 << 20];\n"
                         "      java.util.Arrays.fill(keep[i], (byte) 1);\n"
                         "      if (i + 1 == 32) System.out.println(\"allocated 32\");\n"
                         "    }\n"
                         "  }\n"
                         "}\n",
      },
      {
          .name = "cpp",
          .aliases = {"c++", "cxx"},
          .compiled = true,
          .hello = "#include <iostream>\n"
                   "int main() { std::cout << \"Hello, World!\\n\"; }\n",
          .echo_stdin = "#include <iostream>\n"
                        "#include <string>\n"
                        "int main() {\n"
                        "  int count = 0;\n"
                        "  for (std::string line; std::getline(std::cin, line); ++count)\n"
                        "    std::cout << \"> \" << line << '\\n';\n"
                        "  std::cout << count << \" lines\\n\";\n"
                        "}\n",
          .runtime_error = "#include <stdexcept>\n"
                           "int main() { throw std::runtime_error(\"boom-runtime\"); }\n",
          .compile_error = "int main() { return undefinedBoom; }\n",
          // volatile: an empty infinite loop is undefined behaviour in C++.
          .busy_loop = "#include <iostream>\n"
                       "int main() {\n"
                       "  std::cout << \"spinning\" << std::endl;\n"
                       "  for (volatile int i = 0;; i = i + 1) {}\n"
                       "}\n",
          .grow_memory = "#include <iostream>\n"
                         "#include <vector>\n"
                         "int main() {\n"
                         "  std::vector<std::vector<char>> keep;\n"
                         "  for (int i = 1; i <= 1024; ++i) {\n"
                         "    keep.emplace_back(1 << 20, 'x');\n"
                         "    if (i == 32) std::cout << \"allocated 32\" << std::endl;\n"
                         "  }\n"
                         "}\n",
      },
      {
          .name = "c",
          .compiled = true,
          .hello = "#include <stdio.h>\n"
                   "int main(void) { puts(\"Hello, World!\"); return 0; }\n",
          .echo_stdin =
              "#include <stdio.h>\n"
              "int main(void) {\n"
              "  char line[256];\n"
              "  int count = 0;\n"
              "  for (; fgets(line, sizeof line, stdin); ++count) printf(\"> %s\", line);\n"
              "  printf(\"%d lines\\n\", count);\n"
              "  return 0;\n"
              "}\n",
          .runtime_error = "#include <assert.h>\n"
                           "int main(void) { assert(!\"boom-runtime\"); return 0; }\n",
          .compile_error = "int main(void) { return undefinedBoom; }\n",
          .busy_loop = "#include <stdio.h>\n"
                       "int main(void) {\n"
                       "  puts(\"spinning\");\n"
                       "  fflush(stdout);\n"
                       "  for (volatile int i = 0;; i = i + 1) {}\n"
                       "}\n",
          .grow_memory = "#include <stdio.h>\n"
                         "#include <stdlib.h>\n"
                         "#include <string.h>\n"
                         "int main(void) {\n"
                         "  for (int i = 1; i <= 1024; ++i) {\n"
                         "    char* chunk = malloc(1 << 20);\n"
                         "    if (chunk == NULL) {\n"
                         "      fprintf(stderr, \"out of memory after %d MiB\\n\", i - 1);\n"
                         "      return 1;\n"
                         "    }\n"
                         "    memset(chunk, 'x', 1 << 20);\n"
                         "    if (i == 32) printf(\"allocated 32\\n\"), fflush(stdout);\n"
                         "  }\n"
                         "  return 0;\n"
                         "}\n",
      },
      {
          .name = "go",
          .aliases = {"golang"},
          .compiled = true,
          .hello = "package main\n"
                   "import \"fmt\"\n"
                   "func main() { fmt.Println(\"Hello, World!\") }\n",
          .echo_stdin = "package main\n"
                        "import (\n"
                        "  \"bufio\"\n"
                        "  \"fmt\"\n"
                        "  \"os\"\n"
                        ")\n"
                        "func main() {\n"
                        "  count := 0\n"
                        "  for in := bufio.NewScanner(os.Stdin); in.Scan(); count++ {\n"
                        "    fmt.Println(\"> \" + in.Text())\n"
                        "  }\n"
                        "  fmt.Println(count, \"lines\")\n"
                        "}\n",
          .runtime_error = "package main\n"
                           "func main() { panic(\"boom-runtime\") }\n",
          .compile_error = "package main\n"
                           "import \"fmt\"\n"
                           "func main() { fmt.Println(undefinedBoom) }\n",
          .busy_loop = "package main\n"
                       "import \"fmt\"\n"
                       "func main() {\n"
                       "  fmt.Println(\"spinning\")\n"
                       "  for {\n"
                       "  }\n"
                       "}\n",
          .grow_memory = "package main\n"
                         "import \"fmt\"\n"
                         "func main() {\n"
                         "  var keep [][]byte\n"
                         "  for i := 1; i <= 1024; i++ {\n"
                         "    chunk := make([]byte, 1<<20)\n"
                         "    for j := range chunk {\n"
                         "      chunk[j] = 'x'\n"
                         "    }\n"
                         "    keep = append(keep, chunk)\n"
                         "    if i == 32 {\n"
                         "      fmt.Println(\"allocated 32\")\n"
                         "    }\n"
                         "  }\n"
                         "}\n",
      },
      {
          .name = "r",
          .aliases = {"rscript", "R"},
          .hello = "cat('Hello, World!\\n')\n",
          .echo_stdin = "lines <- readLines(file('stdin'))\n"
                        "for (line in lines) cat('> ', line, '\\n', sep = '')\n"
                        "cat(length(lines), ' lines\\n', sep = '')\n",
          .runtime_error = "stop('boom-runtime')\n",
          .busy_loop = "cat('spinning\\n')\n"
                       "flush(stdout())\n"
                       "repeat {}\n",
          .grow_memory = "keep <- list()\n"
                         "for (i in 1:1024) {\n"
                         "  keep[[i]] <- rep(as.raw(1), 2^20)\n"
                         "  if (i == 32) { cat('allocated 32\\n'); flush(stdout()) }\n"
                         "}\n",
      },
      {
          .name = "ruby",
          .aliases = {"rb"},
          .hello = "puts 'Hello, World!'\n",
          .echo_stdin = "lines = $stdin.readlines(chomp: true)\n"
                        "lines.each { |line| puts \"> #{line}\" }\n"
                        "puts \"#{lines.size} lines\"\n",
          .runtime_error = "raise 'boom-runtime'\n",
          .busy_loop = "$stdout.sync = true\n"
                       "puts 'spinning'\n"
                       "loop {}\n",
          .grow_memory = "$stdout.sync = true\n"
                         "keep = []\n"
                         "(1..1024).each do |i|\n"
                         "  keep << 'x' * (1 << 20)\n"
                         "  puts 'allocated 32' if i == 32\n"
                         "end\n",
      },
      {
          .name = "bash",
          .aliases = {"sh", "shell"},
          .hello = "echo 'Hello, World!'\n",
          .echo_stdin = "count=0\n"
                        "while IFS= read -r line; do\n"
                        "  echo \"> $line\"\n"
                        "  count=$((count + 1))\n"
                        "done\n"
                        "echo \"$count lines\"\n",
          .runtime_error = "set -e\n"
                           "boom-runtime\n"
                           "echo 'not reached'\n",
          .busy_loop = "echo spinning\n"
                       "while :; do :; done\n",
          // One growing string (bash has no other way to hold memory); 32 MiB first, then 1 GiB.
          .grow_memory = "s=$(head -c $((32 << 20)) /dev/zero | tr '\\0' x)\n"
                         "echo \"allocated $((${#s} >> 20))\"\n"
                         "s=$(head -c $((1024 << 20)) /dev/zero | tr '\\0' x)\n"
                         "echo \"allocated $((${#s} >> 20))\"\n",
      },
  };
  return kLanguages;
}

// gtest prints a failing test's parameter: the language's name, not the struct's bytes.
void PrintTo(const Language& language, std::ostream* out) {
  *out << language.name;
}

std::vector<Language> compiled_languages() {
  std::vector<Language> compiled;
  std::copy_if(languages().begin(), languages().end(), std::back_inserter(compiled),
               [](const Language& language) { return language.compiled; });
  return compiled;
}

const Language& language_named(const std::string& name) {
  return *std::find_if(languages().begin(), languages().end(),
                       [&](const Language& language) { return language.name == name; });
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `paddock run --lang NAME [options] --code CODE`.
CliResult run_code(const std::string& language, const std::string& code,
                   std::vector<std::string> options = {}) {
  std::vector<std::string> args = {"run", "--lang", language};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {"--code", code});
  return run_cli(args);
}

// The --json result; an empty object (and a failure) when there is none, so that the checks
// after it fail one by one instead of throwing.
nlohmann::json json_of(const CliResult& result) {
  nlohmann::json json = nlohmann::json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  if (json.is_object()) return json;
  ADD_FAILURE() << "not a JSON result: " << result.out << "\nstderr: " << result.err;
  return nlohmann::json::object();
}

std::string text_of(const nlohmann::json& json, const char* key) {
  return json.contains(key) && json[key].is_string() ? json[key].get<std::string>() : "";
}

class LanguageTest : public ::testing::TestWithParam<Language> {};
class CompiledLanguageTest : public ::testing::TestWithParam<Language> {};

TEST_P(LanguageTest, HelloWorldPrintsExactlyItsLine) {
  CliResult result = run_code(GetParam().name, GetParam().hello);
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "Hello, World!\n");
  EXPECT_EQ(result.err, "");  // no warnings from the toolchain or its memory flags
}

TEST_P(LanguageTest, ReadsStdin) {
  std::string path = ::testing::TempDir() + "/paddock-stdin-" + std::to_string(getpid());
  std::ofstream(path) << "alpha\nbeta gamma\n";
  CliResult result = run_code(GetParam().name, GetParam().echo_stdin, {"--stdin", path});
  std::remove(path.c_str());
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "> alpha\n> beta gamma\n2 lines\n") << result.err;
}

TEST_P(LanguageTest, RuntimeErrorFailsWithTheMessageOnStderr) {
  CliResult result = run_code(GetParam().name, GetParam().runtime_error, {"--json"});
  nlohmann::json json = json_of(result);
  EXPECT_NE(result.exit_status, 0);
  EXPECT_NE(result.exit_status, 125) << result.err;  // the program failed, not paddock
  EXPECT_EQ(json["exit_code"], result.exit_status);
  EXPECT_EQ(json["language"], GetParam().name);
  EXPECT_EQ(json["phase"], "run");
  EXPECT_TRUE(contains(text_of(json, "stderr"), "boom-runtime")) << text_of(json, "stderr");
}

TEST_P(LanguageTest, BusyLoopIsKilledAtTheTimeout) {
  // 5 s: the timer covers the compile too, and g++ on a loaded 2-core machine can take 2 s.
  CliResult result = run_code(GetParam().name, GetParam().busy_loop, {"--timeout", "5"});
  EXPECT_EQ(result.exit_status, 124) << result.err;
  // The program itself was spinning when the timeout struck, not its compiler.
  EXPECT_EQ(result.out, "spinning\n") << result.err;
}

// In rlimit mode the policy's runtime meets the per-process data limit and fails with its own
// out-of-memory error; in cgroup mode the kernel's OOM killer ends the sandbox. Either way the
// first 32 MiB work and the run fails well before 1 GiB.
TEST_P(LanguageTest, MemoryBeyondTheLimitFailsWhileModestAllocationsWork) {
  CliResult result =
      run_code(GetParam().name, GetParam().grow_memory, {"--json", "--memory", "256m"});
  nlohmann::json json = json_of(result);
  EXPECT_NE(result.exit_status, 0) << text_of(json, "stderr");
  EXPECT_NE(result.exit_status, 125) << result.err;
  EXPECT_EQ(json["timed_out"], false);
  EXPECT_EQ(json["phase"], "run") << text_of(json, "stderr");
  EXPECT_EQ(text_of(json, "stdout"), "allocated 32\n") << text_of(json, "stderr");
  // It failed for want of memory: the kernel says so, or the runtime does ("MemoryError",
  // "cannot allocate", "std::bad_alloc", "JavaScript heap out of memory"...).
  std::string error = text_of(json, "stderr");
  std::transform(error.begin(), error.end(), error.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  EXPECT_TRUE(json["oom_killed"] == true || contains(error, "memory") || contains(error, "alloc"))
      << text_of(json, "stderr");
}

// `--lang` takes the name and every alias, case-insensitively (R's users type "R").
TEST_P(LanguageTest, NameAndAliasesSelectIt) {
  std::vector<std::string> names = GetParam().aliases;
  names.push_back(GetParam().name);
  for (const auto& name : names) {
    CliResult shown = run_cli({"policy", "show", name});
    EXPECT_EQ(shown.exit_status, 0) << name << ": " << shown.err;
    EXPECT_EQ(json_of(shown)["name"], GetParam().name) << name;
  }
}

TEST_P(CompiledLanguageTest, CompileErrorIsAResultWithTheCompilersMessage) {
  CliResult result = run_code(GetParam().name, GetParam().compile_error, {"--json"});
  nlohmann::json json = json_of(result);
  EXPECT_NE(result.exit_status, 0);
  EXPECT_NE(result.exit_status, 125) << result.err;  // a result, not a paddock failure
  EXPECT_EQ(json["exit_code"], result.exit_status);
  EXPECT_EQ(json["language"], GetParam().name);
  EXPECT_EQ(json["phase"], "compile");
  EXPECT_TRUE(contains(text_of(json, "stderr"), "undefinedBoom")) << text_of(json, "stderr");
}

std::string language_name(const ::testing::TestParamInfo<Language>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(BuiltIn, LanguageTest, ::testing::ValuesIn(languages()), language_name);
INSTANTIATE_TEST_SUITE_P(BuiltIn, CompiledLanguageTest, ::testing::ValuesIn(compiled_languages()),
                         language_name);

TEST(Languages, EveryBuiltInPolicyIsListedAndValid) {
  CliResult list = run_cli({"policy", "list"});
  EXPECT_EQ(list.exit_status, 0) << list.err;
  std::set<std::string> listed;  // each line starts with a name: "cpp (c++, cxx): ..."
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    listed.insert(line.substr(0, line.find_first_of(" :")));
  }
  for (const auto& language : languages()) {
    EXPECT_EQ(listed.count(language.name), 1u) << language.name << " not in\n" << list.out;
    std::string file = source_dir() + "/policies/" + language.name + ".json";
    CliResult check = run_cli({"policy", "check", file});
    EXPECT_EQ(check.exit_status, 0) << file << ": " << check.err;
  }
}

TEST(Languages, JavaFileIsNamedAfterItsPublicClass) {
  CliResult result =
      run_code("java",
               "import java.util.List;\n"
               "class Helper { static String greet() { return \"from Greeter\"; } }\n"
               "public class Greeter {\n"
               "  public static void main(String[] args) {\n"
               "    System.out.println(Helper.greet() + \" \" + List.of(1, 2));\n"
               "  }\n"
               "}\n");
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "from Greeter [1, 2]\n") << result.err;
}

// What Go and Java would drop into a home directory or /tmp if their caches, GOPATH, temporary
// directories or perf data pointed outside the sandbox.
std::set<std::string> toolchain_droppings() {
  const passwd* user = getpwuid(geteuid());
  std::string home = user != nullptr ? user->pw_dir : "/nonexistent";
  std::set<std::string> found;
  for (const std::string& dir : {home, home + "/.cache", std::string("/tmp")}) {
    for (const auto& name : directory_entries(dir)) {
      for (const char* prefix : {"go", "hsperfdata", "hs_err", ".java", ".cache"}) {
        if (name.rfind(prefix, 0) == 0) found.insert(dir + "/" + name);
      }
    }
  }
  return found;
}

TEST(Languages, GoAndJavaCachesStayInsideTheSandbox) {
  const std::set<std::string> before = toolchain_droppings();
  for (const char* name : {"go", "java"}) {
    CliResult result = run_code(name, language_named(name).hello);
    EXPECT_EQ(result.exit_status, 0) << name << ": " << result.err;
  }
  std::vector<std::string> added;
  std::set<std::string> after = toolchain_droppings();
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(added));
  EXPECT_TRUE(added.empty()) << "new on the host: " << ::testing::PrintToString(added);
}

// A language paddock has never heard of, added by one policy file and no C++ (perl, whose
// interpreter every Debian machine has): it runs, its file is named by the policy's class_name
// rule, and screening reads its comments and imports as the policy's syntax says.
TEST(Languages, APolicyFileAloneAddsALanguage) {
  std::string policies = source_dir() + "/tests/data/policies";
  auto perl = [&](const std::string& code, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "--policy-dir", policies, "--lang", "perl"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--code", code});
    return run_cli(args);
  };
  CliResult hello = perl("print \"hello from perl\\n\"; print __FILE__, \"\\n\";");
  EXPECT_EQ(hello.exit_status, 0) << hello.err;
  EXPECT_EQ(hello.out, "hello from perl\nmain.pl\n") << hello.err;

  // The file is named after the package the code declares, not one in a comment.
  CliResult named = perl("# package Decoy;\npackage Greeter;\nprint __FILE__, \"\\n\";");
  EXPECT_EQ(named.exit_status, 0) << named.err;
  EXPECT_EQ(named.out, "Greeter.pl\n") << named.err;

  // A restricted module in a comment or a string is no import; the real one is refused.
  CliResult quiet = perl("# use Socket;\nprint \"use Socket;\\n\";");
  EXPECT_EQ(quiet.exit_status, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "use Socket;\n") << quiet.err;
  CliResult blocked = perl("use strict;\nuse Socket;\nprint \"never\\n\";");
  EXPECT_EQ(blocked.exit_status, 126) << blocked.out << blocked.err;
  EXPECT_EQ(blocked.out, "");
  EXPECT_NE(blocked.err.find("module:Socket, line 2"), std::string::npos) << blocked.err;

  CliResult checked = run_cli({"policy", "check", policies + "/perl.json"});
  EXPECT_EQ(checked.exit_status, 0) << checked.out << checked.err;
}

}  // namespace
}  // namespace paddock::testing::languages_test
