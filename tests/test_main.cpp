// The main of every gtest binary: each test process writes its files under a directory of its own
// (gtest's TempDir() reads TEST_TMPDIR) and removes it when the tests end, so that `make test`
// leaves nothing behind in /tmp however often it runs. ctest starts one process per test, so
// every test has a fresh directory, and files of the same name in two tests cannot meet.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* base = getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && base[0] != '\0' ? base : "/tmp") + "/ringlab-test-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror(("ringlab tests: cannot make a directory like " + pattern).c_str());
    return 2;
  }
  setenv("TEST_TMPDIR", pattern.c_str(), 1);
  const int failed = RUN_ALL_TESTS();
  std::error_code ignored;  // a directory a test made unreadable stays; nothing else does
  std::filesystem::remove_all(pattern, ignored);
  return failed;
}
