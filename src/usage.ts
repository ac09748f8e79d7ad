/**
 * What `--help` prints: every command and every environment variable the program reads (a test holds it
 * to the code and to docs/configuration.md). Plain text and the registry's `connect` lines, no
 * dependency: it loads before the stdio handshake.
 */
import { connectUsage } from './publish/connectors/connect-flags.js';

export const USAGE = `Usage:
  social-publisher-mcp [stdio]                                 MCP over stdio (default)
  social-publisher-mcp serve [--host 127.0.0.1] [--port 8787]  REST /v1 + MCP /mcp
  social-publisher-mcp import FILE                             upsert a workspace file, print ids as JSON
${connectUsage()}
  social-publisher-mcp disconnect --brand B --channel NAME_OR_ID
                             make the channel INACTIVE and erase its secrets
  social-publisher-mcp keys create --user NAME
                             make a new API key for the user (name or id): printed once, as JSON on stdout;
                             only its hash is stored. The way to recover a lost key.
  social-publisher-mcp keys list [--user NAME]
                             each user's keys as JSON: id, prefix, created, last used, revoked (never the key)
  social-publisher-mcp keys revoke --user NAME --key ID
                             refuse the key from now on (--key: its id, its prefix or the whole key)
  social-publisher-mcp --help | --version

Environment:
  SOCIAL_PUBLISHER_DATA_DIR  where the SQLite file and uploaded media live (default: the per-user data
                             directory, e.g. ~/.local/share/social-publisher-mcp)
  SOCIAL_PUBLISHER_DATABASE_URL
                             store in this PostgreSQL database (postgres://user:password@host/db), shared by
                             every instance that names it (default: SQLite in the data directory)
  SOCIAL_PUBLISHER_DATABASE_POOL_SIZE
                             connections to PostgreSQL per process (1-1000, default 10)
  SOCIAL_PUBLISHER_API_KEY   stdio: a key of the user who acts (needed when the store has several users;
                             "keys create --user NAME" makes one); remote mode: the key sent
  SOCIAL_PUBLISHER_API_URL   remote mode: base URL (including /v1) of a server speaking the REST API
  SOCIAL_PUBLISHER_DEMO      0 = do not create the demo workspace in an empty store
  SOCIAL_PUBLISHER_READ_ONLY 1 (or true) = offer only the MCP tools that change nothing (lists, get_post,
                             get_queue)
  SOCIAL_PUBLISHER_TOOLSETS  comma-separated MCP toolsets to offer: workspace, media, posting, lifecycle,
                             connections (default: all)
  SOCIAL_PUBLISHER_WEBHOOK_URL, SOCIAL_PUBLISHER_WEBHOOK_SECRET
                             publish by POSTing each delivery, signed, to this URL (default: the sandbox);
                             or put {"webhookUrl": ..., "webhookSecret": ...} in DATA_DIR/publisher.json
  SOCIAL_PUBLISHER_WEBHOOK_DEDUPLICATES
                             1 = the webhook's receiver publishes once per idempotency-key: a delivery
                             left in doubt by a crash is sent again (exactly once) instead of failed
  SOCIAL_PUBLISHER_MEDIA_URL_ALLOW
                             comma-separated addresses or CIDR ranges that media URLs may point to although
                             private or local (e.g. 10.0.0.0/8); by default such addresses are refused
  SOCIAL_PUBLISHER_CLAIM_LEASE_SECONDS
                             how long a delivery being sent stays claimed by its process unless renewed
                             (2-3600, default 30): a process that stops mid-send has its deliveries taken
                             over then
  SOCIAL_PUBLISHER_SENDS_IN_FLIGHT
                             how many deliveries one process sends at once (1-10000, default 2000): each
                             waits for its platform's answer without holding up the others
  SOCIAL_PUBLISHER_SECRET_KEY
                             key that encrypts channel credentials at rest: 64 hex digits, base64 of 32 bytes,
                             or a passphrase of 16+ characters (default: a 0600 key file, secret.key, in the
                             data directory)
  SOCIAL_PUBLISHER_OAUTH_REDIRECT_URI
                             redirect URI registered with the platform apps, for connect and stdio's
                             connect_channel (default http://127.0.0.1:8788/callback); the apps themselves:
                             SOCIAL_PUBLISHER_<APP>_CLIENT_ID and _CLIENT_SECRET, or DATA_DIR/apps.json
  SOCIAL_PUBLISHER_PUBLIC_URL
                             serve: its public address; sign-ins begun over REST or MCP come back to
                             <it>/oauth/callback (register it with each platform app)
  SOCIAL_PUBLISHER_MEDIA_S3_BUCKET, SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID,
  SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY
                             keep uploaded media in this S3-compatible bucket instead of DATA_DIR/media;
                             platforms that fetch media by URL get presigned, expiring addresses of them
  SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT
                             the bucket's S3 API other than AWS (R2: https://<account>.r2.cloudflarestorage.com,
                             MinIO: http://host:9000); it must be reachable by the platforms
  SOCIAL_PUBLISHER_MEDIA_S3_REGION
                             the signing region (default us-east-1; R2 and MinIO take it too)
  SOCIAL_PUBLISHER_PLATFORM_TIMEOUT_SECONDS
                             deadline of one request to Mastodon, Bluesky or Telegram (1-600, default 30)
  SOCIAL_PUBLISHER_DATABASE_URL
                             postgres://user:password@host:5432/database = store in PostgreSQL instead of
                             the SQLite file; several serve instances may share it (see docs/deploy.md)
  SOCIAL_PUBLISHER_DATABASE_POOL_SIZE
                             PostgreSQL connections per process (1-1000, default 10), plus one that listens
                             for the other instances' plan changes
  SOCIAL_PUBLISHER_DATABASE_TIMEOUT_SECONDS
                             the longest a call waits for PostgreSQL, for a connection or for a statement's
                             answer (1-600, default 10); then it answers 503 with Retry-After
  SOCIAL_PUBLISHER_DRAIN_SECONDS
                             serve, on SIGTERM: answer GET /health with 503 this long while still serving
                             requests, then stop accepting (0-300, default 0), so a load balancer moves away`;
