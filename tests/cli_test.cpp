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

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
TEST(CliBenchBadInput, CheckTwo) {
  expectCleanError(runRinglab({"bench", "-c", "2"}), {"2"});
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

// ---------------------------------------------------------------------------------------------
// No subcommand, verify: bad input

TEST(CliBadInput, NoSubcommand) {
  expectCleanError(runRinglab({}), {"subcommand"});
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
      runRinglab({"bench", "-p", "2", "-b", "8", "-e", "8", "-n", "1", "--timeout", "0.0001"}),
      {"0.0001|1e-04|1e-4"});
}
TEST(CliExtraBadInput, BenchTimeoutHuge) {
  expectCleanError(
      runRinglab({"bench", "-p", "2", "-b", "8", "-e", "8", "-n", "1", "--timeout", "1e300"}),
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

}  // namespace
