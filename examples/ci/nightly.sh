#!/usr/bin/env bash
# The nightly job's steps, in order (examples/ci/nightly.yml runs this; tests/test_ci_example.py
# runs it on generated profiles, so the example cannot rot):
#   1. add the night's profiles to the store, with the commit and the time;
#   2. post the regressions found since the last check to the job summary (Markdown);
#   3. gate: `neuroncmp regressions --since <last checked> --fail-on-regression`, failing on
#      the regressions not reported on an earlier night (new_regressions.py);
#   4. write the report site;
#   5. record what is checked, for the next night (the state files are replaced whole, after
#      success only: a failing step keeps the last good state).
# The gate's exit status (3: a regression) is this script's, after steps 4 and 5 ran: the site
# and the store are kept on a red night too.
#
# Settings (environment):
#   NIGHT_PROFILES  the night's profiles: a folder (or file) to add, or a folder with a runs.csv
#                   listing (path, time, commit, tag columns; then COMMIT/RUN_TIME/TAGS are unused)
#   STORE           the store kept between nights (default .neuroncmp)
#   STATE           where the last check is recorded (default: $STORE-state, kept with the store)
#   SITE            the site folder to write (default site)
#   COMMIT          the commit the profiles were taken at (default $GITHUB_SHA)
#   RUN_TIME        their time, ISO 8601 (default: now, UTC)
#   TAGS            tags for every run, "model=llama instance=trn1.2xlarge" (optional)
#   COMMIT_URL      a link to a commit, holding {commit} (default: this GitHub repository's)
#   SUMMARY         the Markdown to append to (default $GITHUB_STEP_SUMMARY, else standard output)
#   NEURONCMP       the command (default neuroncmp; the test gives "python -m neuroncmp")
#   PYTHON          a Python 3 for the two small JSON steps (default python3)
#   WINDOW          how many runs back the gate looks (default 30)
set -euo pipefail

: "${NIGHT_PROFILES:?set NIGHT_PROFILES to the folder of the night profiles}"
STORE=${STORE:-.neuroncmp}
STATE=${STATE:-$STORE-state}
SITE=${SITE:-site}
COMMIT=${COMMIT:-${GITHUB_SHA:-}}
RUN_TIME=${RUN_TIME:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
SUMMARY=${SUMMARY:-${GITHUB_STEP_SUMMARY:-/dev/stdout}}
if [[ -z ${COMMIT_URL:-} && -n ${GITHUB_REPOSITORY:-} ]]; then
  COMMIT_URL="${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/commit/{commit}"
fi
read -r -a ncmp <<< "${NEURONCMP:-neuroncmp}"
PYTHON=${PYTHON:-python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WINDOW=${WINDOW:-30}  # runs the gate looks back over (see step 3)

# The settings, checked before anything is written: a bad one stops the night with one line (exit 2).
fail() { echo "nightly.sh: $*" >&2; exit 2; }
[[ -e $NIGHT_PROFILES ]] || fail "NIGHT_PROFILES '$NIGHT_PROFILES': no such file or folder"
[[ $WINDOW =~ ^[1-9][0-9]{0,5}$ ]] || fail "WINDOW '$WINDOW': expected a whole number of runs from 1 to 999999"
[[ $RUN_TIME =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})$ ]] \
  || fail "RUN_TIME '$RUN_TIME': expected an ISO 8601 time with its zone, e.g. 2025-01-01T02:00:00Z"
command -v "${ncmp[0]}" > /dev/null || fail "NEURONCMP '${ncmp[*]}': no such command"
command -v "$PYTHON" > /dev/null || fail "PYTHON '$PYTHON': no such command"
if [[ -e $STATE/last-checked ]]; then
  grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' "$STATE/last-checked" \
    || fail "$STATE/last-checked holds no time (expected one line such as 2025-01-01T02:00:00Z); fix or delete it"
fi

# A state file is replaced whole or not at all: written beside it, then renamed over it (a failing
# step must never leave it empty: every later night would fail on it).
replace() {  # replace FILE: standard input into FILE, once the whole of it is written
  local temporary
  temporary=$(mktemp "$1.XXXXXX")
  if cat > "$temporary" && [[ -s $temporary ]]; then
    mv -f "$temporary" "$1"
  else
    rm -f "$temporary"
    return 1
  fi
}

# 1. The night's profiles into the store.
if [[ -f $NIGHT_PROFILES/runs.csv ]]; then
  "${ncmp[@]}" store add --store "$STORE" --runs "$NIGHT_PROFILES/runs.csv"
else
  tags=()
  for tag in ${TAGS:-}; do tags+=(--tag "$tag"); done
  "${ncmp[@]}" store add --store "$STORE" "$NIGHT_PROFILES" --at "$RUN_TIME" \
    ${COMMIT:+--commit "$COMMIT"} "${tags[@]}"
fi

# 2. The regressions since the last check, as Markdown in the job summary.
mkdir -p "$STATE"
since=$(cat "$STATE/last-checked" 2>/dev/null || echo 1970-01-01T00:00:00Z)
{
  echo "## neuroncmp: regressions since $since"
  echo
  # GitHub Markdown where this neuroncmp renders regressions as md; else the text table, fenced
  if ! "${ncmp[@]}" regressions --store "$STORE" --since "$since" --format md 2>/dev/null; then
    echo '```'
    "${ncmp[@]}" regressions --store "$STORE" --since "$since" --no-color --width 140
    echo '```'
  fi
} >> "$SUMMARY"

# 3. The gate: exit 3 when a change for the worse started after the last check. A shift is seen
#    only once enough runs hold the new level (5 at the least, more on noise), so the window
#    reaches back; a regression already reported on an earlier night fails no other night.
status=0
"${ncmp[@]}" regressions --store "$STORE" --since "$since" --fail-on-regression --format json \
  -o "$STATE/regressions.json" || status=$?
if [[ $status -ne 0 && $status -ne 3 ]]; then
  exit "$status"  # not a regression: the check itself failed
fi
if [[ $status -eq 3 ]]; then  # regressions in the window: fail only on new ones
  status=0
  "$PYTHON" "$HERE/new_regressions.py" "$STATE/regressions.json" "$STATE/reported" >> "$SUMMARY" \
    || status=$?
fi

# 4. The site.
"${ncmp[@]}" report --store "$STORE" -o "$SITE" ${COMMIT_URL:+--commit-url "$COMMIT_URL"}

# 5. The last check, for the next night: the time of the run WINDOW runs back from the newest
#    (a shift takes 5 to about 10 runs to show; one starting later is still looked at).
#    Only once every step above ran and this one succeeded: a failure keeps the last good time.
"${ncmp[@]}" store ls --store "$STORE" --format json | "$PYTHON" -c '
import json, sys
times = sorted({run["time"] for run in json.load(sys.stdin)["runs"]})
window = int(sys.argv[1])
print(times[-window] if len(times) >= window else "1970-01-01T00:00:00Z")
' "$WINDOW" | replace "$STATE/last-checked"
exit "$status"
