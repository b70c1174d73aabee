#!/usr/bin/env python3
"""Checks the Spack recipe without Spack: every CMake variable it passes exists in the
project's CMakeLists files (or cmake/*.cmake), and spack/ passes flake8 and black. Run from
the source dir."""

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
RECIPE = ROOT / "spack" / "packages" / "hola-spmv" / "package.py"
# CMake's own variables the recipe may set.
STANDARD = {"BUILD_SHARED_LIBS"}


def recipe_cmake_variables(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr not in ("define", "define_from_variant"):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
            continue
        if not node.args or not isinstance(node.args[0], ast.Constant):
            sys.exit(f"{path}:{node.lineno}: CMake variable name is not a string literal")
        names.add(node.args[0].value)
    return names


def project_cmake_variables(root):
    names = set()
    opt = re.compile(r"\boption\s*\(\s*([A-Za-z0-9_]+)", re.I)
    cache = re.compile(r"\bset\s*\(\s*([A-Za-z0-9_]+)\s[^)]*\bCACHE\b", re.I | re.S)
    files = list(root.rglob("CMakeLists.txt")) + list((root / "cmake").glob("*.cmake"))
    for f in files:
        rel = f.relative_to(root).parts
        if rel[0].startswith("build") or rel[0] == "spack":
            continue
        text = f.read_text()
        names.update(opt.findall(text))
        names.update(cache.findall(text))
    return names


def main():
    failures = []
    used = recipe_cmake_variables(RECIPE)
    if not used:
        failures.append("no self.define / self.define_from_variant calls found in the recipe")
    known = project_cmake_variables(ROOT)
    for name in sorted(used):
        if name in known or name in STANDARD or name.startswith("CMAKE_"):
            print(f"ok: {name}")
        else:
            failures.append(f"{name}: passed by the recipe but not an option/cache variable")

    # F403/F405: `from spack.package import *` is how every Spack recipe starts.
    for cmd in (
        ["flake8", "--max-line-length", "99", "--extend-ignore", "F403,F405", "spack/"],
        ["black", "--check", "--line-length", "99", "spack/"],
    ):
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            failures.append(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
        else:
            print(f"ok: {' '.join(cmd)}")

    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
