"""The nightly gate's memory (examples/ci/nightly.sh, step 3): of the regressions in
``neuroncmp regressions --format json``, the ones not reported on an earlier night.

    python new_regressions.py regressions.json reported

Prints them as Markdown lines for the job summary (each with its change as ``regressions`` writes it,
in percentage points for a share, the runs that may have started it and,
when they carry commits, the ``git log`` range holding the commits that may have made it), adds them
to ``reported`` (one JSON key a line: metric, series, first run of the new level) and exits 3 when
there is any, else 0."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def key(change: dict) -> str:
    return json.dumps([change["metric"], change["series"], change["at"]["run"]], sort_keys=True)


def tags(change: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(change["series"].items()))


def names(found: dict) -> tuple[str, str, str]:
    """What the range's ends are called and their names, as ``neuroncmp regressions`` writes them:
    commits, or run ids where either end has no commit."""
    if found["first"]["commit"] and found["last"]["commit"]:
        return "commit", f"`{found['first']['commit']}`", f"`{found['last']['commit']}`"
    return "run", f"`{found['first']['run']}`", f"`{found['last']['run']}`"


def candidates(change: dict) -> str:
    """Where the new level may start, as ``neuroncmp regressions`` writes it, and the commits
    that may have made the change: those after the run before the range, up to its last run."""
    found = change["candidates"]
    sure = f"{found['confidence'] * 100:g} %"
    kind, first, last = names(found)
    if found["runs"] == 1:
        text = f"first new run at {kind} {first} ({sure})"
    else:
        text = f"first new run between {kind}s {first} and {last} ({found['runs']} runs, {sure})"
    if found["before"]["commit"] and found["last"]["commit"]:
        text += f": `git log {found['before']['commit']}..{found['last']['commit']}`"
    return text


def main(found_json: str, reported_file: str) -> int:
    changes = json.loads(Path(found_json).read_text())["changes"]
    reported = Path(reported_file)
    known = set(reported.read_text().splitlines()) if reported.exists() else set()
    new = [c for c in changes if c["direction"] == "worse" and key(c) not in known]
    print(f"\n**{len(new)} new regression(s)**" + (":" if new else " (all reported before)"))
    for change in new:
        print(f"- `{change['metric']}` {change['change_text']} in {tags(change)} from commit "
              f"`{change['at']['commit']}` ({change['at']['time']}); {candidates(change)}")
    if new:  # replaced whole (written beside, then renamed): a failure keeps the old list intact
        temporary = reported.with_name(reported.name + ".new")
        old = reported.read_text() if reported.exists() else ""
        temporary.write_text(old + "".join(key(c) + "\n" for c in new))
        os.replace(temporary, reported)
    return 3 if new else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
