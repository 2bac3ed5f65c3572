#!/bin/bash
# Create-only property behind a rotated reference: which deploy applies the value?
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
O=/tmp/truthkumo/run2
mkdir -p $O; cd $O
cap() { name=$1; shift; "$@" >$O/$name.stdout 2>$O/$name.stderr; echo $? >$O/$name.exit; }
cap 01-deploy-v1 $CDKD deploy --all -y --app $APP
$A secretsmanager put-secret-value --secret-id my-secret --secret-string '{"password":"rot-pw-two"}' >/dev/null
cap 07-deploy-replace $CDKD deploy StackA --replace -y --app $APP
cap 08-drift-after-replace-json $CDKD drift StackA --json
cap 09-deploy-recreate-sdk $CDKD deploy StackA --recreate-via-sdk-provider SecretNamedQueue -y --app $APP
cap 10-drift-after-recreate-json $CDKD drift StackA --json
$A sqs list-queues > $O/queues-after-recreate.txt 2>&1
kill $KPID
