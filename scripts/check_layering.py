#!/usr/bin/env python3
"""Checks that the build points only down the layer stack written in docs/design/layering.md.

The levels come from the table in that document (one row per folder: level, folder, libraries).
Checked: every #include in src/, tools/ and python/, every tessera_* library named in a
target_link_libraries of those folders, the forbidden same-level pairs, that only python/ includes
pybind11 or Python.h, and that no CMakeLists.txt collects sources with file(GLOB). Run from anywhere; exits 1 listing the offending lines.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERING_DOC = ROOT / "docs" / "design" / "layering.md"

ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|([^|]*)\|")
LIBRARY = re.compile(r"`(tessera[a-z0-9_]*)`")
FORBIDDEN_ROW = re.compile(r"^-\s*`([^`]+)`\s*->\s*`([^`]+)`")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ADD_TARGET = re.compile(r"(?:add_library|add_executable|pybind11_add_module)\(\s*(tessera[a-z0-9_]*)")
LINK = re.compile(r"target_link_libraries\(\s*(tessera[a-z0-9_]*)([^)]*)\)", re.S)
GLOB = re.compile(r"file\(\s*GLOB", re.I)
PYTHON_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"](pybind11/|Python\.h)')
# Top-level folders whose code is checked; each is one row of the table (src/ has many).
CLIENT_FOLDERS = ("tools", "python")


def section(text: str, name: str) -> list:
    begin = text.index(f"<!-- {name}: begin")
    end = text.index(f"<!-- {name}: end")
    return text[begin:end].splitlines()[1:]


def read_levels():
    """(folder -> level, library -> folder, forbidden pairs) from the layering document."""
    text = LAYERING_DOC.read_text()
    levels, library_folder = {}, {}
    for line in section(text, "levels"):
        match = ROW.match(line)
        if not match:
            continue
        level, folder, libraries = int(match.group(1)), match.group(2), match.group(3)
        levels[folder] = level
        for library in LIBRARY.findall(libraries):
            library_folder[library] = folder
    forbidden = set()
    for line in section(text, "forbidden"):
        match = FORBIDDEN_ROW.match(line)
        if match:
            forbidden.add((match.group(1), match.group(2)))
    return levels, library_folder, forbidden


def folder_of(levels: dict, rel_path: str) -> str:
    """The longest folder of the table that holds rel_path (a path under src/, or tools/...)."""
    best = ""
    for prefix in levels:
        if (rel_path == prefix or rel_path.startswith(prefix + "/")) and len(prefix) > len(best):
            best = prefix
    return best


def source_folder(levels: dict, path: pathlib.Path) -> str:
    for client in CLIENT_FOLDERS:
        if path.is_relative_to(ROOT / client):
            return client
    return folder_of(levels, str(path.parent.relative_to(ROOT / "src")))


def check_includes(levels, forbidden, errors) -> int:
    files = [p for d in ("src",) + CLIENT_FOLDERS for ext in ("*.h", "*.cc")
             for p in (ROOT / d).rglob(ext)]
    for path in sorted(files):
        src = source_folder(levels, path)
        if not src:
            errors.append(f"{path.relative_to(ROOT)}: folder has no level in {LAYERING_DOC.name}")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if PYTHON_INCLUDE.match(line) and src != "python":
                errors.append(f"{path.relative_to(ROOT)}:{number}: only python/ may include "
                              f"pybind11 or Python.h")
            match = INCLUDE.match(line)
            if not match:
                continue
            target = folder_of(levels, str(pathlib.Path(match.group(1)).parent))
            if not target:
                continue  # a tool-local header such as "cli.h"
            if levels[target] > levels[src] or (src, target) in forbidden:
                errors.append(f"{path.relative_to(ROOT)}:{number}: {src} (L{levels[src]}) includes "
                              f"{match.group(1)} from {target} (L{levels[target]})")
    return len(files)


def check_links(levels, library_folder, forbidden, errors) -> int:
    cmake_files = sorted(p for d in ("src",) + CLIENT_FOLDERS
                         for p in (ROOT / d).rglob("CMakeLists.txt"))
    edges = 0
    for path in cmake_files:
        text = path.read_text()
        folder = source_folder(levels, path)
        for name in ADD_TARGET.findall(text):
            if library_folder.get(name) != folder and not (folder == "tools" and name == "tessera"):
                errors.append(f"{path.relative_to(ROOT)}: target {name} is not listed for "
                              f"`{folder}` in {LAYERING_DOC.name}")
        for match in LINK.finditer(text):
            owner = library_folder.get(match.group(1), folder)
            for dep in re.findall(r"\btessera_[a-z0-9_]+", match.group(2)):
                dep_folder = library_folder.get(dep)
                edges += 1
                if dep_folder is None:
                    errors.append(f"{path.relative_to(ROOT)}: {match.group(1)} links {dep}, "
                                  f"which has no level in {LAYERING_DOC.name}")
                elif levels[dep_folder] > levels[owner] or (owner, dep_folder) in forbidden:
                    errors.append(f"{path.relative_to(ROOT)}: {match.group(1)} ({owner}, "
                                  f"L{levels[owner]}) links {dep} ({dep_folder}, "
                                  f"L{levels[dep_folder]})")
    return edges


def check_globs(errors) -> None:
    for path in sorted(ROOT.rglob("CMakeLists.txt")):
        if "build" in path.relative_to(ROOT).parts[:1]:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if GLOB.search(line):
                errors.append(f"{path.relative_to(ROOT)}:{number}: file(GLOB) — list sources "
                              f"explicitly")


def main() -> int:
    levels, library_folder, forbidden = read_levels()
    errors = []
    for folder in sorted({str(p.parent.relative_to(ROOT / "src")) for p in (ROOT / "src").rglob("*.cc")}):
        if not folder_of(levels, folder):
            errors.append(f"src/{folder}: no level in {LAYERING_DOC.name}")
    files = check_includes(levels, forbidden, errors)
    edges = check_links(levels, library_folder, forbidden, errors)
    check_globs(errors)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layering: {len(errors)} problem(s); levels are in "
              f"{LAYERING_DOC.relative_to(ROOT)}")
        return 1
    print(f"check_layering: {files} files, {edges} link edges ok ({len(levels)} folders)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
