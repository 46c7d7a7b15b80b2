#!/usr/bin/env bash
# conform/ci-selection.sh RESULTS_DIR [EARLIER_DIR...]: writes CI's fixed
# piglit selection (conform/ci-tests.txt) from full vc4conform runs: every
# test that disagreed with the Pi 3 record (itself or a subtest) in any of
# the runs — earlier runs keep the tests that once disagreed — and every
# eighth other test of the first run in name order, which spreads the
# selection over every feature area; tests that ran 5 s or more there, or
# timed out, are left out of the spread so the selection stays short.
#
#   conform/piglit.sh -o /tmp/full && conform/ci-selection.sh /tmp/full > conform/ci-tests.txt
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: conform/ci-selection.sh RESULTS_DIR [EARLIER_DIR...]" >&2; exit 2; }
/usr/bin/python3 - "$@" <<'PY'
import json, sys
d = sys.argv[1]
results = {}
for line in open(d + "/results.jsonl"):
    r = json.loads(line)
    results[r["name"]] = r
disagree = set()
for line in (l for e in sys.argv[1:] for l in open(e + "/expectations.txt")):
    if line.startswith("#") or "\t" not in line:
        continue
    cls, name = line.rstrip("\n").split("\t", 1)
    if cls in ("model-fails", "model-passes"):
        # the test the entry belongs to: the longest run test name it starts with
        t = name
        while t not in results and "@" in t:
            t = t.rsplit("@", 1)[0]
        disagree.add(t)
names = sorted(results)
spread = [n for n in names if n not in disagree and results[n]["seconds"] < 5 and results[n]["status"] != "timeout"]
pick = sorted(disagree | set(spread[::8]))
print("# CI's fixed piglit selection (.ci/conform-test), written by conform/ci-selection.sh")
print("# from full runs: %d tests that disagreed with the Pi 3 record in one, and every eighth of" % len(disagree))
print("# the other %d in name order (those under 5 s)." % len(spread))
for n in pick:
    print(n)
PY
