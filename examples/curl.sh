#!/usr/bin/env bash
# The REST API with curl: who am I, brands, collections, an upload, a scheduled post, a queued post sent
# twice with one Idempotency-Key, and the brand's posts and queue. Stops at the first failure, saying
# what failed. Needs bash, curl and date (GNU, BSD/macOS or busybox); no jq.
#
# Start the server first, in another terminal, on a scratch data directory:
#   SOCIAL_PUBLISHER_DATA_DIR=./data node dist/main.js serve
# It prints the demo user's API key once, on its first start. Lost it? Make another:
#   SOCIAL_PUBLISHER_DATA_DIR=./data node dist/main.js keys create --user "Demo User"
# Then:
#   SOCIAL_PUBLISHER_API_KEY=spk_... bash examples/curl.sh
#
# Settings (environment): SOCIAL_PUBLISHER_API_KEY (required), SOCIAL_PUBLISHER_API_URL (default
# http://127.0.0.1:8787/v1), BRAND_ID and COLLECTION_ID (default: the first brand, its first collection).
set -euo pipefail

BASE=${SOCIAL_PUBLISHER_API_URL:-http://127.0.0.1:8787/v1}
BASE=${BASE%/}
KEY=${SOCIAL_PUBLISHER_API_KEY:-}

fail() {
  printf 'curl.sh: %s\n' "$*" >&2
  exit 1
}

[ -n "$KEY" ] || fail 'set SOCIAL_PUBLISHER_API_KEY to your API key (serve prints the demo key once; "keys create --user NAME" makes a new one).'

# api METHOD PATH [curl arguments...]: prints the answer's body; stops the script unless it is a 2xx.
api() {
  local method=$1 path=$2 answer status body
  shift 2
  answer=$(curl -sS -X "$method" -H "Authorization: Bearer $KEY" -H 'Accept: application/json' \
    -w '\n%{http_code}' "$@" "$BASE$path") ||
    fail "$method $BASE$path: no answer (is serve running there? set SOCIAL_PUBLISHER_API_URL to its /v1 URL)."
  status=${answer##*$'\n'}
  body=${answer%$'\n'*}
  case $status in
    2??) printf '%s\n' "$body" ;;
    401) fail "$method $BASE$path: 401, the server refused the API key. Check SOCIAL_PUBLISHER_API_KEY (a key of your user on that server; \"keys list\" shows them, \"keys create --user NAME\" makes one) and SOCIAL_PUBLISHER_API_URL." ;;
    *) fail "$method $BASE$path: the server answered $status: $body" ;;
  esac
}

# field NAME: the first value of "NAME" in the JSON on stdin (our server's compact JSON; strings and
# numbers only). `sed -n 1p` rather than `head`, which could end grep with SIGPIPE under pipefail.
field() {
  grep -o "\"$1\":\"\{0,1\}[^\",}]*" | sed -n '1s/^[^:]*:"\{0,1\}//p'
}

me=$(api GET /me)
echo "Acting as $(field name <<<"$me")"

brands=$(api GET '/brands?per_page=100')
BRAND_ID=${BRAND_ID:-$(field id <<<"$brands")}
[ -n "$BRAND_ID" ] || fail 'this user has no brand: import a workspace file that gives it one.'
brand=$(grep -o "{\"id\":$BRAND_ID,[^}]*}" <<<"$brands") || fail "brand $BRAND_ID is not one of this user's brands."
timezone=$(field timezone <<<"$brand")
echo "Brand $BRAND_ID: $(field title <<<"$brand") ($timezone)"

api GET "/brands/$BRAND_ID/channels" >/dev/null
collections=$(api GET "/brands/$BRAND_ID/collections")
COLLECTION_ID=${COLLECTION_ID:-$(field id <<<"$collections")}
[ -n "$COLLECTION_ID" ] || fail "brand $BRAND_ID has no collection."
echo "Collection $COLLECTION_ID"

# Upload: one file per request, field "media"; the type is read from the bytes. A 1x1 PNG made here.
image=$(mktemp "${TMPDIR:-/tmp}/curl-example.XXXXXX")
trap 'rm -f "$image"' EXIT
printf '\211PNG\r\n\032\n\000\000\000\015IHDR\000\000\000\001\000\000\000\001\010\006\000\000\000\037\025\304\211\000\000\000\015IDATx\332cd`\370_\017\000\002\207\001\200\353G\272\222\000\000\000\000IEND\256B`\202' >"$image"
media=$(api POST "/brands/$BRAND_ID/media" -F "media=@$image;filename=dot.png")
media_id=$(field id <<<"$media")
echo "Uploaded media $media_id"

# scheduledAt is a wall-clock time in the brand's timezone: tomorrow (there) at 09:00. The date of the
# instant 24 hours from now, in that timezone, is tomorrow's whatever the DST change.
in_a_day=$(($(date +%s) + 86400))
# BSD and macOS: date -r SECONDS; GNU and busybox (where -r names a file): date -d @SECONDS.
day=$(TZ=$timezone date -r "$in_a_day" +%Y-%m-%d 2>/dev/null || TZ=$timezone date -d "@$in_a_day" +%Y-%m-%d) ||
  fail 'cannot compute tomorrow with this date command.'
post=$(api POST "/brands/$BRAND_ID/collections/$COLLECTION_ID/posts" -H 'Content-Type: application/json' \
  -d "{\"publishMode\":\"SCHEDULE\",\"caption\":\"Fresh roast (examples/curl.sh)\",\"scheduledAt\":\"$day 09:00:00\",\"media\":[{\"id\":\"$media_id\"}]}")
post_id=$(field id <<<"$post")
echo "Scheduled post $post_id for $day 09:00:00 $timezone"

# Retrying safely: the same Idempotency-Key returns the first post (duplicate: true), not a second one.
idempotency="curl-example-$post_id"
first=$(api POST "/brands/$BRAND_ID/collections/$COLLECTION_ID/posts" -H 'Content-Type: application/json' \
  -H "Idempotency-Key: $idempotency" -d '{"publishMode":"QUEUE","caption":"Launch day (examples/curl.sh)"}')
again=$(api POST "/brands/$BRAND_ID/collections/$COLLECTION_ID/posts" -H 'Content-Type: application/json' \
  -H "Idempotency-Key: $idempotency" -d '{"publishMode":"QUEUE","caption":"Launch day (examples/curl.sh)"}')
[ "$(field id <<<"$first")" = "$(field id <<<"$again")" ] || fail 'the same Idempotency-Key made a second post.'
echo "Queued post $(field id <<<"$first"), sent twice with one Idempotency-Key"

# Our lifecycle extension: the brand's planned posts, soonest first, and its queue.
api GET "/brands/$BRAND_ID/posts?status=scheduled&order=calendar" >/dev/null
api GET "/brands/$BRAND_ID/posts/$post_id" >/dev/null
echo "Next queue slot: $(api GET "/brands/$BRAND_ID/queue" | field scheduledAt)"
api GET /openapi.json >/dev/null
echo "OpenAPI document at $BASE/openapi.json"
