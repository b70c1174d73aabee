// What a program's JSON output records about the run: the commit of the source (HOLA_COMMIT, else
// `git rev-parse` in the working folder, else "unknown") and the exact command line.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
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

// Writes `result`, the JSON object a program prints after "result: ", to the file `path` with the
// commit and `command` first, so that --output holds the same numbers as the printed line.
// Throws std::runtime_error when the file cannot be written.
inline void write_result_json(const std::string& path, const std::string& command,
                              const std::string& result) {
  nlohmann::ordered_json out = {{"commit", commit_id()}, {"command", command}};
  const auto parsed = nlohmann::ordered_json::parse(result);  // items() refers to it
  for (const auto& item : parsed.items()) out[item.key()] = item.value();
  std::ofstream f(path);
  if (!(f << out.dump(2) << '\n')) throw std::runtime_error("cannot write '" + path + "'");
}

// Prints "result: <result>" and, when `path` is not empty, writes it there as write_result_json
// does (the per-call benchmarks' last step, on one process).
inline void report_result(const std::string& result, const std::string& path,
                          const std::string& command) {
  std::printf("result: %s\n", result.c_str());
  if (path.empty()) return;
  write_result_json(path, command, result);
  std::printf("result written to %s\n", path.c_str());
}

}  // namespace hola::demo
