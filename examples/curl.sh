#!/usr/bin/env bash
# The REST API with curl. Start the server first, in another terminal:
#   SOCIAL_PUBLISHER_DATA_DIR=./data node dist/main.js serve
# and copy the API key it prints once (the demo user's), or use the key of a user from your workspace file.
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:8787/v1}
KEY=${KEY:?set KEY to your API key}
auth=(-H "Authorization: Bearer $KEY")

curl -s "${auth[@]}" "$BASE/me"
curl -s "${auth[@]}" "$BASE/brands?per_page=10"
curl -s "${auth[@]}" "$BASE/brands/1/channels"
curl -s "${auth[@]}" "$BASE/brands/1/collections"

# One file per upload, field "media"; the type is read from the bytes.
curl -s "${auth[@]}" -F "media=@${IMAGE:-photo.jpg}" "$BASE/brands/1/media"

# scheduledAt is read in the brand's timezone.
curl -s "${auth[@]}" -H 'Content-Type: application/json' \
  -d '{"publishMode":"SCHEDULE","caption":"Fresh roast","scheduledAt":"2027-03-02 09:00:00"}' \
  "$BASE/brands/1/collections/2/posts"

# Retrying safely: the same Idempotency-Key returns the first post instead of a second one.
curl -s "${auth[@]}" -H 'Content-Type: application/json' -H 'Idempotency-Key: launch-2027-03' \
  -d '{"publishMode":"QUEUE","caption":"Launch day"}' "$BASE/brands/1/collections/1/posts"

# Our lifecycle extension.
curl -s "${auth[@]}" "$BASE/brands/1/posts?status=scheduled&order=calendar"
curl -s "${auth[@]}" "$BASE/brands/1/queue"
curl -s "${auth[@]}" "$BASE/openapi.json" >/dev/null && echo "OpenAPI document at $BASE/openapi.json"
