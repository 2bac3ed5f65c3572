#!/bin/bash
# After the rotation: --recreate-via-cc-api, drift (captures 11-12).
. "$(dirname "$0")/rotate.sh"
cap 11-deploy-recreate-cc $CDKD deploy StackA --recreate-via-cc-api SecretNamedQueue -y --app $APP
cap 12-drift-after-recreate-cc-json $CDKD drift StackA --json
$A sqs list-queues > "$O/queues-after-recreate-cc.txt" 2>&1
