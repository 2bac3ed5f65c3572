#!/bin/bash
# Rotated secret behind an unchanged reference: deploy v1, rotate, diff, deploy, drift, revert, drift.
set -u
ip link set lo up
/tmp/truthkumo/kumo & KPID=$!
sleep 1
export AWS_ENDPOINT_URL=http://127.0.0.1:4566 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 CDKD_STATE_BUCKET=truth-state
A="aws --endpoint-url http://127.0.0.1:4566"
$A s3 mb s3://truth-state >/dev/null
$A secretsmanager create-secret --name my-secret --secret-string '{"password":"rot-pw-one"}' >/dev/null
CDKD="node /work/shared/cdkd/bin/cdkd.mjs"
APP=/work/shared/cdkd-samples/assembly-v1
O=/tmp/truthkumo/run
cd /tmp/truthkumo/run
cap() { name=$1; shift; "$@" >$O/$name.stdout 2>$O/$name.stderr; echo $? >$O/$name.exit; }
cap 01-deploy-v1 $CDKD deploy --all -y --app $APP
$A secretsmanager put-secret-value --secret-id my-secret --secret-string '{"password":"rot-pw-two"}' >/dev/null
cap 02-diff-rotated-json $CDKD diff --all --json --app $APP
cap 03-deploy-rotated $CDKD deploy --all -y --app $APP
cap 04-drift-after-deploy-json $CDKD drift StackA --json
cap 05-drift-revert-yes $CDKD drift StackA --revert -y
cap 06-drift-after-revert-json $CDKD drift StackA --json
$A ssm get-parameter --name /fixture/secretref --query Parameter.Value > $O/ssm-after-revert.txt 2>&1
$A sqs list-queues > $O/queues-after-revert.txt 2>&1
kill $KPID
