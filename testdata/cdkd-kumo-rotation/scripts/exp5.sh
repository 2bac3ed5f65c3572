#!/bin/bash
# After the rotation: deploy --all, then what the action reads back after a
# deploy: each stack's events (the run list, then the newest run) and its
# state record (captures 16-21).
. "$(dirname "$0")/rotate.sh"
cap 16-deploy-rotated $CDKD deploy --all -y --app $APP
for s in StackA StackB; do
  cap 17-events-$s-json $CDKD events $s --json
  run=$(python3 -c "import json,sys;d=json.load(open('$O/17-events-$s-json.stdout'));print(d['runs'][0]['runId'] if d['runs'] else '')" 2>/dev/null)
  echo "$run" > "$O/17-events-$s-runid.txt"
  [ -n "$run" ] && cap 18-events-$s-run-json $CDKD events $s --json --run "$run"
  cap 19-state-show-$s-json $CDKD state show $s --json
done
