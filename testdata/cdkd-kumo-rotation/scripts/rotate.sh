#!/bin/bash
# Sourced by expN.sh, inside `unshare --net` (its own loopback, so port 4566
# is free): starts kumo (KUMO, built from kumo-main.go.txt), creates the
# state bucket and my-secret, deploys the sample app (v1) with the real
# cdkd, and rotates the secret. Captures go to $O (default: ./out).
set -u
ip link set lo up
"${KUMO:-/tmp/truthkumo/kumo}" & KPID=$!
trap 'kill $KPID' EXIT
sleep 1
export AWS_ENDPOINT_URL=http://127.0.0.1:4566 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 CDKD_STATE_BUCKET=truth-state
A="aws --endpoint-url http://127.0.0.1:4566"
$A s3 mb s3://truth-state >/dev/null
$A secretsmanager create-secret --name my-secret --secret-string '{"password":"rot-pw-one"}' >/dev/null
SHARED=${SHARED:-/work/shared}
CDKD="node $SHARED/cdkd/bin/cdkd.mjs"
APP=$SHARED/cdkd-samples/assembly-v1
O=${O:-$PWD/out}
mkdir -p "$O"
cap() { name=$1; shift; "$@" >"$O/$name.stdout" 2>"$O/$name.stderr"; echo $? >"$O/$name.exit"; }
cap 01-deploy-v1 $CDKD deploy --all -y --app $APP
$A secretsmanager put-secret-value --secret-id my-secret --secret-string '{"password":"rot-pw-two"}' >/dev/null
