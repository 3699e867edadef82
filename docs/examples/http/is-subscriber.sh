#!/bin/sh
# IsSubscriber over the HTTP/JSON API with curl (docs/http-api.md).
# Usage: TOLLGATE_HTTP=http://127.0.0.1:7706 TOLLGATE_KEY=tgk_... is-subscriber.sh USER_ID ENTITLEMENT
# Prints the JSON answer; exits non-zero on an error answer (a problem document on stderr).
set -eu
user=$(printf '%s' "$1" | jq -sRr @uri)
entitlement=$(printf '%s' "$2" | jq -sRr @uri)
curl --silent --show-error --fail-with-body \
  --header "Authorization: Bearer $TOLLGATE_KEY" \
  "$TOLLGATE_HTTP/v1/users/$user/entitlements/$entitlement"
echo
