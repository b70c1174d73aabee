// The command line of a PETSc demo in two parts: Hola's common options (--matrix, --kernel,
// --output, ..., and --help) for CLI11, every other argument for PETSc, unchanged and in order.
// PETSc's values may start with a dash (-ksp_rtol -1) and its single-dash names would read as
// short options (-ksp_type as -k), so CLI11 never sees PETSc's arguments.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <vector>

namespace hola::demo {

// Parses the options named in `valued` (each with one value: "--name value" or "--name=value")
// and --help with `app`, wherever they stand; returns argv[0] and the other arguments, then a null
// pointer, for PetscInitialize. Throws CLI::ParseError as CLI::App::parse does.
inline std::vector<char*> parse_hola_options(CLI::App& app, int argc, char** argv,
                                             const std::vector<std::string>& valued) {
  std::vector<std::string> ours;
  std::vector<char*> petsc{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    bool takes_value = false, with_value = false;
    for (const std::string& name : valued) {
      takes_value = takes_value || a == name;
      with_value = with_value || a.rfind(name + "=", 0) == 0;
    }
    if (takes_value || with_value || a == "--help") {
      ours.push_back(a);
      if (takes_value && i + 1 < argc) ours.push_back(argv[++i]);
    } else {
      petsc.push_back(argv[i]);
    }
  }
  std::reverse(ours.begin(), ours.end());  // CLI::App::parse(vector) takes the last one first
  app.parse(ours);
  petsc.push_back(nullptr);
  return petsc;
}

}  // namespace hola::demo
