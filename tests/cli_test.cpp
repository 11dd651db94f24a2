// The `ringlab` command line, end to end: the real binary (RINGLAB_BINARY) runs as a child
// process with stdout and stderr captured separately and a hard timeout. Every bad input must
// exit != 0 with exactly one stderr line "ringlab: error: ..." that names the offending value,
// without a signal and without hanging; a few good inputs must run and print what they promise.
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifndef RINGLAB_BINARY
#error "RINGLAB_BINARY must be defined as the path of the ringlab executable"
#endif
#ifndef RINGLAB_TEST_DATA
#error "RINGLAB_TEST_DATA must be defined as the path of tests/data"
#endif

namespace {

// ---------------------------------------------------------------------------------------------
// Running the binary

struct RunResult {
  std::vector<std::string> args;
  int exitCode = -1;  // valid when exited
  bool exited = false;
  int signal = 0;  // non-zero when killed by a signal
  bool timedOut = false;
  std::string out;
  std::string err;

  std::string command() const {
    std::string s = "ringlab";
    for (const std::string& a : args) s += " " + a;
    return s;
  }
  std::string describe() const {
    std::ostringstream os;
    os << "command: " << command() << "\n";
    if (timedOut) os << "TIMED OUT (killed)\n";
    if (exited) os << "exit status: " << exitCode << "\n";
    if (signal != 0) os << "killed by signal " << signal << "\n";
    os << "--- stdout ---\n" << out << "--- stderr ---\n" << err << "--------------";
    return os.str();
  }
};

std::string makeTempFile(const char* tag) {
  std::string path = ::testing::TempDir() + "ringlab_cli_" + tag + "_XXXXXX";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed for " + path);
  ::close(fd);
  return std::string(buf.data());
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Runs RINGLAB_BINARY with `args`; stdin is /dev/null, stdout and stderr go to temp files.
// A child still running after `timeoutSeconds` is killed with SIGKILL and reported as timed out.
RunResult runRinglab(std::vector<std::string> args, int timeoutSeconds = 60) {
  RunResult result;
  result.args = args;
  const std::string outPath = makeTempFile("out");
  const std::string errPath = makeTempFile("err");

  std::vector<std::string> argvStrings;
  argvStrings.push_back(RINGLAB_BINARY);
  for (const std::string& a : args) argvStrings.push_back(a);
  std::vector<char*> argv;
  for (std::string& s : argvStrings) argv.push_back(s.data());
  argv.push_back(nullptr);

  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(outPath.c_str(), O_WRONLY | O_TRUNC);
    const int err = ::open(errPath.c_str(), O_WRONLY | O_TRUNC);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::close(in);
    ::close(out);
    ::close(err);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timedOut = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  result.out = slurp(outPath);
  result.err = slurp(errPath);
  std::remove(outPath.c_str());
  std::remove(errPath.c_str());
  return result;
}

// `ringlab calibrate ARGS`, run again (up to 3 times in all) where it refused its measurement as
// too noisy to fit: at the small sizes these tests calibrate with, a test beside it on the other
// core can slope the line down, and calibrate then rightly writes nothing. Any other outcome is
// returned as it is.
RunResult runCalibrate(std::vector<std::string> args) {
  args.insert(args.begin(), "calibrate");
  RunResult r = runRinglab(args);
  for (int again = 0; again < 2 && r.exitCode != 0 &&
                      r.err.find("the measurement was too noisy to fit") != std::string::npos;
       ++again)
    r = runRinglab(args);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Checking the output

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> splitFields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string f; in >> f;) fields.push_back(f);
  return fields;
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `value` occurs in `text` as a whole token: not glued to letters or digits on either side, so
// that "0" is not found inside "1024" nor "8" inside "float128".
bool containsToken(const std::string& text, const std::string& value) {
  for (std::size_t pos = text.find(value); pos != std::string::npos;
       pos = text.find(value, pos + 1)) {
    const bool leftOk = pos == 0 || !isWordChar(text[pos - 1]) || !isWordChar(value.front());
    const std::size_t end = pos + value.size();
    const bool rightOk = end == text.size() || !isWordChar(text[end]) || !isWordChar(value.back());
    if (leftOk && rightOk) return true;
  }
  return false;
}

// A needle may list alternatives separated by '|': one of them must occur as a token.
bool containsAnyToken(const std::string& text, const std::string& needle) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = needle.find('|', start);
    if (containsToken(text, needle.substr(start, bar - start))) return true;
    if (bar == std::string::npos) return false;
    start = bar + 1;
  }
}

// The bad-input contract: no hang, no signal, exit status != 0, and stderr holds exactly one
// line, starting "ringlab: error:", that names every value in `needles`.
void expectCleanError(const RunResult& r, std::initializer_list<std::string> needles) {
  SCOPED_TRACE(r.describe());
  ASSERT_FALSE(r.timedOut) << "hung: killed after the timeout";
  ASSERT_EQ(r.signal, 0) << "crashed with a signal";
  ASSERT_TRUE(r.exited);
  EXPECT_NE(r.exitCode, 0) << "bad input accepted (exit status 0)";
  ASSERT_FALSE(r.err.empty()) << "no error message on stderr";
  EXPECT_EQ(r.err.back(), '\n') << "the error line is not terminated by a newline";
  const std::vector<std::string> lines = splitLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << "stderr must hold exactly one line";
  const std::string& line = lines.front();
  EXPECT_TRUE(startsWith(line, "ringlab: error:")) << "line: " << line;
  for (const std::string& needle : needles) {
    EXPECT_TRUE(containsAnyToken(line, needle))
        << "the error does not name '" << needle << "'; line: " << line;
  }
}

void expectSuccess(const RunResult& r) {
  SCOPED_TRACE(r.describe());
  ASSERT_FALSE(r.timedOut) << "hung: killed after the timeout";
  ASSERT_EQ(r.signal, 0) << "crashed with a signal";
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "") << "a successful run writes nothing to stderr";
}

std::size_t countLinesStartingWith(const std::string& text, const std::string& prefix) {
  std::size_t n = 0;
  for (const std::string& line : splitLines(text)) n += startsWith(line, prefix) ? 1 : 0;
  return n;
}

// Data rows of a bench table: the non-comment, non-empty lines. Columns: size count type redop
// then (time algbw busbw #wrong) out of place, then the same in place.
std::vector<std::vector<std::string>> benchRows(const std::string& out) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : splitLines(out)) {
    const std::vector<std::string> fields = splitFields(line);
    if (fields.empty() || startsWith(fields.front(), "#")) continue;
    rows.push_back(fields);
  }
  return rows;
}

// Checks every data row of a successful bench: 12 columns, the expected type, op and sizes, and
// both #wrong columns 0.
void expectCorrectBenchTable(const RunResult& r, const std::string& type, const std::string& op,
                             const std::vector<std::string>& sizes) {
  SCOPED_TRACE(r.describe());
  const auto rows = benchRows(r.out);
  ASSERT_EQ(rows.size(), sizes.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::vector<std::string>& row = rows[i];
    ASSERT_EQ(row.size(), 12u) << "row " << i;
    EXPECT_EQ(row[0], sizes[i]) << "row " << i;
    EXPECT_EQ(row[2], type) << "row " << i;
    EXPECT_EQ(row[3], op) << "row " << i;
    EXPECT_EQ(row[7], "0") << "out-of-place #wrong, row " << i;
    EXPECT_EQ(row[11], "0") << "in-place #wrong, row " << i;
  }
  EXPECT_EQ(countLinesStartingWith(r.out, "# wrong elements in total: 0"), 1u);
}

// ---------------------------------------------------------------------------------------------
// A small strict JSON parser (RFC 8259 grammar), enough to check what --json writes.

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> items;        // Array
  std::vector<std::string> keys;  // Object, in order, with `items` as the values
  const Json* find(const std::string& key) const {
    if (kind != Kind::Object) return nullptr;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &items[i];
    }
    return nullptr;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}
  Json parseDocument() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("invalid JSON at offset " + std::to_string(i_) + ": " + what);
  }
  void ws() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void literal(const char* word) {
    for (const char* p = word; *p; ++p) expect(*p);
  }
  bool digit() const { return std::isdigit(static_cast<unsigned char>(peek())) != 0; }
  Json value() {
    ws();
    Json v;
    switch (peek()) {
      case '{':
        v.kind = Json::Kind::Object;
        ++i_;
        ws();
        if (peek() == '}') {
          ++i_;
          return v;
        }
        for (;;) {
          ws();
          v.keys.push_back(string());
          ws();
          expect(':');
          v.items.push_back(value());
          ws();
          if (peek() == ',') {
            ++i_;
            continue;
          }
          expect('}');
          return v;
        }
      case '[':
        v.kind = Json::Kind::Array;
        ++i_;
        ws();
        if (peek() == ']') {
          ++i_;
          return v;
        }
        for (;;) {
          v.items.push_back(value());
          ws();
          if (peek() == ',') {
            ++i_;
            continue;
          }
          expect(']');
          return v;
        }
      case '"':
        v.kind = Json::Kind::String;
        v.string = string();
        return v;
      case 't':
        literal("true");
        v.kind = Json::Kind::Bool;
        v.boolean = true;
        return v;
      case 'f':
        literal("false");
        v.kind = Json::Kind::Bool;
        return v;
      case 'n':
        literal("null");
        return v;
      default:
        v.kind = Json::Kind::Number;
        v.number = number();
        return v;
    }
  }
  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++i_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          for (int k = 0; k < 4; ++k) {
            if (!std::isxdigit(static_cast<unsigned char>(peek()))) fail("bad \\u escape");
            ++i_;
          }
          out += '?';  // the code point itself is not needed here
          break;
        default:
          fail("bad escape");
      }
    }
  }
  double number() {
    const std::size_t start = i_;
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
    } else if (digit()) {
      while (digit()) ++i_;
    } else {
      fail("expected a value");
    }
    if (peek() == '.') {
      ++i_;
      if (!digit()) fail("expected a digit after '.'");
      while (digit()) ++i_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      if (!digit()) fail("expected an exponent");
      while (digit()) ++i_;
    }
    return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The binary is there at all (otherwise every other failure below is noise).

TEST(CliBinary, Exists) {
  EXPECT_EQ(::access(RINGLAB_BINARY, X_OK), 0) << RINGLAB_BINARY << " is not an executable";
}

// ---------------------------------------------------------------------------------------------
// bench: bad input

TEST(CliBenchBadInput, RanksZero) {
  expectCleanError(runRinglab({"bench", "-p", "0"}), {"0"});
}
TEST(CliBenchBadInput, RanksNegative) {
  expectCleanError(runRinglab({"bench", "-p", "-3"}), {"-3"});
}
TEST(CliBenchBadInput, RanksNotANumber) {
  expectCleanError(runRinglab({"bench", "-p", "abc"}), {"abc"});
}
TEST(CliBenchBadInput, RanksAboveMax) {
  expectCleanError(runRinglab({"bench", "-p", "5000"}), {"5000"});
}
TEST(CliBenchBadInput, UnknownDatatype) {
  expectCleanError(runRinglab({"bench", "-d", "float128"}), {"float128"});
}
TEST(CliBenchBadInput, UnknownOp) {
  expectCleanError(runRinglab({"bench", "-o", "median"}), {"median"});
}
TEST(CliBenchBadInput, SizeNotMultipleOfDatatype) {
  expectCleanError(runRinglab({"bench", "-b", "6", "-e", "6", "-d", "float32"}), {"6", "float32"});
}
TEST(CliBenchBadInput, SizeBadSuffix) {
  expectCleanError(runRinglab({"bench", "-b", "1X"}), {"1X"});
}
TEST(CliBenchBadInput, SizeOverflows64Bits) {
  expectCleanError(runRinglab({"bench", "-e", "99999999999999999999"}), {"99999999999999999999"});
}
TEST(CliBenchBadInput, MinAboveMax) {
  expectCleanError(runRinglab({"bench", "-b", "64", "-e", "8"}), {"64", "8"});
}
TEST(CliBenchBadInput, StepFactorOne) {
  expectCleanError(runRinglab({"bench", "-f", "1"}), {"1"});
}
TEST(CliBenchBadInput, ItersZero) {
  expectCleanError(runRinglab({"bench", "-n", "0"}), {"0"});
}
TEST(CliBenchBadInput, WarmupNegative) {
  expectCleanError(runRinglab({"bench", "-w", "-1"}), {"-1"});
}
TEST(CliBenchBadInput, CheckNegative) {
  expectCleanError(runRinglab({"bench", "-c", "-1"}), {"-1"});
}
TEST(CliBenchBadInput, RingOrderDuplicate) {
  expectCleanError(runRinglab({"bench", "-p", "4", "--ring-order", "0,1,1,3"}), {"0,1,1,3"});
}
TEST(CliBenchBadInput, RingOrderMissingRank) {
  expectCleanError(runRinglab({"bench", "-p", "4", "--ring-order", "0,1,2"}), {"0,1,2"});
}
TEST(CliBenchBadInput, RingOrderOutOfRange) {
  expectCleanError(runRinglab({"bench", "-p", "4", "--ring-order", "0,1,2,9"}), {"9"});
}
TEST(CliBenchBadInput, RingOrderNotANumber) {
  expectCleanError(runRinglab({"bench", "-p", "4", "--ring-order", "0,a,2,3"}), {"a"});
}
TEST(CliBenchBadInput, RingStrideSharesFactor) {
  expectCleanError(runRinglab({"bench", "-p", "8", "--ring-stride", "2"}),
                   {"2", "0,2,4,6", "period 4"});
}
TEST(CliBenchBadInput, RingOrderWithRingStride) {
  expectCleanError(
      runRinglab({"bench", "-p", "4", "--ring-order", "0,1,2,3", "--ring-stride", "3"}),
      {"--ring-order", "--ring-stride"});
}
TEST(CliBenchBadInput, UnknownAlgorithm) {
  expectCleanError(runRinglab({"bench", "--algo", "foo"}), {"foo"});
}
// The library says "ranks per node"; every command that takes --algo names the flag.
TEST(CliBenchBadInput, HierarchicalWithoutRanksPerNodeNamesTheFlag) {
  for (const char* command : {"bench", "verify"}) {
    expectCleanError(runRinglab({command, "-p", "4", "--algo", "hierarchical"}),
                     {"--algo hierarchical", "--ranks-per-node", "divisor of -p"});
  }
  expectCleanError(runRinglab({"sim", "--topo", "nodes=2,ranks=4", "--algo", "hierarchical"}),
                   {"--algo hierarchical", "--ranks-per-node", "divisor of -p"});
}
TEST(CliBenchBadInput, UnknownTransport) {
  expectCleanError(runRinglab({"bench", "--transport", "carrier-pigeon"}), {"carrier-pigeon"});
}
TEST(CliBenchBadInput, SegmentZero) {
  expectCleanError(runRinglab({"bench", "--segment", "0"}), {"0"});
}
// Far more than this machine has: a clear refusal before any allocation, not bad_alloc or OOM.
TEST(CliBenchBadInput, MaxBytesAboveMachineMemory) {
  expectCleanError(runRinglab({"bench", "-e", "1T"}), {"1T|1099511627776|1 TiB|1TiB"});
}
TEST(CliBenchBadInput, TimeoutZero) {
  expectCleanError(runRinglab({"bench", "--timeout", "0"}), {"0"});
}
TEST(CliBenchBadInput, UnknownOption) {
  expectCleanError(runRinglab({"bench", "--frobnicate"}), {"--frobnicate"});
}

// nccl-tests' flags that cannot apply to CPU ranks, or have another name here: each refused with
// the reason, short or long, whatever its value.
TEST(CliBenchBadInput, NcclTestsFlagsThatDoNotApplySayWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"-g", "GPUs"},   {"--ngpus", "GPUs"},
      {"-G", "CUDA"},   {"--cudagraph", "CUDA"},
      {"-t", "-p"},     {"-R", "host"},
      {"-D", "CPUs"},   {"-V", "GPU"},
      {"-x", "GPUs"},   {"-y", "CUDA"},
      {"-m", "-n"},     {"-I", "--samples"},
      {"-J", "--json"}, {"--output_file", "--json"},
      {"-r", "root"}};
  for (const auto& [flag, why] : cases) {
    SCOPED_TRACE(flag);
    expectCleanError(runRinglab({"bench", flag, "2"}), {"nccl-tests", why});
  }
}
TEST(CliBenchBadInput, AverageOutOfRange) {
  expectCleanError(runRinglab({"bench", "-a", "4"}), {"4", "-a/--average"});
  expectCleanError(runRinglab({"bench", "-a", "-1"}), {"-1"});
}
TEST(CliBenchBadInput, StepBytesWithStepFactor) {
  expectCleanError(runRinglab({"bench", "-i", "1K", "-f", "4"}), {"--stepbytes", "--stepfactor"});
}
TEST(CliBenchBadInput, StepBytesZero) {
  expectCleanError(runRinglab({"bench", "-i", "0"}), {"-i/--stepbytes", "0"});
}
TEST(CliBenchBadInput, StepBytesNotMultipleOfDatatype) {
  expectCleanError(runRinglab({"bench", "-b", "8", "-e", "64", "-i", "6"}), {"6", "float32"});
}
TEST(CliBenchBadInput, StepBytesGivesTooManySizes) {
  expectCleanError(runRinglab({"bench", "-b", "8", "-e", "1M", "-i", "8"}), {"131072", "10000"});
}
TEST(CliBenchBadInput, StatsUnknownOrRepeated) {
  expectCleanError(runRinglab({"bench", "--stats", "median,p99"}), {"p99", "median"});
  expectCleanError(runRinglab({"bench", "--stats", "min,min"}), {"min", "twice"});
}
TEST(CliBenchBadInput, AllIsBenchsOnly) {
  expectCleanError(runRinglab({"tune", "-d", "all"}), {"-d", "all"});
  expectCleanError(runRinglab({"sim", "--topo", "nodes=1,ranks=2", "-o", "all"}), {"-o", "all"});
}

// -i is a sweep flag: sim (and tune) walk the same linear sizes as bench.
TEST(CliSim, StepBytesIsALinearSweep) {
  const RunResult r =
      runRinglab({"sim", "--topo", "nodes=2,ranks=2", "-b", "1K", "-e", "3500", "-i", "1K"});
  expectSuccess(r);
  std::vector<std::string> sizes;
  for (const auto& row : benchRows(r.out)) sizes.push_back(row.front());
  EXPECT_EQ(sizes, (std::vector<std::string>{"1024", "2048", "3072"})) << r.out;
}

// A run of -d all is one record with several (dtype, op) cases: compare keeps each apart, a table
// each; bench --overlay, which draws one curve per file, says so instead of mixing them.
TEST(CliBench, SeveralCasesRefusedByCompareAndPlan) {
  const std::string path = makeTempFile("cases");
  const RunResult r = runRinglab({"bench", "-p", "2", "-b", "8", "-e", "8", "-n", "1", "-w", "0",
                                  "-d", "all", "-o", "sum", "--json", path});
  expectSuccess(r);
  const RunResult compared = runRinglab({"compare", path});
  expectSuccess(compared);
  EXPECT_NE(compared.out.find("# ring, p = 2, int8 sum, measured by ringlab bench"),
            std::string::npos)
      << compared.out;
  EXPECT_NE(compared.out.find("# ring, p = 2, float64 sum, measured by"), std::string::npos);
  const std::string svg = makeTempFile("svg");
  expectCleanError(runRinglab({"bench", "-p", "2", "-b", "8", "-e", "8", "-n", "1", "--svg", svg,
                               "--overlay", path}),
                   {"--overlay", path, "several"});
  std::remove(svg.c_str());
  expectCleanError(runRinglab({"bench", "-d", "all", "--svg", path}), {"--svg", "-d"});
  const RunResult planned =
      runRinglab({"plan", "--timeline", std::string(RINGLAB_TEST_DATA) + "/plan_timeline.csv", "-p",
                  "2", "--measured", path});
  std::remove(path.c_str());
  expectCleanError(planned, {path, "several"});
}

// ---------------------------------------------------------------------------------------------
// No subcommand, verify: bad input

// A bare `ringlab` shows what it can do: every command with its line, and where to start.
TEST(CliFirstContact, BareRinglabShowsTheCommands) {
  const RunResult r = runRinglab({});
  expectSuccess(r);
  for (const char* command : {"bench", "verify", "model", "calibrate", "compare", "tune", "launch",
                              "lab", "topo", "sim", "plan"}) {
    EXPECT_TRUE(containsToken(r.out, command)) << command << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("ringlab bench -p 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--help"), std::string::npos) << r.out;
}
TEST(CliFirstContact, BareTopoShowsItsCommands) {
  const RunResult r = runRinglab({"topo"});
  expectSuccess(r);
  for (const char* command : {"show", "search", "detect"})
    EXPECT_TRUE(containsToken(r.out, command)) << r.out;
}

// The parser's errors in ringlab's words: what was typed, and the nearest command or the flag the
// concept has here; never CLI11's "A subcommand is required" or "not expected".
TEST(CliFirstContact, MistypedCommandsGetTheNearest) {
  expectCleanError(runRinglab({"benchmark"}), {"benchmark", "did you mean bench?"});
  expectCleanError(runRinglab({"bnch", "-p", "2"}), {"bnch", "bench?"});
  expectCleanError(runRinglab({"simulate"}), {"simulate", "sim?"});
  expectCleanError(runRinglab({"topo", "shwo"}), {"shwo", "show"});
  expectCleanError(runRinglab({"frobnicate"}), {"frobnicate", "bench", "plan"});
  expectCleanError(runRinglab({"--foo"}), {"--foo", "bench"});
  // The options after a mistyped command are read as the nearest command's.
  expectCleanError(runRinglab({"benchmark", "--size", "1M"}),
                   {"bench?", "--size", "-b/--minbytes", "-e/--maxbytes"});
}
// Each case a clean one-line error holding every one of its substrings and none of `cli11`'s
// wordings.
using ErrorCase = std::pair<std::vector<std::string>, std::vector<std::string>>;
void expectErrorsSaying(const std::vector<ErrorCase>& cases,
                        std::initializer_list<const char*> cli11) {
  for (const auto& [args, needles] : cases) {
    const RunResult r = runRinglab(args);
    SCOPED_TRACE(r.command());
    expectCleanError(r, {});
    for (const std::string& needle : needles)
      EXPECT_NE(r.err.find(needle), std::string::npos) << needle << ": " << r.err;
    for (const char* words : cli11) EXPECT_EQ(r.err.find(words), std::string::npos) << r.err;
  }
}
TEST(CliFirstContact, UnknownOptionsGetTheFlagOfTheirConcept) {
  expectErrorsSaying(
      {
          {{"bench", "--size", "1M"}, {"--size", "-b/--minbytes", "-e/--maxbytes"}},
          {{"bench", "--size=1M"}, {"--size", "-b/--minbytes"}},
          {{"bench", "-np", "4"}, {"-np", "-p/--ranks"}},
          {{"bench", "--iter", "3"}, {"--iter", "-n/--iters"}},
          {{"bench", "--segmnt", "1M"}, {"--segmnt", "did you mean --segment?"}},
          {{"plan", "--out", "x.json"}, {"--out", "--json"}},
          {{"bench", "--model", "p.json"}, {"--model", "--profile"}},
          {{"bench", "--frobnicate"}, {"--frobnicate", "ringlab bench --help"}},
          {{"bench", "extra"}, {"extra", "ringlab bench"}},
      },
      {"not expected"});
}
TEST(CliFirstContact, ParserMessagesNameTheFlagAndWhatIsValid) {
  expectErrorsSaying(
      {
          {{"bench", "-p", "abc"}, {"-p/--ranks abc", "whole number"}},
          {{"bench", "-n", "1.5"}, {"-n/--iters 1.5", "whole number"}},
          {{"bench", "--json"}, {"--json needs a value"}},
          {{"bench", "--ring-order", "0,1", "--ring-stride", "1"},
           {"--ring-order and --ring-stride", "not both"}},
          {{"launch"}, {"launch", "command", "after --"}},
          {{"compare", "--nodes", "0"}, {"--nodes", "0", "1..65536"}},
      },
      {"Could not convert", "required", "excludes", "Value 0 not in range"});
}

// --transport mpi outside mpirun would be MPI's singleton, a job of one rank that measures nothing
// between ranks: refused (tests/bench_under_mpirun_test.sh checks the launch line it gives).
TEST(CliFirstContact, MpiWithoutALauncherIsRefused) {
  const RunResult r = runRinglab({"bench", "--transport", "mpi", "-b", "8", "-e", "8"});
  expectCleanError(r, {"mpi"});
  EXPECT_EQ(r.out, "") << "measured a job of one rank";
}

TEST(CliVerifyBadInput, RingStrideSharesFactor) {
  expectCleanError(runRinglab({"verify", "-p", "8", "--ring-stride", "2"}),
                   {"2", "0,2,4,6", "period 4"});
}
TEST(CliVerifyBadInput, UnknownCollective) {
  expectCleanError(runRinglab({"verify", "--collective", "gather"}), {"gather"});
}
TEST(CliVerifyBadInput, RanksZero) {
  expectCleanError(runRinglab({"verify", "-p", "0"}), {"0"});
}

// ---------------------------------------------------------------------------------------------
// Bad inputs beyond the original list, found while writing this suite; same contract.

// -f is unsigned: "-2" must not wrap to 2^64-2 and run a one-size sweep.
TEST(CliExtraBadInput, BenchStepFactorNegative) {
  expectCleanError(runRinglab({"bench", "-p", "2", "-b", "8", "-e", "8", "-n", "1", "-f", "-2"}),
                   {"-2"});
}
// 0 shares every factor with p; it must not silently mean "identity order".
TEST(CliExtraBadInput, BenchRingStrideZero) {
  expectCleanError(
      runRinglab({"bench", "-p", "8", "-b", "8", "-e", "8", "-n", "1", "--ring-stride", "0"}),
      {"0"});
}
TEST(CliExtraBadInput, VerifyRingStrideZero) {
  expectCleanError(runRinglab({"verify", "-p", "8", "--ring-stride", "0"}), {"0"});
}
// Seconds that round to 0 ms, or overflow the millisecond count: name what the user typed.
TEST(CliExtraBadInput, BenchTimeoutRoundsToZero) {
  expectCleanError(
      runRinglab({"bench", "-p", "2", "-b", "8", "-e", "8", "-n", "1", "--timeout", "0.0001s"}),
      {"0.0001|1e-04|1e-4"});
}
TEST(CliExtraBadInput, BenchTimeoutHuge) {
  expectCleanError(
      runRinglab({"bench", "-p", "2", "-b", "8", "-e", "8", "-n", "1", "--timeout", "1e300s"}),
      {"1e300|1e+300"});
}

// ---------------------------------------------------------------------------------------------
// Good inputs

TEST(CliVerify, StrideThreeOverEightRanks) {
  const RunResult r = runRinglab({"verify", "-p", "8", "--ring-stride", "3"});
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  EXPECT_EQ(countLinesStartingWith(r.out, "step"), 14u);  // 2(p-1)
  EXPECT_EQ(countLinesStartingWith(r.out, "verdict: valid"), 1u);
}

TEST(CliVerify, ReduceScatterFiveRanks) {
  const RunResult r = runRinglab({"verify", "-p", "5", "--collective", "reduce_scatter"});
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  EXPECT_EQ(countLinesStartingWith(r.out, "step"), 4u);  // p-1
  EXPECT_EQ(countLinesStartingWith(r.out, "verdict: valid"), 1u);
}

TEST(CliBench, Int32MaxThreeRanks) {
  const RunResult r = runRinglab({"bench", "-p", "3", "-b", "8", "-e", "4K", "-n", "2", "-w", "1",
                                  "-d", "int32", "-o", "max"});
  expectSuccess(r);
  expectCorrectBenchTable(r, "int32", "max",
                          {"8", "16", "32", "64", "128", "256", "512", "1024", "2048", "4096"});
}

TEST(CliBench, RooflinePricesEveryRow) {
  const RunResult r = runRinglab(
      {"bench", "-p", "3", "-b", "8", "-e", "4K", "-f", "8", "-n", "2", "-w", "1", "--roofline"});
  expectSuccess(r);
  expectCorrectBenchTable(r, "float32", "sum", {"8", "64", "512", "4096"});
  const std::size_t table = r.out.find("# roofline (inproc: 1 memory pass");
  ASSERT_NE(table, std::string::npos) << r.out;
  for (const char* size :
       {"\n#            8 ", "\n#           64 ", "\n#          512 ", "\n#         4096 "})
    EXPECT_NE(r.out.find(size, table), std::string::npos) << "no roofline row for" << size;
}

// A tcp bench of 1 KiB and 64 KiB float32 at `ranks` ranks with --roofline, and its JSON.
struct TcpRooflineRun {
  RunResult result;
  std::string json;
  Json doc;
};

TcpRooflineRun runTcpRoofline(const char* ranks) {
  const std::string path = makeTempFile("tcp_roofline");
  TcpRooflineRun run{
      runRinglab({"bench", "-p", ranks, "--transport", "tcp", "-b", "1K", "-e", "64K", "-f", "64",
                  "-n", "2", "-w", "1", "--roofline", "--json", path})};
  run.json = slurp(path);
  std::remove(path.c_str());
  try {
    run.doc = JsonParser(run.json).parseDocument();
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what() << "\n--- json ---\n" << run.json;
  }
  return run;
}

// tcp: a ring sends and receives in every step, so its wire bytes (n per rank at p = 2) go at the
// two-way loopback rate, measured beside the one-way one; the text and the JSON say so.
TEST(CliBench, TcpRooflineAtTheTwoWayLoopbackRate) {
  const TcpRooflineRun run = runTcpRoofline("2");
  expectSuccess(run.result);
  SCOPED_TRACE(run.result.describe() + "\n--- json ---\n" + run.json);
  EXPECT_NE(run.result.out.find("at the two-way rate ("), std::string::npos);
  const Json* roof = run.doc.find("roofline");
  ASSERT_NE(roof, nullptr);
  const Json* oneWay = roof->find("loopback_GBps");
  const Json* twoWay = roof->find("loopback_two_way_GBps");
  ASSERT_TRUE(oneWay && twoWay);
  EXPECT_GT(oneWay->number, 0);
  EXPECT_GT(twoWay->number, 0);
  // A ring of two is the pair: no ring measured.
  ASSERT_NE(roof->find("loopback_ring_connections"), nullptr);
  EXPECT_EQ(roof->find("loopback_ring_connections")->kind, Json::Kind::Null);
  const Json* rows = roof->find("rows");
  ASSERT_TRUE(rows && rows->items.size() == 2);
  for (const Json& row : rows->items) {
    const double size = row.find("size_bytes")->number;
    EXPECT_EQ(row.find("loopback_rate")->string, "two-way");
    // The rates' pass: calibrate's probe (blocks of an eighth, 4 KiB to 1 MiB) of a core's share
    // of both ranks' inputs and outputs (one rank's input and output on two cores or more; both
    // on one), measured here without a profile.
    const double cores = roof->find("cores")->number;
    const double workingSet = 4 * size / std::min(2.0, cores);
    EXPECT_EQ(row.find("pass_bytes")->number, std::clamp(workingSet / 8, 4096.0, 1048576.0));
    EXPECT_EQ(row.find("core_working_set_bytes")->number, workingSet);
    EXPECT_EQ(row.find("rates_from")->string, "measured");
    EXPECT_EQ(row.find("probed_working_set_bytes")->number, workingSet);
    EXPECT_EQ(row.find("wire_bytes")->number, size);
    EXPECT_EQ(row.find("two_way_wire_bytes")->number, size);
    const double wire = size / (twoWay->number * 1e9);
    const double reduced =
        row.find("reduce_bytes")->number / (row.find("reduce_GBps")->number * 1e9);
    // Both ranks' reductions on one core take twice one's.
    const double sharedReduce = 2 * reduced / std::min(2.0, cores);
    EXPECT_NEAR(row.find("roofline_us")->number, std::max({wire, reduced, sharedReduce}) * 1e6,
                1e-9 * row.find("roofline_us")->number);
  }
}

// tcp at p = 4: the loopback is also measured as a ring of four connections at once, and all
// ranks' bytes (6 x n for the ring) are no faster than the loopback's total rate, the most of the
// ring's, the pair's both ways and one way; each row says which rate priced it.
TEST(CliBench, TcpRooflineOfFourRanksSaysWhichRatePricedIt) {
  const TcpRooflineRun run = runTcpRoofline("4");
  expectSuccess(run.result);
  SCOPED_TRACE(run.result.describe() + "\n--- json ---\n" + run.json);
  EXPECT_NE(run.result.out.find("a ring's of 4 connections at once ("), std::string::npos);
  const Json* roof = run.doc.find("roofline");
  ASSERT_NE(roof, nullptr);
  ASSERT_NE(roof->find("loopback_ring_connections"), nullptr);
  EXPECT_EQ(roof->find("loopback_ring_connections")->number, 4);
  const double oneWay = roof->find("loopback_GBps")->number * 1e9;
  const double twoWay = roof->find("loopback_two_way_GBps")->number * 1e9;
  const double ring = roof->find("loopback_ring_GBps")->number * 1e9;
  ASSERT_GT(ring, 0);
  const double total = std::max({4 * ring, 2 * twoWay, oneWay});
  const std::string totalFrom = total == 4 * ring     ? "ring of 4"
                                : total == 2 * twoWay ? "all ranks, two-way"
                                                      : "all ranks, one-way";
  const Json* rows = roof->find("rows");
  ASSERT_TRUE(rows && rows->items.size() == 2);
  for (const Json& row : rows->items) {
    const double size = row.find("size_bytes")->number;
    EXPECT_EQ(row.find("wire_bytes")->number, 1.5 * size);  // 2(p-1)/p n per rank
    EXPECT_EQ(row.find("all_ranks_wire_bytes")->number, 6 * size);
    EXPECT_EQ(row.find("core_working_set_bytes")->number,
              8 * size / std::min(4.0, roof->find("cores")->number));
    const double busiest =
        std::max(1.5 * size / twoWay,
                 row.find("reduce_bytes")->number / (row.find("reduce_GBps")->number * 1e9));
    const double shared = 6 * size / total;
    EXPECT_EQ(row.find("loopback_rate")->string, shared > busiest ? totalFrom : "two-way");
    // The four ranks' reductions share the cores: on two, each rank reduces at half the rate.
    const double sharedReduce = 4 * row.find("reduce_bytes")->number /
                                (row.find("reduce_GBps")->number * 1e9) /
                                std::min(4.0, roof->find("cores")->number);
    EXPECT_EQ(row.find("cores_shared")->boolean, sharedReduce > std::max(busiest, shared));
    EXPECT_NEAR(row.find("roofline_us")->number, std::max({busiest, shared, sharedReduce}) * 1e6,
                1e-9 * row.find("roofline_us")->number);
  }
}

// CPU time per call beside wall time: at p = 2 over tcp on this host the ranks poll their sockets
// (busy-spin while ranks fit the cores), so each rank's CPU clock moves; the sum over ranks is at
// least the slowest rank's and at most p times it. The text says it in comment lines.
TEST(CliBench, CpuTimePerCallOfEveryRank) {
  const std::string path = makeTempFile("tcp_cpu");
  const RunResult r = runRinglab({"bench", "-p", "2", "--transport", "tcp", "-b", "1K", "-e", "64K",
                                  "-f", "64", "-n", "20", "-w", "1", "--json", path});
  const std::string json = slurp(path);
  std::remove(path.c_str());
  expectSuccess(r);
  SCOPED_TRACE(r.describe() + "\n--- json ---\n" + json);
  EXPECT_NE(r.out.find("# CPU time per call, out of place: each rank's CPU clock"),
            std::string::npos);
  const Json doc = JsonParser(json).parseDocument();
  const Json* rows = doc.find("rows");
  ASSERT_TRUE(rows && rows->items.size() == 2);
  for (const Json& row : rows->items) {
    for (const char* side : {"out_of_place", "in_place"}) {
      const Json* t = row.find(side);
      ASSERT_TRUE(t && t->find("cpu_max_us") && t->find("cpu_sum_us")) << side;
      const double most = t->find("cpu_max_us")->number, sum = t->find("cpu_sum_us")->number;
      EXPECT_GT(most, 0) << side;
      EXPECT_GE(sum, most) << side;
      EXPECT_LE(sum, 2 * most) << side;
    }
  }
}

TEST(CliBenchBadInput, RooflineOfMpiIsRefused) {
  expectCleanError(runRinglab({"bench", "--transport", "mpi", "--roofline"}), {"mpi"});
}

TEST(CliBench, Float16AvgSevenRanks) {
  const RunResult r = runRinglab(
      {"bench", "-p", "7", "-d", "float16", "-o", "avg", "-b", "2", "-e", "2K", "-n", "1"});
  expectSuccess(r);
  expectCorrectBenchTable(r, "float16", "avg",
                          {"2", "4", "8", "16", "32", "64", "128", "256", "512", "1024", "2048"});
}

TEST(CliBench, OneRank) {
  const RunResult r =
      runRinglab({"bench", "-p", "1", "-b", "8", "-e", "1M", "-f", "16", "-n", "2"});
  expectSuccess(r);
  expectCorrectBenchTable(r, "float32", "sum", {"8", "128", "2048", "32768", "524288"});
}

TEST(CliBench, JsonOutput) {
  const std::string path = makeTempFile("json");
  const RunResult r =
      runRinglab({"bench", "-p", "2", "-b", "1K", "-e", "1K", "-n", "1", "--json", path});
  const std::string text = slurp(path);
  std::remove(path.c_str());
  expectSuccess(r);
  SCOPED_TRACE(r.describe() + "\n--- json ---\n" + text);
  Json doc;
  try {
    doc = JsonParser(text).parseDocument();
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  ASSERT_EQ(doc.kind, Json::Kind::Object);
  const Json* run = doc.find("run");
  ASSERT_NE(run, nullptr) << "no \"run\"";
  ASSERT_EQ(run->kind, Json::Kind::Object);
  for (const char* key : {"ringlab_version", "transport", "algorithm", "ring_order", "p", "dtype",
                          "op", "host", "date"}) {
    EXPECT_NE(run->find(key), nullptr) << "run has no \"" << key << "\"";
  }
  if (const Json* p = run->find("p")) {
    EXPECT_EQ(p->kind, Json::Kind::Number);
    EXPECT_EQ(p->number, 2);
  }
  if (const Json* v = run->find("transport")) {
    EXPECT_EQ(v->string, "inproc");
  }
  if (const Json* v = run->find("algorithm")) {
    EXPECT_EQ(v->string, "ring");
  }
  if (const Json* v = run->find("ring_order")) {
    EXPECT_EQ(v->string, "0,1");
  }
  if (const Json* v = run->find("dtype")) {
    EXPECT_EQ(v->string, "float32");
  }
  if (const Json* v = run->find("op")) {
    EXPECT_EQ(v->string, "sum");
  }
  const Json* rows = doc.find("rows");
  ASSERT_NE(rows, nullptr) << "no \"rows\"";
  ASSERT_EQ(rows->kind, Json::Kind::Array);
  ASSERT_EQ(rows->items.size(), 1u);
  const Json& row = rows->items.front();
  ASSERT_EQ(row.kind, Json::Kind::Object);
  if (const Json* size = row.find("size_bytes")) {
    EXPECT_EQ(size->number, 1024);
  } else {
    ADD_FAILURE() << "row has no \"size_bytes\"";
  }
}

TEST(CliGeneral, Version) {
  const RunResult r = runRinglab({"--version"});
  expectSuccess(r);
  EXPECT_TRUE(startsWith(r.out, "ringlab ")) << r.describe();
}

TEST(CliGeneral, BenchHelp) {
  const RunResult r = runRinglab({"bench", "--help"});
  expectSuccess(r);
  EXPECT_NE(r.out.find("--ranks"), std::string::npos) << r.describe();
}

// ---------------------------------------------------------------------------------------------
// model, calibrate, compare: helpers

// A fixture under tests/data.
std::string dataFile(const std::string& name) {
  return std::string(RINGLAB_TEST_DATA) + "/" + name;
}

// A fresh directory (mkdtemp) for the files one test writes; removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "ringlab_cli_dir_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = buf.data();
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A whole field as a number; fails the test (and returns NaN) when it is not one.
double number(const std::string& field) {
  std::size_t used = 0;
  double value = std::nan("");
  try {
    value = std::stod(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != field.size() || field.empty()) {
    ADD_FAILURE() << "'" << field << "' is not a number";
    return std::nan("");
  }
  return value;
}

// The data line (not a '#' comment) whose first field is `first`; empty when there is none.
std::vector<std::string> rowStartingWith(const std::string& out, const std::string& first) {
  for (const auto& row : benchRows(out)) {
    if (row.front() == first) return row;
  }
  return {};
}

Json parseJsonOrFail(const std::string& text) {
  try {
    return JsonParser(text).parseDocument();
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what() << "\n--- text ---\n" << text;
    return Json{};
  }
}

// The model's parameters in the good-input runs below, and the closed forms they are checked
// against (no calibrated profile, so no host-contention factor applies).
constexpr double kAlphaUs = 5.0;
constexpr double kBandwidth = 12.5e9;  // bytes per second, per direction
constexpr double kGiB = 1073741824.0;
// Ring AllReduce of n bytes over p ranks: 2(p-1) steps, 2(p-1)/p n bytes sent per rank.
double ringSendBytes(int p, double n) {
  return 2.0 * (p - 1) / p * n;
}
double ringTimeUs(int p, double n, double alphaUs, double bandwidth) {
  return 2.0 * (p - 1) * alphaUs + ringSendBytes(p, n) / bandwidth * 1e6;
}

const std::vector<std::string> kModelledAlgorithms = {"ring", "recursive_doubling", "rabenseifner",
                                                      "binomial_tree"};

// ---------------------------------------------------------------------------------------------
// model: bad input

TEST(CliModelBadInput, RanksZero) {
  expectCleanError(runRinglab({"model", "-p", "0"}), {"0"});
}
TEST(CliModelBadInput, BandwidthZero) {
  expectCleanError(runRinglab({"model", "--bw", "0GB/s"}), {"0GB/s"});
}
TEST(CliModelBadInput, BandwidthNegative) {
  expectCleanError(runRinglab({"model", "--bw", "-5GB/s"}), {"-5GB/s"});
}
TEST(CliModelBadInput, BandwidthNotANumber) {
  expectCleanError(runRinglab({"model", "--bw", "fast"}), {"fast"});
}
TEST(CliModelBadInput, AlphaNegative) {
  expectCleanError(runRinglab({"model", "--alpha", "-1us"}), {"-1us"});
}
TEST(CliModelBadInput, AlphaUnknownUnit) {
  expectCleanError(runRinglab({"model", "--alpha", "3parsecs"}), {"3parsecs"});
}
TEST(CliModelBadInput, GammaNegative) {
  expectCleanError(runRinglab({"model", "--gamma", "-1ns"}), {"-1ns"});
}
TEST(CliModelBadInput, SizeNotMultipleOfDatatype) {
  expectCleanError(runRinglab({"model", "--size", "5", "-d", "float32"}), {"5", "float32"});
}
TEST(CliModelBadInput, SizeOverflows64Bits) {
  expectCleanError(runRinglab({"model", "--size", "99999999999999999999"}),
                   {"99999999999999999999"});
}
// 2^64 - 1 one-byte elements: the model's arithmetic would wrap (the ring priced at 0 us).
TEST(CliModelBadInput, SizePastTheModelLimit) {
  const RunResult r =
      runRinglab({"model", "-p", "3", "--size", "18446744073709551615", "-d", "int8"});
  expectCleanError(r, {"18446744073709551615", "9007199254740992"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
}
TEST(CliModelBadInput, ProfileMissing) {
  expectCleanError(runRinglab({"model", "--profile", "/nonexistent.json"}), {"/nonexistent.json"});
}
TEST(CliModelBadInput, ProfileMalformedJson) {
  const std::string path = dataFile("profile_malformed.json");
  expectCleanError(runRinglab({"model", "--profile", path}), {path});
}
TEST(CliModelBadInput, ProfileOtherFormatVersion) {
  const std::string path = dataFile("profile_format0.json");
  expectCleanError(runRinglab({"model", "--profile", path}), {path, "ringlab-profile/0"});
}
TEST(CliModelBadInput, ProfileLacksBeta) {
  const std::string path = dataFile("profile_no_beta.json");
  expectCleanError(runRinglab({"model", "--profile", path}), {path, "beta_s_per_byte"});
}
TEST(CliModelBadInput, BandwidthCountsUnknown) {
  // Named by its flag: the library takes the CLI's label for the input.
  expectCleanError(runRinglab({"model", "--bw-counts", "both"}),
                   {"--bw-counts 'both': valid are send and send+recv"});
}
TEST(CliModelBadInput, SweepMinAboveMax) {
  expectCleanError(runRinglab({"model", "--sweep", "-b", "64", "-e", "8"}), {"64", "8"});
}
TEST(CliModelBadInput, SweepWithVersusRanks) {
  expectCleanError(runRinglab({"model", "--sweep", "--vs-p"}), {"--sweep", "--vs-p"});
}
TEST(CliModelBadInput, VersusRanksMaxPOne) {
  expectCleanError(runRinglab({"model", "--vs-p", "--max-p", "1"}), {"1"});
}

// ---------------------------------------------------------------------------------------------
// calibrate: bad input (each writes, if anything, into a scratch directory, never the cwd)

TEST(CliCalibrateBadInput, ItersOne) {
  ScratchDir dir;
  expectCleanError(runRinglab({"calibrate", "-n", "1", "--json", dir.file("p.json")}), {"1"});
}
TEST(CliCalibrateBadInput, MinBytesZero) {
  ScratchDir dir;
  expectCleanError(runRinglab({"calibrate", "-b", "0", "--json", dir.file("p.json")}), {"0"});
}
TEST(CliCalibrateBadInput, MinAboveMax) {
  ScratchDir dir;
  expectCleanError(runRinglab({"calibrate", "-b", "64M", "-e", "8", "--json", dir.file("p.json")}),
                   {"64M", "8"});
}
TEST(CliCalibrateBadInput, MaxBytesAboveOneGiB) {
  ScratchDir dir;
  expectCleanError(runRinglab({"calibrate", "-e", "4G", "--json", dir.file("p.json")}), {"4G"});
}
TEST(CliCalibrateBadInput, OutInMissingDirectory) {
  expectCleanError(runRinglab({"calibrate", "--json", "/nonexistent-dir/x.json"}),
                   {"/nonexistent-dir/x.json"});
}
TEST(CliCalibrateBadInput, UnknownTransport) {
  ScratchDir dir;
  expectCleanError(runRinglab({"calibrate", "--transport", "udp", "--json", dir.file("p.json")}),
                   {"udp", "inproc, shm, tcp"});
}
TEST(CliCalibrateBadInput, RoundsZero) {
  ScratchDir dir;
  expectCleanError(runRinglab({"calibrate", "--rounds", "0", "--json", dir.file("p.json")}),
                   {"--rounds 0"});
}
TEST(CliCalibrateBadInput, OneRank) {
  ScratchDir dir;
  expectCleanError(runRinglab({"calibrate", "-p", "1", "--json", dir.file("p.json")}),
                   {"-p/--ranks 1"});
}

// A profile calibrated over another transport: refused by bench and plan unless
// --profile-any-transport says so; another p or host is said in one line.
TEST(CliProfileTransport, AnotherTransportIsRefusedUnlessAsked) {
  const std::string tcpProfile = std::string(RINGLAB_TEST_DATA) + "/profile_tcp_p2.json";
  const std::string timeline = std::string(RINGLAB_TEST_DATA) + "/plan_timeline.csv";
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"bench", "-p", "2", "-b", "1K", "-e", "1K", "-n", "1", "--profile",
                                 tcpProfile},
        std::vector<std::string>{"plan", "--timeline", timeline, "-p", "2", "--profile",
                                 tcpProfile}}) {
    expectCleanError(runRinglab(command),
                     {"was calibrated over tcp, this run uses inproc", "--profile-any-transport"});
    std::vector<std::string> anyway = command;
    anyway.push_back("--profile-any-transport");
    const RunResult r = runRinglab(anyway);
    ASSERT_TRUE(r.exited && r.exitCode == 0) << r.describe();  // plan says the note on stderr
    const std::string said = "note: profile " + tcpProfile +
                             " was calibrated with another transport tcp (this run: inproc), "
                             "host elsewhere (this run: ";
    EXPECT_NE((command[0] == "bench" ? r.out : r.err).find(said), std::string::npos)
        << r.describe();
  }
  // plan over the profile's own transport: no refusal; the host is still said.
  const RunResult same = runRinglab(
      {"plan", "--timeline", timeline, "-p", "2", "--profile", tcpProfile, "--transport", "tcp"});
  ASSERT_TRUE(same.exited && same.exitCode == 0) << same.describe();
  EXPECT_EQ(countLinesStartingWith(same.err, "ringlab: note: "), 1u) << same.describe();
  EXPECT_NE(same.err.find("another host elsewhere (this run: "), std::string::npos)
      << same.describe();
  expectCleanError(runRinglab({"plan", "--timeline", timeline, "--transport", "udp"}),
                   {"--transport 'udp'", "inproc, shm, tcp and mpi"});
}

// ---------------------------------------------------------------------------------------------
// compare: bad input

TEST(CliCompareBadInput, NoFileArgument) {
  expectCleanError(runRinglab({"compare"}), {"files|file|FILE|FILES"});
}
TEST(CliCompareBadInput, MissingFile) {
  expectCleanError(runRinglab({"compare", "/nonexistent.log"}), {"/nonexistent.log"});
}
TEST(CliCompareBadInput, EmptyFile) {
  const std::string path = dataFile("empty.log");
  expectCleanError(runRinglab({"compare", path}), {path, "empty"});
}
TEST(CliCompareBadInput, NeitherFormat) {
  const std::string path = dataFile("plain_text.txt");
  expectCleanError(runRinglab({"compare", path}), {path});
}
TEST(CliCompareBadInput, BenchJsonWithoutRows) {
  const std::string path = dataFile("bench_no_rows.json");
  expectCleanError(runRinglab({"compare", path}), {path, "rows"});
}
// all_gather_perf: redop "none"; the collective is not all_reduce.
TEST(CliCompareBadInput, AllGatherLog) {
  const std::string path = dataFile("nccl_all_gather_perf_8ranks.log");
  expectCleanError(runRinglab({"compare", path}), {path, "another collective"});
}
// reduce_scatter_perf: redop sum and root -1 like all_reduce, but count = size / sizeof / p and
// busbw = algbw (p-1)/p.
TEST(CliCompareBadInput, ReduceScatterLog) {
  const std::string path = dataFile("nccl_reduce_scatter_perf_8ranks.log");
  expectCleanError(runRinglab({"compare", path}), {path, "another collective"});
}
// The run stopped after three sizes: no "# Avg bus bandwidth" summary. Its rows are compared,
// and the table says what the log lacks.
TEST(CliCompareBadInput, AllReduceLogWithoutSummaryIsReadAndSaidSo) {
  const RunResult r = runRinglab(
      {"compare", dataFile("nccl_all_reduce_perf_truncated.log"), "--system", "dgx-h100"});
  expectSuccess(r);
  EXPECT_NE(r.out.find("# log: no '# Avg bus bandwidth' line"), std::string::npos) << r.out;
  EXPECT_EQ(benchRows(r.out).size(), 3u);
}
// The file ends in the middle of a row (no newline at the end): the row is left out, said so.
TEST(CliCompareBadInput, AllReduceLogCutMidRowIsReadAndSaidSo) {
  const RunResult r = runRinglab({"compare", dataFile("nccl_all_reduce_perf_cut_row.log")});
  expectSuccess(r);
  EXPECT_NE(r.out.find("is a row cut short or malformed, left out: '268435456 67108864 float "
                       "sum -1 2360.9 113.7'"),
            std::string::npos)
      << r.out;
}
// ringlab bench's table has nccl-tests' layout: compare asks for its --json record instead.
TEST(CliCompareBadInput, RinglabBenchTable) {
  ScratchDir dir;
  const std::string table = dir.file("bench.txt");
  const RunResult bench = runRinglab({"bench", "-p", "2", "-b", "1K", "-e", "1K", "-n", "1"});
  expectSuccess(bench);
  std::ofstream(table) << bench.out;
  expectCleanError(runRinglab({"compare", table}),
                   {table, "compare reads the JSON record bench writes, not its table"});
}
// OSU output never prints p; a log's rank lines and -p must agree.
TEST(CliCompareBadInput, RanksMissingOrContradicted) {
  const std::string osu = dataFile("osu/allreduce_v7.1_char_ompi13082.log");
  expectCleanError(runRinglab({"compare", osu}), {osu, "does not print p", "-p N"});
  expectCleanError(runRinglab({"compare", osu, "-p", "0"}), {"-p 0", "1..1048576"});
  const std::string log = dataFile("nccl_tests/h100_16ranks_mpirun.log");
  expectCleanError(runRinglab({"compare", log, "-p", "8"}),
                   {log, "-p 8 but the log says p = 16 (16 '#  Rank' lines)"});
}
// A profile written by `ringlab calibrate` itself (at its smallest settings) records the p it was
// measured at (job_ranks): compare says when the log ran another p.
TEST(CliCompare, ProfileMeasuredAtAnotherPIsSaid) {
  ScratchDir dir;
  const std::string profile = dir.file("p2.json");
  // Such a quick profile may be flagged UNSTABLE (a warning on stderr): only its p matters here.
  const RunResult cal =
      runCalibrate({"-p", "2", "-b", "8", "-e", "64K", "-n", "5", "--json", profile});
  ASSERT_EQ(cal.exitCode, 0) << cal.describe();
  const std::string log = dataFile("nccl_tests/h100_16ranks_mpirun.log");
  const RunResult c = runRinglab({"compare", log, "--profile", profile});
  ASSERT_EQ(c.exitCode, 0) << c.describe();
  EXPECT_NE(c.out.find("setup: the profile was measured for p = 2, the log ran p = 16"),
            std::string::npos)
      << c.describe();
}
// fp8 rows read as measurements and judged against a GPU system; a -p that the figures prove is
// accepted, one the rank lines contradict refused naming them.
TEST(CliCompare, Fp8RowsAndPartialRankLines) {
  const RunResult fp8 =
      runRinglab({"compare", dataFile("nccl_tests/fp8_e5m2_h100_rows_mscclpp646.log"), "--system",
                  "dgx-h100"});
  expectSuccess(fp8);
  EXPECT_NE(fp8.out.find("p = 8 from the figures"), std::string::npos) << fp8.describe();
  EXPECT_NE(fp8.out.find("# verdict:"), std::string::npos) << fp8.describe();
  const std::string gb200 = dataFile("gpu_logs/gb200_nvl72_rack_coreweave.log");
  expectSuccess(runRinglab({"compare", gb200, "-p", "72", "--system", "gpu=gb200,gpus=72"}));
  expectCleanError(runRinglab({"compare", gb200, "-p", "64"}),
                   {gb200, "-p 64 but the log says p >= 72 (a '#  Rank' line for rank 71)"});
}
TEST(CliCompareBadInput, BadProfile) {
  const std::string profile = dataFile("profile_malformed.json");
  expectCleanError(
      runRinglab({"compare", dataFile("nccl_all_reduce_perf_16ranks.log"), "--profile", profile}),
      {profile});
}

// ---------------------------------------------------------------------------------------------
// model: good input

const std::vector<std::string> kModelAtOneGiB = {
    "model", "-p", "8", "--size", "1G", "--alpha", "5us", "--bw", "12.5GB/s", "--gamma", "0"};

// Columns: algorithm steps send(B) send+recv(B) startup bandwidth reduce time [<- fastest].
TEST(CliModel, TableAtOneGiB) {
  const RunResult r = runRinglab(kModelAtOneGiB);
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  for (const std::string& algorithm : kModelledAlgorithms) {
    EXPECT_FALSE(rowStartingWith(r.out, algorithm).empty()) << "no row for " << algorithm;
  }
  const std::vector<std::string> ring = rowStartingWith(r.out, "ring");
  ASSERT_GE(ring.size(), 8u);
  EXPECT_EQ(ring[1], "14");                                                       // 2(p-1)
  EXPECT_EQ(ring[2], "1879048192");                                               // 2 (7/8) 2^30
  EXPECT_NEAR(number(ring[7]), ringTimeUs(8, kGiB, kAlphaUs, kBandwidth), 0.01);  // 150393.86
  EXPECT_NEAR(ringTimeUs(8, kGiB, kAlphaUs, kBandwidth), 150393.86, 0.01);
}

TEST(CliModel, JsonAtOneGiB) {
  std::vector<std::string> args = kModelAtOneGiB;
  args.push_back("--json");
  args.push_back("-");
  const RunResult r = runRinglab(args);
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  const Json doc = parseJsonOrFail(r.out);
  ASSERT_EQ(doc.kind, Json::Kind::Array);
  ASSERT_EQ(doc.items.size(), 4u);
  std::vector<std::string> seen;
  for (const Json& item : doc.items) {
    ASSERT_EQ(item.kind, Json::Kind::Object);
    const Json* algorithm = item.find("algorithm");
    ASSERT_NE(algorithm, nullptr) << "no \"algorithm\"";
    ASSERT_EQ(algorithm->kind, Json::Kind::String);
    seen.push_back(algorithm->string);
    SCOPED_TRACE(algorithm->string);
    const Json* steps = item.find("steps");
    ASSERT_NE(steps, nullptr) << "no \"steps\"";
    EXPECT_EQ(steps->kind, Json::Kind::Number);
    const Json* time = item.find("time_us");
    ASSERT_NE(time, nullptr) << "no \"time_us\"";
    EXPECT_EQ(time->kind, Json::Kind::Number);
    const Json* bytes = item.find("bytes_per_rank");
    ASSERT_NE(bytes, nullptr) << "no \"bytes_per_rank\"";
    ASSERT_EQ(bytes->kind, Json::Kind::Object);
    const Json* send = bytes->find("send");
    const Json* sendRecv = bytes->find("send+recv");
    ASSERT_NE(send, nullptr) << "bytes_per_rank has no \"send\"";
    ASSERT_NE(sendRecv, nullptr) << "bytes_per_rank has no \"send+recv\"";
    EXPECT_EQ(send->kind, Json::Kind::Number);
    EXPECT_EQ(sendRecv->kind, Json::Kind::Number);
    if (algorithm->string == "ring") {
      EXPECT_EQ(steps->number, 14);
      EXPECT_EQ(send->number, 1879048192.0);
      EXPECT_NEAR(time->number, ringTimeUs(8, kGiB, kAlphaUs, kBandwidth), 0.01);
    }
  }
  for (const std::string& algorithm : kModelledAlgorithms) {
    EXPECT_NE(std::find(seen.begin(), seen.end(), algorithm), seen.end())
        << "no object for " << algorithm;
  }
}

// 25 GB/s counted over both directions is 12.5 GB/s per direction: the same prediction, and a
// warning that says so.
TEST(CliModel, BandwidthCountingBothDirections) {
  const RunResult r = runRinglab({"model", "-p", "8", "--size", "1G", "--alpha", "5us", "--bw",
                                  "25GB/s", "--bw-counts", "send+recv", "--gamma", "0"});
  SCOPED_TRACE(r.describe());
  ASSERT_FALSE(r.timedOut);
  ASSERT_EQ(r.signal, 0);
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.exitCode, 0);
  const std::vector<std::string> lines = splitLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << "expected one warning line on stderr";
  EXPECT_NE(lines.front().find("warning"), std::string::npos);
  EXPECT_NE(lines.front().find("both directions"), std::string::npos);
  const std::vector<std::string> ring = rowStartingWith(r.out, "ring");
  ASSERT_GE(ring.size(), 8u);
  EXPECT_NEAR(number(ring[7]), ringTimeUs(8, kGiB, kAlphaUs, kBandwidth), 0.01);

  const RunResult perDirection = runRinglab(kModelAtOneGiB);
  expectSuccess(perDirection);
  const std::vector<std::string> reference = rowStartingWith(perDirection.out, "ring");
  ASSERT_GE(reference.size(), 8u);
  EXPECT_EQ(ring[7], reference[7]) << "--bw 25GB/s --bw-counts send+recv and --bw 12.5GB/s differ";
}

TEST(CliModel, SweepFindsCrossover) {
  const RunResult r = runRinglab({"model", "--sweep", "-p", "64", "-b", "4", "-e", "1G", "--alpha",
                                  "5us", "--bw", "12.5GB/s", "--gamma", "20GB/s"});
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  std::size_t crossovers = 0;
  for (const std::string& line : splitLines(r.out)) {
    if (startsWith(line, "#") && line.find(" -> ") != std::string::npos &&
        line.find(" at ") != std::string::npos) {
      ++crossovers;
    }
  }
  EXPECT_GE(crossovers, 1u) << "no crossover line ('A -> B at N B')";
  // One row per size, 4 B to 1 GiB by x2.
  EXPECT_EQ(benchRows(r.out).size(), 29u);
}

// The crossovers in JSON: the objects the lab's /api/model/sizes gives too.
TEST(CliModel, SweepJsonCrossoversAreObjects) {
  const RunResult r = runRinglab({"model", "--sweep", "-p", "64", "-b", "4", "-e", "1G", "--alpha",
                                  "5us", "--bw", "12.5GB/s", "--gamma", "20GB/s", "--json", "-"});
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  const Json doc = parseJsonOrFail(r.out);
  const Json* crossovers = doc.find("crossovers");
  ASSERT_NE(crossovers, nullptr);
  ASSERT_EQ(crossovers->kind, Json::Kind::Array);
  ASSERT_FALSE(crossovers->items.empty());
  for (const Json& c : crossovers->items) {
    ASSERT_EQ(c.kind, Json::Kind::Object);
    for (const char* key : {"from", "to"}) {
      ASSERT_NE(c.find(key), nullptr) << key;
      EXPECT_EQ(c.find(key)->kind, Json::Kind::String) << key;
    }
    ASSERT_NE(c.find("size_bytes"), nullptr);
    ASSERT_NE(c.find("count"), nullptr);
    EXPECT_EQ(c.find("size_bytes")->number, 4 * c.find("count")->number);  // float32
  }
}

// Columns: p steps startup bandwidth bandwidth/limit time.
TEST(CliModel, VersusRanks) {
  const RunResult r = runRinglab(
      {"model", "--vs-p", "--size", "1G", "--alpha", "5us", "--bw", "12.5GB/s", "--max-p", "256"});
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  const auto rows = benchRows(r.out);
  ASSERT_EQ(rows.size(), 8u);  // p = 2, 4, ..., 256
  double previousShare = 0;
  int expectedP = 2;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 6u);
    const int p = static_cast<int>(number(row[0]));
    EXPECT_EQ(p, expectedP);
    EXPECT_EQ(number(row[1]), 2.0 * (p - 1));
    EXPECT_NEAR(number(row[2]), 2.0 * (p - 1) * kAlphaUs, 0.005) << "startup at p = " << p;
    const double share = number(row[4]);
    EXPECT_GT(share, previousShare) << "bandwidth/limit does not grow at p = " << p;
    EXPECT_LT(share, 1.0) << "bandwidth/limit reaches 1 at p = " << p;
    previousShare = share;
    expectedP *= 2;
  }
}

// ---------------------------------------------------------------------------------------------
// calibrate -> model --profile -> bench --model

TEST(CliCalibrate, ProfileFeedsModelAndBench) {
  ScratchDir dir;
  const std::string profile = dir.file("profile.json");
  const RunResult cal = runCalibrate({"-b", "8", "-e", "4M", "-n", "20", "--json", profile});
  expectSuccess(cal);
  const std::string text = slurp(profile);
  {
    SCOPED_TRACE(cal.describe() + "\n--- profile ---\n" + text);
    const Json doc = parseJsonOrFail(text);
    ASSERT_EQ(doc.kind, Json::Kind::Object);
    for (const char* key : {"format", "alpha_s", "beta_s_per_byte", "gamma_s_per_byte"}) {
      EXPECT_NE(doc.find(key), nullptr) << "profile has no \"" << key << "\"";
    }
  }

  const RunResult model = runRinglab({"model", "--profile", profile});
  // A profile this quick may be flagged UNSTABLE on a busy machine: that warning is the only
  // stderr allowed.
  ASSERT_EQ(model.exitCode, 0) << model.describe();
  for (const std::string& line : splitLines(model.err))
    EXPECT_NE(line.find(" is UNSTABLE: "), std::string::npos) << model.describe();
  {
    SCOPED_TRACE(model.describe());
    for (const std::string& algorithm : kModelledAlgorithms) {
      EXPECT_FALSE(rowStartingWith(model.out, algorithm).empty()) << "no row for " << algorithm;
    }
  }

  const RunResult bench =
      runRinglab({"bench", "-p", "2", "-b", "1K", "-e", "4K", "-n", "2", "--profile", profile});
  expectSuccess(bench);
  SCOPED_TRACE(bench.describe());
  EXPECT_NE(bench.out.find("model(us)"), std::string::npos) << "no model(us) column";
  EXPECT_TRUE(bench.out.find("meas/model") != std::string::npos ||
              bench.out.find("oop/model") != std::string::npos)
      << "no measured/model column";
  const auto rows = benchRows(bench.out);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 15u) << "12 bench columns + model(us), oop/model, ip/model";
    const double modelUs = number(row[12]);
    EXPECT_GT(modelUs, 0);
    // ratio x model = time, within the rounding of the printed figures. model(us) is the in-place
    // prediction; oop/model is against the out-of-place one, which the table does not print and
    // which differs by the two gammas over the bytes reduced: under 1% at these sizes (a ratio in
    // the hundreds, as on a loaded machine, makes that visible).
    for (const auto& [time, ratio, unprinted] : {std::tuple{4, 13, 0.01}, std::tuple{8, 14, 0.0}}) {
      const double t = number(row[time]), q = number(row[ratio]);
      EXPECT_NEAR(q * modelUs, t, 0.05 * q + 0.005 * modelUs + 0.06 + unprinted * t)
          << "row " << row[0];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// compare: good input

// compare's table: size, oop model(us) out-of-place meas/model, ip model(us) in-place meas/model,
// and the regime that priced each model column (one regime here: the flags give no cache knee).
void expectConsistentComparisonRows(const std::vector<std::vector<std::string>>& rows) {
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 8u);
    EXPECT_EQ(row[7], "cache/cache") << "row " << row[0];
    for (const auto& [model, time, ratio] : {std::tuple{1, 2, 3}, std::tuple{4, 5, 6}}) {
      const double modelUs = number(row[model]);
      EXPECT_GT(modelUs, 0) << "row " << row[0];
      const double t = number(row[time]), q = number(row[ratio]);
      EXPECT_NEAR(q * modelUs, t, 0.005 * modelUs + 0.05 * q + 0.06) << "row " << row[0];
    }
  }
}

const std::vector<std::string> kCompareModelFlags = {"--alpha", "10us",    "--bw",
                                                     "25GB/s",  "--gamma", "0"};

TEST(CliCompare, NcclTestsLog16Ranks) {
  std::vector<std::string> args = {"compare", dataFile("nccl_all_reduce_perf_16ranks.log")};
  args.insert(args.end(), kCompareModelFlags.begin(), kCompareModelFlags.end());
  const RunResult r = runRinglab(args);
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  EXPECT_NE(r.out.find("p = 16"), std::string::npos) << "p not read as 16";
  const auto rows = benchRows(r.out);
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string> sizes = {"8", "1048576", "16777216", "268435456", "8589934592"};
  const std::vector<std::string> measured = {"135.8", "203.2", "977.6", "2360.9", "47535.0"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 8u);
    EXPECT_EQ(rows[i][0], sizes[i]);
    EXPECT_NEAR(number(rows[i][2]), number(measured[i]), 0.051) << "row " << sizes[i];
  }
  expectConsistentComparisonRows(rows);
  // Ring closed form at 16 MiB: 2(p-1) alpha + 2(p-1)/p n / bw = 300 + 1258.29 us.
  const std::vector<std::string> row = rowStartingWith(r.out, "16777216");
  ASSERT_EQ(row.size(), 8u);
  EXPECT_NEAR(number(row[1]), ringTimeUs(16, 16777216.0, 10.0, 25e9), 0.051);
  // And at every size whose element count splits evenly over 16 ranks.
  for (const auto& each : rows) {
    const double bytes = number(each[0]);
    if (std::fmod(bytes / 4, 16) != 0) continue;
    EXPECT_NEAR(number(each[1]), ringTimeUs(16, bytes, 10.0, 25e9), 0.051) << "row " << each[0];
  }
}

TEST(CliCompare, NcclTestsLogWithoutRootColumn) {
  std::vector<std::string> args = {"compare", dataFile("nccl_all_reduce_perf_noroot.log")};
  args.insert(args.end(), kCompareModelFlags.begin(), kCompareModelFlags.end());
  const RunResult r = runRinglab(args);
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  EXPECT_NE(r.out.find("p = 4"), std::string::npos) << "p not read as 4";
  const auto rows = benchRows(r.out);
  ASSERT_EQ(rows.size(), 6u);
  const std::vector<std::string> sizes = {"8", "1024", "65536", "1048576", "16777216", "134217728"};
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i][0], sizes[i]);
  expectConsistentComparisonRows(rows);
  const std::vector<std::string> row = rowStartingWith(r.out, "16777216");
  ASSERT_EQ(row.size(), 8u);
  EXPECT_NEAR(number(row[1]), ringTimeUs(4, 16777216.0, 10.0, 25e9), 0.051);
  EXPECT_NEAR(number(row[2]), 2415.6, 0.051);
}

TEST(CliCompare, TwoFilesTwoTables) {
  std::vector<std::string> args = {"compare", dataFile("nccl_all_reduce_perf_16ranks.log"),
                                   dataFile("nccl_all_reduce_perf_noroot.log")};
  args.insert(args.end(), kCompareModelFlags.begin(), kCompareModelFlags.end());
  const RunResult r = runRinglab(args);
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  EXPECT_NE(r.out.find("p = 16"), std::string::npos);
  EXPECT_NE(r.out.find("p = 4"), std::string::npos);
  EXPECT_EQ(benchRows(r.out).size(), 11u);
}

TEST(CliCompare, Svg) {
  ScratchDir dir;
  const std::string svg = dir.file("x.svg");
  std::vector<std::string> args = {"compare", dataFile("nccl_all_reduce_perf_16ranks.log"), "--svg",
                                   svg};
  args.insert(args.end(), kCompareModelFlags.begin(), kCompareModelFlags.end());
  const RunResult r = runRinglab(args);
  expectSuccess(r);
  const std::string text = slurp(svg);
  EXPECT_TRUE(startsWith(text, "<?xml")) << r.describe() << "\n--- svg ---\n"
                                         << text.substr(0, 200);
  EXPECT_NE(text.find("</svg>\n"), std::string::npos);  // pictures_test.cpp reads the chart back
}

// OSU output with -p: the out-of-place times, "-" for the in-place column OSU does not have.
TEST(CliCompare, OsuOutputWithRanks) {
  std::vector<std::string> args = {"compare", dataFile("osu/allreduce_v7.5_int_oci.log"), "-p",
                                   "144"};
  args.insert(args.end(), kCompareModelFlags.begin(), kCompareModelFlags.end());
  const RunResult r = runRinglab(args);
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  EXPECT_NE(r.out.find("# ring, p = 144, measured by OSU MPI Allreduce Latency Test v7.5"),
            std::string::npos);
  const auto rows = benchRows(r.out);
  ASSERT_EQ(rows.size(), 27u);
  const std::vector<std::string> row = rowStartingWith(r.out, "32768");
  ASSERT_EQ(row.size(), 8u);
  EXPECT_NEAR(number(row[2]), 3214.5, 0.051);
  EXPECT_EQ(row[5], "-");
  EXPECT_EQ(row[6], "-");
}

// A GPU log against a profile measured between CPU ranks for p = 2: said on the table.
TEST(CliCompare, SetupDifferencesSaid) {
  const RunResult r = runRinglab({"compare", dataFile("nccl_tests/h100_16ranks_mpirun.log"),
                                  "--profile", dataFile("plan_profile_p2.json")});
  expectSuccess(r);
  EXPECT_NE(r.out.find("# setup: the log ran on GPUs (NVIDIA H100 80GB HBM3), the profile was "
                       "measured over gloo (torch.distributed), 2 processes between CPU ranks on "
                       "test"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# setup: the profile was measured for p = 2, the log ran p = 16"),
            std::string::npos)
      << r.out;
}

TEST(CliCompare, BenchJson) {
  ScratchDir dir;
  const std::string json = dir.file("bench.json");
  const RunResult bench =
      runRinglab({"bench", "-p", "2", "-b", "1K", "-e", "4K", "-n", "2", "--json", json});
  expectSuccess(bench);
  std::vector<std::string> args = {"compare", json};
  args.insert(args.end(), kCompareModelFlags.begin(), kCompareModelFlags.end());
  const RunResult r = runRinglab(args);
  expectSuccess(r);
  SCOPED_TRACE(r.describe());
  EXPECT_NE(r.out.find("p = 2"), std::string::npos) << "p not read as 2";
  const auto rows = benchRows(r.out);
  ASSERT_EQ(rows.size(), 3u);
  const std::vector<std::string> sizes = {"1024", "2048", "4096"};
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i][0], sizes[i]);
  expectConsistentComparisonRows(rows);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// tune, bench --algo auto --tuned

TEST(CliTune, OneAlgorithmIsKeptAndSaysSo) {
  ScratchDir dir;
  const RunResult tune =
      runRinglab({"tune", "-p", "2", "--algos", "ring", "-b", "8", "-e", "64", "-f", "8", "-n", "2",
                  "--rounds", "2", "--json", dir.file("t.json")});
  expectSuccess(tune);
  EXPECT_NE(tune.out.find("# ring is the only algorithm measured: it is kept at every size"),
            std::string::npos)
      << tune.out;
  EXPECT_EQ(tune.out.find("Bonferroni"), std::string::npos) << tune.out;
}

TEST(CliTune, TableFeedsAutoAndExportsOpenMpiRules) {
  ScratchDir dir;
  const std::string table = dir.file("tune.json"), rules = dir.file("rules.conf");
  const RunResult tune =
      runRinglab({"tune", "-p", "3", "-b", "8", "-e", "64K", "-f", "64", "-n", "2", "--rounds", "2",
                  "--json", table, "--ompi-rules", rules, "--ompi-version", "5.0.7"});
  expectSuccess(tune);
  // Each time is the median over the iterations, as the harness takes it.
  EXPECT_NE(tune.out.find("out-of-place, median of 2 iterations"), std::string::npos) << tune.out;
  EXPECT_NE(tune.out.find("(rule-file-version-2 format, for Open MPI 5.0.7)"), std::string::npos)
      << tune.out;
  EXPECT_NE(tune.out.find("#   test -r /"), std::string::npos)
      << "the launch line checks the file, by its absolute path: " << tune.out;
  const std::string text = slurp(rules);
  EXPECT_TRUE(startsWith(text, "rule-file-version-2\n")) << text;
  EXPECT_NE(text.find("\n2 # collective id: allreduce\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n3 # communicator size\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n# bytes algorithm faninout segsize maxrequests\n0 "), std::string::npos)
      << "the first rule must start at 0 bytes: " << text;
  // The same table exported again, without measuring, for an older Open MPI and for MPICH.
  const std::string classic = dir.file("classic.conf"), mpich = dir.file("mpich.json");
  const RunResult exported =
      runRinglab({"tune", "--tuned", table, "--ompi-rules", classic, "--ompi-version", "4.1.4",
                  "--mpich-json", mpich, "--mpich-version", "4.0.2"});
  const std::string classicText = slurp(classic);
  if (text.find("# ring") != std::string::npos ||
      text.find("# binomial_tree") != std::string::npos) {
    // MPICH 4.0 has neither: refused, naming what it has.
    expectCleanError(exported, {"MPICH 4.0.2", "recursive_doubling, reduce_scatter_allgather"});
  } else {
    expectSuccess(exported);
    EXPECT_NE(slurp(mpich).find("\"comm_size<=3\""), std::string::npos);
  }
  EXPECT_EQ(classicText.find("rule-file-version"), std::string::npos) << classicText;
  EXPECT_NE(classicText.find("\n# bytes algorithm faninout segsize\n0 "), std::string::npos)
      << classicText;
  const RunResult bench = runRinglab({"bench", "-p", "3", "-b", "8", "-e", "64K", "-f", "64", "-n",
                                      "1", "--algo", "auto", "--tuned", table});
  expectSuccess(bench);
  EXPECT_NE(bench.out.find("measured decision table"), std::string::npos) << bench.out;
  EXPECT_NE(bench.out.find("wrong elements in total: 0"), std::string::npos) << bench.out;
}

TEST(CliTuneBadInput, ExportsNameTheVersionAndTheTable) {
  ScratchDir dir;
  const std::string rules = dir.file("rules.conf"), table = dir.file("tune.json");
  std::ofstream(table) << R"({"format": "ringlab-tune/1", "p": 4, "transport": "shm",
    "dtype": "float32", "host": "h", "ringlab_version": "v", "date": "d", "rules": [],
    "measured": [{"bytes": 8, "time_us": {"recursive_doubling": 1}}]})";
  expectCleanError(runRinglab({"tune", "--tuned", dir.file("none.json"), "--ompi-rules", rules,
                               "--ompi-version", "4.1.4"}),
                   {"none.json"});
  expectCleanError(runRinglab({"tune", "--tuned", dir.file("none.json")}),
                   {"nothing to export", "--ompi-rules FILE"});
  expectCleanError(
      runRinglab({"tune", "--tuned", table, "--ompi-rules", rules, "--ompi-version", "four"}),
      {"--ompi-version 'four'", "major.minor.release"});
  expectCleanError(
      runRinglab({"tune", "--tuned", table, "--mpich-json", rules, "--mpich-version", "3.4.3"}),
      {"MPICH 3.4.3", "4.0 and later"});
}

// A table tuned over another transport: refused unless --profile-any-transport (the rule
// profiles follow); another host is said in one line; another p is refused (auto would not use it).
TEST(CliTuneTransport, AnotherTransportIsRefusedUnlessAskedAnotherHostIsSaid) {
  ScratchDir dir;
  const auto table = [&](const std::string& name, const std::string& transport,
                         const std::string& host) {
    std::ofstream(dir.file(name)) << R"({"format": "ringlab-tune/1", "p": 2, "transport": ")"
                                  << transport << R"(", "dtype": "float32", "host": ")" << host
                                  << R"(", "ringlab_version": "v", "date": "d", "rules": [],
      "measured": [{"bytes": 8, "time_us": {"recursive_doubling": 1, "ring": 2}}]})";
    return dir.file(name);
  };
  const std::string tcp = table("tcp.json", "tcp", "elsewhere");
  const std::vector<std::string> bench = {"bench", "-p", "2", "-b",     "8",    "-e",
                                          "64",    "-n", "1", "--algo", "auto", "--tuned"};
  std::vector<std::string> command = bench;
  command.push_back(tcp);
  expectCleanError(runRinglab(command),
                   {"--tuned " + tcp + " was measured over tcp, this run uses inproc",
                    "ringlab tune --transport inproc", "--profile-any-transport"});
  command.push_back("--profile-any-transport");
  const RunResult anyway = runRinglab(command);
  expectSuccess(anyway);
  EXPECT_EQ(countLinesStartingWith(anyway.out, "# note: decision table "), 1u) << anyway.out;
  EXPECT_NE(anyway.out.find("was measured with another transport tcp (this run: inproc), host "
                            "elsewhere (this run: "),
            std::string::npos)
      << anyway.out;
  // The run's own transport on another host: used, with the note.
  command = bench;
  command.push_back(table("inproc.json", "inproc", "elsewhere"));
  const RunResult host = runRinglab(command);
  expectSuccess(host);
  EXPECT_NE(host.out.find("# note: decision table " + dir.file("inproc.json") +
                          " was measured with another host elsewhere (this run: "),
            std::string::npos)
      << host.out;
  EXPECT_EQ(host.out.find("another transport"), std::string::npos) << host.out;
  command = bench;
  command[2] = "3";
  command.push_back(dir.file("inproc.json"));
  expectCleanError(runRinglab(command), {"was measured at p = 2, this run has p = 3"});
}

TEST(CliTuneBadInput, TunedNeedsAuto) {
  ScratchDir dir;
  expectCleanError(runRinglab({"bench", "-p", "2", "-n", "1", "--tuned", dir.file("none.json")}),
                   {"--tuned"});
}
TEST(CliTuneBadInput, TunedMissingFile) {
  expectCleanError(runRinglab({"bench", "-p", "2", "-n", "1", "--algo", "auto", "--tuned",
                               "/nonexistent-tune.json"}),
                   {"/nonexistent-tune.json"});
}
TEST(CliTuneBadInput, TunedMalformed) {
  expectCleanError(runRinglab({"bench", "-p", "2", "-n", "1", "--algo", "auto", "--tuned",
                               dataFile("profile_malformed.json")}),
                   {"decision"});
}
TEST(CliTuneBadInput, UnknownAlgorithm) {
  ScratchDir dir;
  expectCleanError(
      runRinglab({"tune", "-p", "2", "--algos", "ring,warp", "--json", dir.file("t.json")}),
      {"warp"});
}
TEST(CliTuneBadInput, AlgorithmListedTwice) {
  ScratchDir dir;
  expectCleanError(runRinglab({"tune", "-p", "2", "--algos", "ring,rabenseifner,ring", "--json",
                               dir.file("t.json")}),
                   {"'ring' is listed twice"});
}
TEST(CliTuneBadInput, RoundsZero) {
  ScratchDir dir;
  expectCleanError(runRinglab({"tune", "-p", "2", "--rounds", "0", "--json", dir.file("t.json")}),
                   {"0"});
}
TEST(CliTuneBadInput, OneRoundGivesNoInterval) {
  ScratchDir dir;
  expectCleanError(runRinglab({"tune", "-p", "2", "--rounds", "1", "--json", dir.file("t.json")}),
                   {"--rounds 1", ">= 2"});
}
TEST(CliTuneBadInput, DefaultNotMeasured) {
  ScratchDir dir;
  expectCleanError(runRinglab({"tune", "-p", "2", "--algos", "ring,binomial_tree", "--default",
                               "rabenseifner", "--json", dir.file("t.json")}),
                   {"--default rabenseifner", "ring,binomial_tree"});
}
TEST(CliTuneBadInput, UnknownTransport) {
  ScratchDir dir;
  expectCleanError(runRinglab({"tune", "-p", "2", "--transport", "carrier-pigeon", "--json",
                               dir.file("t.json")}),
                   {"carrier-pigeon"});
}
TEST(CliTuneBadInput, AutoWithRingOrder) {
  expectCleanError(
      runRinglab({"bench", "-p", "4", "-n", "1", "--algo", "auto", "--ring-order", "0,1,2,3"}),
      {"auto"});
}

// ---------------------------------------------------------------------------------------------
// compare on GPU logs: a verdict against a GPU system (docs/GPU.md)

TEST(CliCompareGpu, AGpuLogWithoutASystemGetsOneLineAndNoRatios) {
  const RunResult r = runRinglab({"compare", dataFile("nccl_tests/h100_16ranks_mpirun.log")});
  expectSuccess(r);
  EXPECT_NE(r.out.find("cannot judge GPU hardware without a description of it"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--system"), std::string::npos);
  EXPECT_EQ(r.out.find("meas/model"), std::string::npos) << "a column of meaningless ratios";
}

TEST(CliCompareGpu, AVerdictAgainstAPresetWithItsJson) {
  const RunResult r = runRinglab({"compare", dataFile("gpu_logs/h100_a3mega_2node_tcpxo.log"),
                                  "--system", "gcp-a3-mega", "--json", "-"});
  expectSuccess(r);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["nccl_figures"], "NCCL 2.30.7");
  EXPECT_EQ(j[0]["p"], 16);
  const nlohmann::json& last = j[0]["rows"].back();
  for (const char* key :
       {"size_bytes", "measured_us", "predicted_us", "algorithm", "protocol", "regime"}) {
    EXPECT_TRUE(last.contains(key)) << key;
  }
  EXPECT_EQ(last["size_bytes"], 8589934592ull);
  EXPECT_NEAR(last["measured_us"].get<double>(), 47535.0, 1e-6);
  // Within the stated margin at 8 GiB (the corpus test holds the bands).
  EXPECT_NEAR(last["measured_over_predicted"].get<double>(), 1.0, 0.2);
}

// The log's mpirun line sets NCCL_ALGO=ring: only Ring is priced, and the output says why; a
// system that sets its own algo wins, and the difference is said.
TEST(CliCompareGpu, TheLogsNcclAlgoIsPricedUnlessTheSystemSetsOne) {
  const std::string log = dataFile("gpu_logs/h200_2node_dgx_sockets_schmaustech.log");
  const std::string system = "gpu=h200,gpus=8,nodes=2,nics=1,nic=100Gb/s,net=tcp";
  const RunResult r = runRinglab({"compare", log, "--system", system, "--json", "-"});
  expectSuccess(r);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const nlohmann::json& row : j[0]["rows"]) EXPECT_EQ(row["algorithm"], "Ring") << row;
  EXPECT_NE(j[0]["notes"].dump().find("log: sets NCCL_ALGO=ring: only what it leaves is priced"),
            std::string::npos)
      << j[0]["notes"];
  const RunResult own = runRinglab({"compare", log, "--system", system + ",algo=tree"});
  expectSuccess(own);
  EXPECT_NE(own.out.find("system: algo=tree is priced; the log sets NCCL_ALGO=ring"),
            std::string::npos)
      << own.out;
  EXPECT_NE(own.out.find("Tree/"), std::string::npos);
}

TEST(CliCompareGpu, PresetsAreListedWithTheirSources) {
  const RunResult r = runRinglab({"compare", "--system", "list"});
  expectSuccess(r);
  EXPECT_NE(r.out.find("dgx-h100"), std::string::npos);
  EXPECT_NE(r.out.find("source: aws.amazon.com/ec2/instance-types/p5/"), std::string::npos);
}

TEST(CliCompareGpu, BadSystemsAreRefusedNamingTheValue) {
  const std::string log = dataFile("nccl_tests/h100_16ranks_mpirun.log");
  expectCleanError(runRinglab({"compare", log, "--system", "dgx-h999"}),
                   {"--system", "dgx-h999", "presets:"});
  expectCleanError(runRinglab({"compare", log, "--system", "gpu=h100,nic=fast"}),
                   {"--system", "nic=fast"});
  expectCleanError(runRinglab({"compare", log, "--system", "dgx-h100,nodes=3"}),
                   {"p = 16", "nodes"});
  // NCCL_TOPO_FILE form: its GPUs are bare <pci> devices, so the GPU kind must be given.
  expectCleanError(
      runRinglab({"compare", log, "--nccl-topo", dataFile("nccl_topo/azure_ndv5-topo.xml")}),
      {"--nccl-topo", "names no GPU model", "gpu=h100"});
  expectCleanError(runRinglab({"compare", log, "--json", "-"}), {"--json", "--system"});
}

TEST(CliCompareGpu, AnNcclTopologyDumpDescribesTheSystem) {
  const RunResult r =
      runRinglab({"compare", dataFile("nccl_tests/h100_16ranks_mpirun.log"), "--nccl-topo",
                  dataFile("nccl_topo/hgx_h200_dump.xml"), "--system", "nics=8,nic=400Gb/s"});
  expectSuccess(r);
  EXPECT_NE(r.out.find("NVSwitch 18 links x 20.6 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# verdict:"), std::string::npos);
}

TEST(CliModelGpu, ASystemsCurveAtANodeCount) {
  const RunResult r =
      runRinglab({"model", "--system", "aws-p5", "--nodes", "16", "-b", "1G", "-e", "1G"});
  expectSuccess(r);
  EXPECT_NE(r.out.find("p = 128 (16 nodes x 8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVLSTree/Simple"), std::string::npos) << r.out;
}

// compare --json writes each run's comparison, CPU runs included (not only GPU verdicts).
TEST(CliFirstContact, CompareJsonWritesTheComparison) {
  ScratchDir dir;
  const std::string bench = dir.file("bench.json");
  expectSuccess(
      runRinglab({"bench", "-p", "2", "-b", "1K", "-e", "4K", "-n", "3", "--json", bench}));
  const RunResult r = runRinglab({"compare", bench, "--json", "-"});
  expectSuccess(r);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array() && j.size() == 1) << r.out;
  EXPECT_EQ(j[0]["rows"].size(), 3u) << r.out;
  EXPECT_GT(j[0]["rows"][0]["predicted_us"].get<double>(), 0) << r.out;
}

// A profile that calibrate flagged UNSTABLE says so wherever it is used.
TEST(CliFirstContact, AnUnstableProfileIsFlaggedWhereverItIsUsed) {
  ScratchDir dir;
  const std::string written = dir.file("profile.json"), unstable = dir.file("unstable.json");
  expectSuccess(runCalibrate({"-e", "64K", "-n", "3", "--rounds", "2", "--json", written}));
  auto profile = nlohmann::json::parse(slurp(written));
  profile["unstable"] = {"ping-pong: alpha +-80% of its value (95% interval)"};
  std::ofstream(unstable) << profile.dump(2);
  const std::string bench = dir.file("bench.json");
  expectSuccess(
      runRinglab({"bench", "-p", "2", "-b", "1K", "-e", "1K", "-n", "3", "--json", bench}));
  const std::vector<std::vector<std::string>> uses = {
      {"bench", "-p", "2", "-b", "1K", "-e", "1K", "-n", "3", "--profile", unstable},
      {"compare", bench, "--profile", unstable},
      {"model", "--size", "1M", "--profile", unstable},
      {"plan", "--timeline", dataFile("plan_timeline.csv"), "--profile", unstable},
      {"sim", "--topo", "nodes=2,ranks=2", "-b", "1M", "-e", "1M", "--profile", unstable}};
  for (const std::vector<std::string>& args : uses) {
    const RunResult r = runRinglab(args);
    SCOPED_TRACE(r.describe());
    ASSERT_EQ(r.exitCode, 0);
    const std::string said = r.out + r.err;
    EXPECT_NE(said.find(unstable + " is UNSTABLE"), std::string::npos);
    EXPECT_NE(said.find("alpha +-80%"), std::string::npos) << "the reason is carried";
    EXPECT_NE(said.find("more rounds or iterations"), std::string::npos) << "what to do is said";
  }
  // The stable profile it came from draws no such line.
  if (nlohmann::json::parse(slurp(written))["unstable"].empty()) {
    const RunResult r = runRinglab({"model", "--size", "1M", "--profile", written});
    EXPECT_EQ((r.out + r.err).find("UNSTABLE"), std::string::npos) << r.describe();
  }
}

// launch's --help says the grace it really gives: the ranks' timeout plus 2 s when that is longer.
TEST(CliFirstContact, LaunchHelpSaysTheRealGrace) {
  const RunResult r = runRinglab({"launch", "--help"});
  expectSuccess(r);
  EXPECT_NE(r.out.find("62s"), std::string::npos) << r.out;
}
