#!/usr/bin/env python3
"""Size budget: no hand-written source file over 600 lines, except those listed here with a reason."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIMIT = 600
# path -> reason. Keep this list short; split files along a concept instead.
EXCEPTIONS = {}


def main() -> int:
    over = []
    for folder in ("src", "tools", "python", "tests", "examples", "bench"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".cc", ".h"):
                continue
            rel = str(path.relative_to(ROOT))
            lines = sum(1 for _ in path.open(encoding="utf-8", errors="replace"))
            if lines > LIMIT and rel not in EXCEPTIONS:
                over.append(f"{rel}: {lines} lines (budget {LIMIT})")
    for line in over:
        print(line)
    if over:
        print(f"check_file_sizes: {len(over)} file(s) over budget; split them or list a reason")
        return 1
    print("check_file_sizes: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
