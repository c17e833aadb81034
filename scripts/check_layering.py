#!/usr/bin/env python3
"""Checks that every #include in src/ and tools/ points down the layer stack (docs/design/layering.md).

A library may include its own headers and those of lower levels only; an include that points up the
pipeline is an error. Run from anywhere; exits 1 listing the offending lines.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Folder prefix -> level. The longest matching prefix wins.
LEVELS = {
    "support": 0,
    "runtime": 1,
    "ir": 2,
    "vta/rt": 1,
    # The tensor compiler sits between the IR core and the graph IR; the graph layer reaches it
    # only through relay/strategy (op -> TE compute + schedule), so relay itself never sees it.
    "tir": 3,
    "tir/arith": 3,
    "te": 3.2,
    "tir/schedule": 3.3,
    "tir/transform": 3.3,
    "codegen": 3.5,
    "topi": 3.6,
    "relay": 4,
    "relay/op": 4,
    "relay/text": 4,
    "relay/interp": 5,
    "relay/pattern": 4,
    "relay/transform": 6,
    "relay/strategy": 6.5,
    "relax": 6.6,
    "frontend": 7,
    "driver": 10,
    "tools": 11,
}
# Same-level folders that must not see each other: the core graph IR must not depend on its printer.
FORBIDDEN = {
    ("relay", "relay/text"),
    ("relay/op", "relay/text"),
    ("relay/text", "relay/op"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(rel_path: str) -> str:
    best = ""
    for prefix in LEVELS:
        if (rel_path == prefix or rel_path.startswith(prefix + "/")) and len(prefix) > len(best):
            best = prefix
    return best


def main() -> int:
    errors = []
    files = list((ROOT / "src").rglob("*.h")) + list((ROOT / "src").rglob("*.cc"))
    files += list((ROOT / "tools").rglob("*.cc")) + list((ROOT / "tools").rglob("*.h"))
    for path in sorted(files):
        rel = path.relative_to(ROOT / "src") if path.is_relative_to(ROOT / "src") else pathlib.Path("tools")
        src_folder = folder_of(str(rel.parent)) if str(rel) != "tools" else "tools"
        if path.is_relative_to(ROOT / "tools"):
            src_folder = "tools"
        if not src_folder:
            errors.append(f"{path.relative_to(ROOT)}: folder has no layer in check_layering.py")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            target_folder = folder_of(str(pathlib.Path(target).parent))
            if not target_folder:
                continue  # tool-local header such as "cli.h"
            if LEVELS[target_folder] > LEVELS[src_folder] or (src_folder, target_folder) in FORBIDDEN:
                errors.append(f"{path.relative_to(ROOT)}:{number}: {src_folder} (L{LEVELS[src_folder]}) "
                              f"includes {target} from {target_folder} (L{LEVELS[target_folder]})")
    for e in errors:
        print(e)
    if errors:
        print(f"check_layering: {len(errors)} include(s) point up the layer stack")
        return 1
    print(f"check_layering: {len(files)} files ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
