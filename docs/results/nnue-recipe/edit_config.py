#!/usr/bin/env python3
"""Writes a copy of a run config with keys set: edit_config.py SRC DST
SECTION.KEY=VALUE... (VALUE as TOML: 9, 0.5, true, "prune+lmr"). A key
missing from its section is added at the section's end, a missing section
at the file's end (a config saved by a build before that section). Used
by the issue 69 scripts beside it."""
import re
import sys

src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(src).read()
for edit in edits:
    path, value = edit.split("=", 1)
    section, key = path.rsplit(".", 1)
    block = re.search(rf"(?ms)^\[{re.escape(section)}\]\n.*?(?=^\[|\Z)", text)
    if not block:
        text = text.rstrip("\n") + f"\n\n[{section}]\n{key} = {value}\n"
        continue
    body = block.group(0)
    new, n = re.subn(rf"(?m)^{re.escape(key)} = .*$", f"{key} = {value}", body)
    if n == 0:
        new = body.rstrip("\n") + f"\n{key} = {value}\n" + ("\n" if body.endswith("\n\n") else "")
    text = text[: block.start()] + new + text[block.end():]
open(dst, "w").write(text)
