// Warm interpreters beyond python (policies' "warm" with "streams": "from_start": node, ruby
// and R, whose call comes on pipes), through a real `paddock mcp`, under the rules python's follow:
// the same probe prints the same warm and cold (argv, the script's name and path, environment,
// stdin, working directory, streams, descriptors, signal dispositions, limits, exit hooks, exit
// statuses and uncaught-error texts), a call with stdin or a start-up variable runs cold and
// correct, a waiting interpreter holds no secret, and one killed while it waits is replaced while
// the next call runs cold.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/warm_server.h"

namespace paddock::testing::warm_languages_test {
namespace {

using json = nlohmann::json;

struct WarmLanguage {
  std::string name;
  std::string program;  // how its interpreter's command line starts
  std::string probe;    // prints what it can see, leaves an exit hook, and fails uncaught
  std::vector<std::string> endings;  // other ways a program ends
  std::string compare_variable;      // prints whether $WARM_LANGUAGE_SECRET is SECRET
  std::string startup_variable;      // one that changes how the interpreter starts
  std::string startup_check;         // prints "in effect" when startup_variable=its value is
  std::string startup_value;
  std::string upper_stdin;  // prints its stdin in capitals
  std::string forty_two;    // prints 42
};

const char* kNodeProbe = R"PROBE(const fs = require('fs');
const lines = [];
const say = (...parts) => lines.push(parts.map((p) => JSON.stringify(p)).join(' '));
say('name', __filename, __dirname, process.argv, process.execArgv, process.argv0, process.title,
    require.main === module, module.id, module.paths, typeof module.parent);
say('cmdline', fs.readFileSync('/proc/self/cmdline', 'latin1'));
say('cwd', process.cwd(), process.umask(), process.getuid(), process.getgid(), process.getgroups());
say('env', Object.entries(process.env).sort());
say('stdin', fs.readFileSync(0, 'utf8'), fs.fstatSync(0).isCharacterDevice());
for (const fd of [1, 2]) say('stream', fd, fs.fstatSync(fd).isFIFO(), require('tty').isatty(fd));
say('cache', Object.keys(require.cache));
say('fds', fs.readdirSync('/proc/self/fd').length);
say('globals', Object.keys(globalThis).sort());
say('listeners', process.eventNames(), process.listenerCount('exit'));
say('signals', fs.readFileSync('/proc/self/status', 'utf8').split('\n')
    .filter((line) => /^Sig(Blk|Ign|Cgt)/.test(line)));
say('limits', fs.readFileSync('/proc/self/limits', 'utf8'));
say('stack', new Error('x').stack.split('\n').slice(1));
console.log(lines.join('\n'));
process.on('exit', (code) => console.log('exit hook', code));
fs.mkdirSync('outputs', { recursive: true });
fs.writeFileSync('outputs/probe.txt', 'written\n');
function fails() { throw new TypeError('probe failed on purpose'); }
fails();
)PROBE";

const char* kRubyProbe = R"PROBE(lines = []
say = ->(*parts) { lines << parts.map(&:inspect).join(" ") }
say.("name", $0, __FILE__, __dir__, $PROGRAM_NAME, ARGV, __method__, self.to_s, local_variables)
say.("cmdline", File.binread("/proc/self/cmdline"))
say.("cwd", Dir.pwd, File.umask, Process.uid, Process.gid, Process.groups)
say.("env", ENV.to_a.sort)
say.("stdin", $stdin.read, $stdin.stat.ftype, $stdin.tty?, $stdin.external_encoding, $stdin.sync)
[$stdout, $stderr].each do |s|
  say.("stream", s.fileno, s.sync, s.tty?, s.stat.ftype, s.external_encoding, s.binmode?)
end
say.("signals", File.read("/proc/self/status").lines.grep(/^Sig(Blk|Ign|Cgt)/))
say.("traps", %w[INT TERM HUP PIPE USR1 CHLD].map { |n| old = trap(n, "DEFAULT"); trap(n, old); [n, old] })
say.("limits", Process.constants.grep(/^RLIMIT_/).sort.map { |c| [c, Process.getrlimit(Process.const_get(c))] })
say.("fds", Dir.children("/proc/self/fd").size)
say.("names", Object.constants.size, Object.private_methods(false).sort, global_variables.size)
say.("defined", defined?(DATA), defined?(Socket), $LOAD_PATH.size, $LOADED_FEATURES.size)
say.("encoding", __ENCODING__, Encoding.default_external, Encoding.default_internal)
puts lines
at_exit { puts "at_exit ran" }
Dir.mkdir("outputs") rescue nil
unclosed = File.open("outputs/unclosed.txt", "w")
unclosed.write("flushed at exit\n")
def fails = raise(ArgumentError, "probe failed on purpose")
fails
)PROBE";

// R's, as a script run by Rscript sees itself. R_SESSION_TMPDIR, tempdir() and environments'
// addresses differ between any two runs: their shape is printed instead.
const char* kRProbe =
    R"PROBE(say <- function(...) cat(deparse(list(...), width.cutoff = 500L), sep = "\n")
env <- Sys.getenv()
env[["R_SESSION_TMPDIR"]] <- grepl("^/tmp/Rtmp", env[["R_SESSION_TMPDIR"]])
say("name", commandArgs(), commandArgs(TRUE), interactive(), sys.nframe(), sys.calls())
say("cmdline", readBin("/proc/self/cmdline", "raw", 4096L))
say("global", ls(globalenv(), all.names = TRUE), search(), sort(loadedNamespaces()),
    names(getLoadedDLLs()), exists(".Random.seed"))
say("cwd", getwd(), Sys.umask(), Sys.info()[["effective_user"]], .libPaths())
say("env", names(env), unname(env))
say("stdin", readLines("stdin"), isatty(stdin()))
say("streams", isatty(stdout()), isatty(stderr()), Sys.readlink(c("/proc/self/fd/0")))
say("fds", list.files("/proc/self/fd"))
say("script", readLines("main.R", n = 2L))
say("options", sort(names(options())), getOption("warn"), getOption("keep.source"),
    getOption("error"), deparse(getOption("device")), getOption("encoding"))
say("temp", grepl("^/tmp/Rtmp", tempdir()), dir.exists(tempdir()), list.files(tempdir()))
say("locale", Sys.getlocale(), l10n_info())
say("signals", grep("^Sig(Blk|Ign|Cgt)", readLines("/proc/self/status"), value = TRUE))
say("limits", readLines("/proc/self/limits"))
reg.finalizer(globalenv(), function(e) cat("finalizer ran\n"), onexit = TRUE)
plot(1:3)
dir.create("outputs", showWarnings = FALSE)
writeLines("written", "outputs/probe.txt")
warning("a warning first")
f <- function() stop("probe failed on purpose")
g <- function() f()
g()
)PROBE";

void PrintTo(const WarmLanguage& language, std::ostream* out) {
  *out << language.name;
}

const std::vector<WarmLanguage>& languages() {
  static const std::vector<WarmLanguage> all = {
      {"javascript",
       "node",
       kNodeProbe,
       {"console.log('ok')",
        "process.on('exit', (c) => console.log('bye', c));\nprocess.exitCode = 3;\n"
        "setTimeout(() => console.error('later'), 10);",
        "console.log('out'); process.exit(4);", "const x = ;",
        "Promise.reject(new Error('rejected'));",
        "process.kill(process.pid, 'SIGINT'); setTimeout(() => {}, 1000);",
        "process.stdin.on('data', (d) => console.log(d.length));\n"
        "process.stdin.on('end', () => console.log('end'));",
        "console.log('y'.repeat(3000000));", "setTimeout(() => {}, 5000);"},
       "console.log(process.env.WARM_LANGUAGE_SECRET === 'SECRET')",
       "NODE_OPTIONS",
       "console.log(process.noDeprecation ? 'in effect' : 'not')",
       "--no-deprecation",
       "process.stdin.on('data', (d) => process.stdout.write(d.toString().toUpperCase()))",
       "console.log(6 * 7)"},
      {"ruby",
       "ruby",
       kRubyProbe,
       {"puts 'ok'", "at_exit { puts 'bye' }\n$stderr.puts 'e'\nexit 3", "abort 'aborted here'",
        "def x(\n", "x = 1 +\nputs(\n", "puts DATA.read\np DATA.pos\n__END__\nhello data\n",
        "puts 1\nreturn\nputs 2", "raise Interrupt", "Process.kill('TERM', $$); sleep 1",
        "throw :nowhere", "$stdout.write('partial')\nexit!(4)", "puts 'y' * 3000000", "sleep 5"},
       "puts ENV['WARM_LANGUAGE_SECRET'] == 'SECRET'",
       "RUBYOPT",
       "puts($VERBOSE.nil? ? 'in effect' : 'not')",
       "-W0",
       "print $stdin.read.upcase",
       "puts 6 * 7"},
      {"r",
       "/usr/lib/R/bin/exec/R",
       kRProbe,
       {"cat('ok\\n')", "1 + 1\nx <- c(a = 2)\nx\ninvisible(3)", "quit(status = 3)",
        ".Last <- function() cat('last ran\\n')\ncat('a\\n')\nq(status = 4, runLast = TRUE)",
        "warning('careful')\ncat('after\\n')\nwarning('again')", "message('to stderr')", "x <- (\n",
        "cat(1)\nstop('halted')\ncat(2)", "stop('at the top')",
        "cat(readLines('main.R'), sep = '\\n')\n# the end",
        "tools::pskill(Sys.getpid(), tools::SIGTERM)\nSys.sleep(1)",
        "tools::pskill(Sys.getpid(), tools::SIGINT)\nSys.sleep(1)\ncat('on\\n')",
        "cat(readLines(file('stdin')), length(readLines('stdin')))",
        "plot(1:10)\nhist(c(1, 2, 2, 3))", "cat(strrep('y', 3000000))", "Sys.sleep(5)"},
       "cat(tolower(Sys.getenv('WARM_LANGUAGE_SECRET') == 'SECRET'), '\\n', sep = '')",
       "R_DEFAULT_PACKAGES",
       "cat(if ('package:stats' %in% search()) 'not\\n' else 'in effect\\n')",
       "base",
       "cat(toupper(readLines('stdin')), sep = '\\n')",
       "cat(6 * 7, '\\n', sep = '')"},
  };
  return all;
}

json call_of(const WarmLanguage& language, const std::string& code) {
  json call = {{"language", language.name}, {"code", code}};
  if (code.find("5000") != std::string::npos || code.starts_with("sleep 5") ||
      code.starts_with("Sys.sleep(5)")) {
    call["timeout"] = 1;
  }
  return call;
}

// What a result shows that a warm and a cold run must agree on.
json comparable(const json& result) {
  json shown = {{"stdout", result.value("stdout", "")},
                {"stderr", result.value("stderr", "")},
                {"exit_code", result.value("exit_code", -1)},
                {"timed_out", result.value("timed_out", false)}};
  for (const auto& artifact : result.value("artifacts", json::array())) {
    shown["artifacts"].push_back({artifact.value("path", ""), artifact.value("size", 0)});
  }
  return shown;
}

class WarmLanguageTest : public ::testing::TestWithParam<WarmLanguage> {
 protected:
  // A server whose pool keeps sandboxes of the language from the start (and none of python's),
  // after one call of the language, so that each call finds one whichever way the pool began.
  static std::unique_ptr<WarmServer> server(std::vector<std::string> flags) {
    flags.insert(flags.end(), {"--default-language", GetParam().name});
    auto made = std::make_unique<WarmServer>(flags);
    made->run(call_of(GetParam(), ""));
    return made;
  }

  // Whether each call after that first one ran warm.
  static std::vector<bool> later_runs(const WarmServer& server) {
    std::vector<bool> runs = server.warm_runs();
    if (!runs.empty()) runs.erase(runs.begin());
    return runs;
  }
};

// Every call alike on a server whose interpreters wait and on one that starts each call's, and
// every call but the first (which makes the pool keep one of its kind) warm.
TEST_P(WarmLanguageTest, CodeCannotTellAWarmOneFromANewProcess) {
  const WarmLanguage& language = GetParam();
  auto warm = server({"--warm", "1"});
  auto cold = server({"--warm", "0"});
  std::vector<std::string> codes = {language.probe};
  codes.insert(codes.end(), language.endings.begin(), language.endings.end());
  for (const std::string& code : codes) {
    settled_interpreters(warm->pid(), 1, language.program);
    json from_warm = warm->run(call_of(language, code), true);
    json from_cold = cold->run(call_of(language, code), true);
    EXPECT_EQ(comparable(from_warm).dump(1), comparable(from_cold).dump(1)) << "code:\n" << code;
  }
  EXPECT_EQ(later_runs(*warm), std::vector<bool>(codes.size(), true));
}

// Its streams were made when it started: a call with stdin runs cold, and reads it.
TEST_P(WarmLanguageTest, ACallWithStdinRunsColdAndReadsIt) {
  const WarmLanguage& language = GetParam();
  auto warm = server({"--warm", "1"});
  settled_interpreters(warm->pid(), 1, language.program);
  json call = call_of(language, language.upper_stdin);
  call["stdin"] = "the call's stdin\n";
  json result = warm->run(call);
  EXPECT_EQ(result.value("stdout", ""), "THE CALL'S STDIN\n") << result.dump();
  EXPECT_EQ(later_runs(*warm), (std::vector<bool>{false}));
}

// A call that gives a start-up variable (here the server passes its own through) runs cold,
// with the variable in effect.
TEST_P(WarmLanguageTest, ACallThatSetsAStartupVariableRunsColdWithItInEffect) {
  const WarmLanguage& language = GetParam();
  setenv(language.startup_variable.c_str(), language.startup_value.c_str(), 1);
  auto warm = server({"--warm", "1", "--pass-through-env", language.startup_variable});
  unsetenv(language.startup_variable.c_str());
  settled_interpreters(warm->pid(), 1, language.program);
  json result = warm->run(call_of(language, language.startup_check));
  EXPECT_EQ(result.value("stdout", ""), "in effect\n") << result.dump();
  EXPECT_EQ(later_runs(*warm), (std::vector<bool>{false}));
}

// A waiting interpreter holds none of the server's pass-through secret, in its command line,
// environment or (as root) memory; the call gets it, warm.
TEST_P(WarmLanguageTest, AWaitingOneHoldsNoSecret) {
  const WarmLanguage& language = GetParam();
  std::string secret = random_text("warm-secret-");
  setenv("WARM_LANGUAGE_SECRET", secret.c_str(), 1);
  auto warm = server({"--warm", "1", "--pass-through-env", "WARM_LANGUAGE_SECRET"});
  unsetenv("WARM_LANGUAGE_SECRET");
  std::size_t interpreters = 0;
  for (pid_t sandbox : settled_interpreters(warm->pid(), 1, language.program)) {
    for (pid_t pid : process_tree(sandbox)) {
      std::string state = readable_state(pid);
      if (state.starts_with(language.program)) ++interpreters;
      EXPECT_EQ(state.find(secret), std::string::npos) << "process " << pid << " holds it";
    }
  }
  if (geteuid() == 0) {
    EXPECT_EQ(interpreters, 1u);
  }
  std::string code = language.compare_variable;
  code.replace(code.rfind("SECRET"), 6, secret);
  json result = warm->run(call_of(language, code));
  EXPECT_EQ(result.value("stdout", ""), "true\n") << result.dump();
  EXPECT_EQ(later_runs(*warm), (std::vector<bool>{true}));
}

// An interpreter killed while it waits: the next call is answered correctly (cold, or warm if
// the pool saw the death first), and the pool holds a new one for the call after.
TEST_P(WarmLanguageTest, OneKilledWhileItWaitsIsReplaced) {
  const WarmLanguage& language = GetParam();
  auto warm = server({"--warm", "1"});
  for (pid_t sandbox : settled_interpreters(warm->pid(), 1, language.program)) {
    for (pid_t pid : process_tree(sandbox)) {
      if (readable_state(pid).starts_with(language.program)) kill(pid, SIGKILL);
    }
  }
  EXPECT_EQ(warm->run(call_of(language, language.forty_two)).value("stdout", ""), "42\n");
  settled_interpreters(warm->pid(), 1, language.program);
  EXPECT_EQ(warm->run(call_of(language, language.forty_two)).value("stdout", ""), "42\n");
  std::vector<bool> runs = later_runs(*warm);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[1]) << "the pool did not hold a new interpreter";
}

// What `call` prints on an R server (with `flags`) whose interpreter waits for it, after a first
// call that has the pool keep one, and on one that starts R for it.
struct Printed {
  std::string warm, cold;
};

Printed r_warm_and_cold(std::vector<std::string> flags, const json& call) {
  const WarmLanguage& r = languages().back();
  flags.insert(flags.end(), {"--default-language", "r", "--warm", "1"});
  WarmServer warm(flags);
  flags.back() = "0";
  WarmServer cold(flags);
  warm.run(call_of(r, ""));
  settled_interpreters(warm.pid(), 1, r.program);
  Printed printed{warm.run(call).value("stdout", ""), cold.run(call).value("stdout", "")};
  EXPECT_EQ(warm.warm_runs(), (std::vector<bool>{false, true}));
  return printed;
}

// R's start changes some of the variables it starts with (its ldpaths put R's own libraries
// before a policy's LD_LIBRARY_PATH): the call, which has them with the same values, gets what
// R's start made of them, as a cold run does, not the values it came with.
TEST(WarmR, KeepsWhatItsStartMadeOfTheVariablesItStartedWith) {
  char pattern[] = "/tmp/paddock-warm-r-policy-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string policies = pattern;
  std::ofstream(policies + "/r.json")
      << R"({"name": "r", "env": {"LD_LIBRARY_PATH": "/usr/lib/paddock-test"}})";
  chmod(policies.c_str(), 0755);
  chmod((policies + "/r.json").c_str(), 0644);
  Printed printed = r_warm_and_cold(
      {"--policy-dir", policies},
      call_of(languages().back(), "cat(Sys.getenv('LD_LIBRARY_PATH'), '\\n', sep = '')"));
  std::filesystem::remove_all(policies);
  EXPECT_TRUE(printed.cold.starts_with("/usr/lib/R/lib:") &&
              printed.cold.ends_with(":/usr/lib/paddock-test\n"))
      << printed.cold;
  EXPECT_EQ(printed.warm, printed.cold);
}

// R puts R_LIBS_USER (/work/R/library) on its library path at its start only where the folder
// exists. A call that brings files there gets it on its path, as in a cold run, where the files
// are written before R starts.
TEST(WarmR, ALibraryFolderTheCallBringsIsOnItsLibraryPath) {
  json call = call_of(languages().back(), "cat(.libPaths(), sep = '\\n')");
  call["files"] = json::array({{{"path", "R/library/.kept"}, {"content", ""}}});
  Printed printed = r_warm_and_cold({}, call);
  EXPECT_TRUE(printed.cold.starts_with("/work/R/library\n")) << printed.cold;
  EXPECT_EQ(printed.warm, printed.cold);
}

// A call that loads ggplot2 or dplyr takes an interpreter that loaded both before it came (the
// first such call runs cold and has the pool keep them), and prints what a new process that
// loads both prints: their attach messages, namespaces, search path and figures.
TEST(WarmR, CodeCannotTellAPreloadedOneFromANewProcess) {
  const WarmLanguage& r = languages().back();
  WarmServer warm({"--default-language", "r", "--warm", "1"});
  WarmServer cold({"--default-language", "r", "--warm", "0"});
  const std::string loads = "library(ggplot2)\nlibrary(dplyr)\n";
  warm.run(call_of(r, loads));
  std::vector<std::string> codes = {
      loads + r.probe,
      loads +
          "print(ggplot(data.frame(x = 1:3, y = c(2, 1, 3)), aes(x, y)) + geom_line())\n"
          "cat(nrow(filter(mtcars, cyl == 4)), '\\n')\nprint(sessionInfo()$otherPkgs |> names())",
  };
  // One of the two that wait has dplyr's library mapped (as root, who may read any maps).
  std::size_t preloaded = 0;
  for (pid_t sandbox : settled_interpreters(warm.pid(), 2, r.program)) {
    for (pid_t pid : process_tree(sandbox)) {
      std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
      std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
      if (text.find("/dplyr/libs/dplyr.so") != std::string::npos) ++preloaded;
    }
  }
  if (geteuid() == 0) {
    EXPECT_EQ(preloaded, 1u);
  }
  for (const std::string& code : codes) {
    settled_interpreters(warm.pid(), 2, r.program);
    json from_warm = warm.run(call_of(r, code), true);
    json from_cold = cold.run(call_of(r, code), true);
    EXPECT_EQ(comparable(from_warm).dump(1), comparable(from_cold).dump(1)) << "code:\n" << code;
  }
  EXPECT_EQ(warm.warm_runs(), (std::vector<bool>{false, true, true}));
}

// A call that brings its own dplyr (in /work/R/library, which R searches first) would load that
// one in a cold run: the preloaded interpreter, which holds the system's, ends before it takes
// the call, and the call runs cold.
TEST(WarmR, APackageTheCallBringsIsTheOneItLoads) {
  const WarmLanguage& r = languages().back();
  WarmServer warm({"--default-language", "r", "--warm", "1"});
  WarmServer cold({"--default-language", "r", "--warm", "0"});
  warm.run(call_of(r, "library(dplyr)"));
  settled_interpreters(warm.pid(), 2, r.program);
  json call = call_of(r, "library(dplyr)\ncat('attached', format(packageVersion('dplyr')), '\\n')");
  call["files"] = json::array(
      {{{"path", "R/library/dplyr/DESCRIPTION"}, {"content", "Package: dplyr\nVersion: 9.9.9\n"}}});
  json from_warm = warm.run(call, true);
  json from_cold = cold.run(call, true);
  EXPECT_NE(from_cold.value("exit_code", 0), 0) << from_cold.dump();
  EXPECT_EQ(comparable(from_warm).dump(1), comparable(from_cold).dump(1));
  EXPECT_EQ(warm.warm_runs(), (std::vector<bool>{false, false}));
}

std::string language_name(const ::testing::TestParamInfo<WarmLanguage>& language) {
  return language.param.name;
}

INSTANTIATE_TEST_SUITE_P(Languages, WarmLanguageTest, ::testing::ValuesIn(languages()),
                         language_name);

}  // namespace
}  // namespace paddock::testing::warm_languages_test
