// What a program's JSON output records about the run: the commit of the source (HOLA_COMMIT, else
// `git rev-parse` in the working folder, else "unknown") and the exact command line.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace hola::demo {

inline std::string commit_id() {
  if (const char* env = std::getenv("HOLA_COMMIT"); env && *env) return env;
  std::string sha;
  if (std::FILE* p = popen("git rev-parse HEAD 2>/dev/null", "r")) {
    std::array<char, 128> buf{};
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), p)) sha += buf.data();
    pclose(p);
  }
  while (!sha.empty() && (sha.back() == '\n' || sha.back() == '\r')) sha.pop_back();
  return sha.empty() ? "unknown" : sha;
}

inline std::string command_line(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  return command;
}

}  // namespace hola::demo
