#!/bin/bash
# After the rotation: the same app with the reference's version pinned
# (`…:password:AWSCURRENT}}` in StackA's template, in $PINNED): diff, deploy,
# drift (captures 13-15).
. "$(dirname "$0")/rotate.sh"
PINNED=${PINNED:-/tmp/truthkumo/asm-pinned}
cap 13-diff-pinned-json $CDKD diff StackA --json --app $PINNED
cap 14-deploy-pinned $CDKD deploy StackA -y --app $PINNED
cap 15-drift-after-pinned-json $CDKD drift StackA --json
$A sqs list-queues > "$O/queues-after-pinned.txt" 2>&1
