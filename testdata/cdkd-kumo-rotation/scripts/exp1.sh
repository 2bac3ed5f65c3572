#!/bin/bash
# After the rotation: diff, deploy, drift, --revert, drift (captures 02-06).
. "$(dirname "$0")/rotate.sh"
cap 02-diff-rotated-json $CDKD diff --all --json --app $APP
cap 03-deploy-rotated $CDKD deploy --all -y --app $APP
cap 04-drift-after-deploy-json $CDKD drift StackA --json
cap 05-drift-revert-yes $CDKD drift StackA --revert -y
cap 06-drift-after-revert-json $CDKD drift StackA --json
$A ssm get-parameter --name /fixture/secretref --query Parameter.Value > "$O/ssm-after-revert.txt" 2>&1
$A sqs list-queues > "$O/queues-after-revert.txt" 2>&1
