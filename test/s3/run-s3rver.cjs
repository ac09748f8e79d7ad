// An S3-compatible server for the object-storage tests, in a process of its own (so that its memory is
// not the test's): @20minutes/s3rver on a loopback port, objects in the directory given, the bucket
// given created empty; it checks SigV4 signatures (headers and presigned addresses) and presigned
// expiry with the key pair given (beside its built-in S3RVER / S3RVER). Prints {"port": N} once
// listening; stops on SIGTERM.
const S3rver = require('@20minutes/s3rver');
const { DUMMY_ACCOUNT } = require('@20minutes/s3rver/lib/models/account');

const [directory, bucket, accessKeyId, secretAccessKey] = process.argv.slice(2);
DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
  allowMismatchedSignatures: false,
});
server.run().then(({ port }) => process.stdout.write(`${JSON.stringify({ port })}\n`));
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
