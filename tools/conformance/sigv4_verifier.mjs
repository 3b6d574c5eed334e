// The official AWS signer as the fake provider server's SigV4 oracle (issue 23): the fake server
// starts this once (tests/fake_server/fake_server.cpp, when LLMV_SIGV4_VERIFIER names this
// file), writes one JSON request a line on its standard input and reads, one line each, the
// Authorization header that npm @smithy/signature-v4 computes for it. The server then accepts
// a request only when its signature is the official signer's, so no copy of our own
// canonicalisation judges our signer.
//
// Request: {method, host, path, query, headers: {name: value} (the signed ones, lower case),
//           body_base64, region, service, access_key_id, secret_access_key, amz_date}
// Answer:  {authorization} or {error}
// The SDKs come from LLMV_SDK_CACHE (default: the cache tools/test.d/sdk-conformance.sh fills).
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const sdkDir = process.env.LLMV_SDK_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'llmvalidate-sdk');
const require = createRequire(path.join(sdkDir, 'package.json'));
const { SignatureV4 } = require('@smithy/signature-v4');
const { Sha256 } = require('@aws-crypto/sha256-js');

// "20260101T000000Z" -> Date
function dateOf(amz) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amz);
  if (!m) throw new Error(`x-amz-date is not YYYYMMDDTHHMMSSZ: ${amz}`);
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

async function authorization(r) {
  const signer = new SignatureV4({
    service: r.service, region: r.region, sha256: Sha256, applyChecksum: false, uriEscapePath: true,
    credentials: { accessKeyId: r.access_key_id, secretAccessKey: r.secret_access_key,
                   sessionToken: r.headers['x-amz-security-token'] } });
  // The signer adds x-amz-date and the session token itself, from signingDate and credentials.
  const headers = {};
  for (const [name, value] of Object.entries(r.headers)) {
    if (name !== 'x-amz-date' && name !== 'x-amz-security-token') headers[name] = value;
  }
  const query = {};
  for (const [name, value] of new URLSearchParams(r.query || '')) query[name] = value;
  const signed = await signer.sign({
    method: r.method, protocol: 'http:', hostname: r.host.split(':')[0], path: r.path, query,
    headers, body: Buffer.from(r.body_base64 || '', 'base64'),
  }, { signingDate: dateOf(r.amz_date) });
  return signed.headers.authorization;
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    answer = { authorization: await authorization(JSON.parse(line)) };
  } catch (error) {
    answer = { error: String(error && error.message ? error.message : error) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
