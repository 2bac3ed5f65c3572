#!/bin/bash
# After the rotation: deploy --replace, drift, --recreate-via-sdk-provider (captures 07-09).
. "$(dirname "$0")/rotate.sh"
cap 07-deploy-replace $CDKD deploy StackA --replace -y --app $APP
cap 08-drift-after-replace-json $CDKD drift StackA --json
cap 09-deploy-recreate-sdk $CDKD deploy StackA --recreate-via-sdk-provider SecretNamedQueue -y --app $APP
