// SDK conformance: the vendors' official SDKs (npm openai, @anthropic-ai/sdk,
// @aws-sdk/client-bedrock-runtime, @smithy/signature-v4) send the same inputs as the engine to a
// capture server on 127.0.0.1, and the requests are compared: method, path and query, the
// headers that matter, the JSON bodies (semantic equality). Every SigV4 signature of ours is
// recomputed with the official signer. Then the comparison is run once more on copies of our
// requests with a body field renamed and a signature byte changed: both must be caught, or the
// suite fails (it would not notice a real difference either).
//
// Usage: node sdk_conformance.mjs SDK_DIR DUMP_TOOL   (tools/test.d/sdk-conformance.sh)
// Nothing leaves the loopback interface: every client's base URL is the capture server's.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import assert from 'node:assert/strict';

const [sdkDir, dumpTool] = process.argv.slice(2);
const require = createRequire(path.join(sdkDir, 'package.json'));
const OpenAI = require('openai').default ?? require('openai');
const Anthropic = require('@anthropic-ai/sdk').default ?? require('@anthropic-ai/sdk');
const { BedrockRuntimeClient, ConverseCommand, InvokeModelCommand } = require('@aws-sdk/client-bedrock-runtime');
const { SignatureV4 } = require('@smithy/signature-v4');
const { NodeHttpHandler } = require('@smithy/node-http-handler');
const { Sha256 } = require('@aws-crypto/sha256-js');

// Differences that are not ours to match, each with its reason. Headers: only these are
// compared (when the SDK sends them); the SDKs' telemetry (x-stainless-*, user-agent,
// amz-sdk-*) and transport headers are not requests' meaning.
const COMPARED_HEADERS = ['authorization', 'x-api-key', 'anthropic-version', 'content-type', 'api-key',
                          'openai-organization', 'openai-project'];
// Known header differences, listed here and printed on every run rather than hidden: npm
// @anthropic-ai/sdk 1.17.0 sends the key as "Authorization: Bearer" and anthropic-version
// 2026-10-21; we send x-api-key and pin 2023-06-01 (both still documented by the Messages API).
// To be reviewed when the engine moves to a newer API version.
const KNOWN_HEADER_DIFFERENCES = {
  'anthropic.messages': ['authorization', 'x-api-key', 'anthropic-version'],
  'anthropic.messages.json_output': ['authorization', 'x-api-key', 'anthropic-version'],
};
const HARMLESS_BODY_KEYS = {};

// ---- the capture server ------------------------------------------------------------------
const captured = [];
const answers = (url, body) => {
  if (url.startsWith('/v1/chat/completions')) {
    return { id: 'c', object: 'chat.completion', created: 0, model: body.model,
             choices: [{ index: 0, message: { role: 'assistant', content: '{}', refusal: null }, finish_reason: 'stop' }],
             usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
  }
  if (url.startsWith('/v1/embeddings')) {
    return { object: 'list', model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 },
             data: body.input.map((_, index) => ({ object: 'embedding', index, embedding: [0.5, 0.5] })) };
  }
  if (url.startsWith('/v1/messages')) {
    return { id: 'm', type: 'message', role: 'assistant', model: body.model, stop_reason: 'end_turn',
             content: [{ type: 'text', text: '{}' }], usage: { input_tokens: 1, output_tokens: 1 } };
  }
  if (url.endsWith('/converse')) {
    return { output: { message: { role: 'assistant', content: [{ text: '{}' }] } }, stopReason: 'end_turn',
             usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, metrics: { latencyMs: 1 } };
  }
  return { embedding: [0.5, 0.5], inputTextTokenCount: 1 };
};
const server = http.createServer((req, res) => {
  let data = '';
  req.on('data', (chunk) => { data += chunk; });
  req.on('end', () => {
    const body = data ? JSON.parse(data) : null;
    captured.push({ method: req.method, url: req.url, headers: req.headers, body });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(answers(req.url, body ?? {})));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const cases = JSON.parse(execFileSync(dumpTool, [base], { encoding: 'utf8' }));

const lastCapture = () => captured[captured.length - 1];
const urlOf = (full) => { const u = new URL(full); return u.pathname + u.search; };

// ---- the SDKs' requests for each case's inputs ---------------------------------------------
async function sdkRequest(c) {
  const input = c.input;
  if (c.name.startsWith('openai.chat')) {
    const client = new OpenAI({ apiKey: 'sk-conformance', baseURL: `${base}/v1`, organization: 'org-conf',
                                project: 'proj_conf', maxRetries: 0 });
    const reasoning = c.name.endsWith('reasoning');
    const params = { model: input.model,
                     messages: [...(input.system ? [{ role: 'system', content: input.system }] : []), ...input.messages] };
    if (!reasoning) params.temperature = input.temperature;
    if (input.top_p !== null) params.top_p = input.top_p;
    if (input.max_tokens !== null) params[reasoning ? 'max_completion_tokens' : 'max_tokens'] = input.max_tokens;
    if (input.seed !== null) params.seed = input.seed;
    if (input.reasoning_effort) params.reasoning_effort = input.reasoning_effort;
    if (input.json_schema) {
      params.response_format = { type: 'json_schema', json_schema: { name: input.schema_name, strict: true, schema: input.json_schema } };
    }
    await client.chat.completions.create(params);
    return lastCapture();
  }
  if (c.name === 'openai.embeddings') {
    const client = new OpenAI({ apiKey: 'sk-conformance', baseURL: `${base}/v1`, maxRetries: 0 });
    // We ask for base64 (exact float32, a third of the bytes), as the SDK does by default.
    await client.embeddings.create({ model: input.model, input: input.inputs, encoding_format: 'base64' });
    return lastCapture();
  }
  if (c.name === 'anthropic.messages.json_output') {
    // A model that refuses forced tools: output_config carries the JSON schema and the effort
    // (@anthropic-ai/sdk 1.17.0 OutputConfig); no temperature (Claude Sonnet 5.5 takes none).
    const client = new Anthropic({ apiKey: 'sk-ant-conformance', baseURL: base, maxRetries: 0 });
    await client.messages.create({
      model: input.model, max_tokens: input.max_tokens, system: input.system,
      messages: input.messages,
      output_config: { effort: input.reasoning_effort, format: { type: 'json_schema', schema: input.json_schema } },
    });
    return lastCapture();
  }
  if (c.name === 'anthropic.messages') {
    const client = new Anthropic({ apiKey: 'sk-ant-conformance', baseURL: base, maxRetries: 0 });
    const text = input.messages[0].content;
    const params = {
      model: input.model, max_tokens: input.max_tokens, system: input.system,
      messages: [{ role: 'user', content: [
        { type: 'text', text: text.slice(0, c.cache_prefix), cache_control: { type: 'ephemeral' } },
        { type: 'text', text: text.slice(c.cache_prefix) }] }],
      temperature: input.temperature,  // sent by the API for models before Opus 4.7
      tools: [{ name: input.schema_name, description: 'Record the answer in the required structure.',
                input_schema: input.json_schema }],
      tool_choice: { type: 'tool', name: input.schema_name },
    };
    await client.messages.create(params);
    return lastCapture();
  }
  const client = new BedrockRuntimeClient({
    region: c.signing.region, endpoint: base, maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),  // the capture server speaks HTTP/1.1 (Bedrock: HTTP/2)
    credentials: { accessKeyId: c.signing.access_key_id, secretAccessKey: c.signing.secret_access_key,
                   sessionToken: c.signing.session_token } });
  if (c.name.startsWith('bedrock.converse')) {
    const params = { modelId: c.model, messages: input.messages.map((m) => ({ role: m.role, content: [{ text: m.content }] })),
                     inferenceConfig: { maxTokens: input.max_tokens, temperature: input.temperature, topP: input.top_p } };
    // The model rules (c.structured, c.send_temperature, from the engine's table) decide the
    // structured output: a forced tool, Converse's JSON-schema output (OutputConfig.textFormat,
    // the schema as a string), or the prompt.
    if (!c.send_temperature) delete params.inferenceConfig.temperature;
    if (c.structured === 'json' && input.json_schema) {
      params.outputConfig = { textFormat: { type: 'json_schema', structure: { jsonSchema: {
        schema: JSON.stringify(input.json_schema), name: input.schema_name } } } };
      params.system = [{ text: input.system }];
    } else if (c.structured === 'tool' && input.json_schema) {
      params.toolConfig = { tools: [{ toolSpec: { name: input.schema_name, description: 'Record the answer in the required structure.',
                                                   inputSchema: { json: input.json_schema } } }],
                            toolChoice: { tool: { name: input.schema_name } } };
      params.system = [{ text: input.system }];
    } else {
      params.system = [{ text: input.system + (input.json_schema ? '' : '') }];
    }
    await client.send(new ConverseCommand(params));
    return lastCapture();
  }
  await client.send(new InvokeModelCommand({ modelId: c.model, contentType: 'application/json', accept: 'application/json',
                                             body: JSON.stringify(input) }));
  return lastCapture();
}

// The official signer's Authorization header for our request as we signed it.
async function officialAuthorization(c, ours) {
  const url = new URL(ours.url);
  const signer = new SignatureV4({ service: c.signing.service, region: c.signing.region, sha256: Sha256,
                                   applyChecksum: false, uriEscapePath: true,
                                   credentials: { accessKeyId: c.signing.access_key_id,
                                                  secretAccessKey: c.signing.secret_access_key,
                                                  sessionToken: c.signing.session_token } });
  const signed = await signer.sign({
    method: ours.method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port),
    path: url.pathname, query: {}, body: ours.raw_body,
    headers: { host: url.host, 'content-type': ours.headers['content-type'] },
  }, { signingDate: new Date(c.signing.time * 1000) });
  return signed.headers.authorization;
}

// ---- comparison -------------------------------------------------------------------------
function differences(c, ours, theirs, authorization) {
  const found = [];
  if (ours.method !== theirs.method) found.push(`method: ours ${ours.method}, SDK ${theirs.method}`);
  if (urlOf(ours.url) !== theirs.url) found.push(`path: ours ${urlOf(ours.url)}, SDK ${theirs.url}`);
  if (!c.signing) {
    for (const name of COMPARED_HEADERS) {
      if (theirs.headers[name] === undefined && ours.headers[name] === undefined) continue;
      if ((KNOWN_HEADER_DIFFERENCES[c.name] ?? []).includes(name) && theirs.headers[name] !== ours.headers[name]) {
        console.log(`      known difference, ${c.name} header ${name}: ours ${name === 'anthropic-version' ? ours.headers[name] : '(key)'}, SDK ${name === 'anthropic-version' ? theirs.headers[name] : '(key)'}`);
        continue;
      }
      if (theirs.headers[name] !== ours.headers[name]) found.push(`header ${name}: ours ${ours.headers[name]}, SDK ${theirs.headers[name]}`);
    }
  }
  const theirBody = structuredClone(theirs.body);
  for (const [key, value] of Object.entries(HARMLESS_BODY_KEYS[c.name] ?? {})) {
    if (theirBody[key] === value && !(key in ours.body)) delete theirBody[key];
  }
  try { assert.deepStrictEqual(ours.body, theirBody); } catch {
    found.push(`body: ours ${JSON.stringify(ours.body)}\n      SDK  ${JSON.stringify(theirBody)}`);
  }
  if (authorization !== undefined && ours.headers.authorization !== authorization) {
    found.push(`SigV4: ours ${ours.headers.authorization}\n      official signer ${authorization}`);
  }
  return found;
}

let failures = 0;
const results = [];
for (const c of cases) {
  const theirs = await sdkRequest(c);
  const authorization = c.signing ? await officialAuthorization(c, c.ours) : undefined;
  results.push({ c, theirs, authorization });
  const found = differences(c, c.ours, theirs, authorization);
  console.log(`${found.length ? 'FAIL' : 'ok  '} ${c.name}`);
  for (const line of found) console.log(`      ${line}`);
  failures += found.length ? 1 : 0;
}

// The suite must see a renamed body field and a changed signature byte.
const mutated = (c, edit) => { const copy = structuredClone(c.ours); edit(copy); return copy; };
const first = results.find((r) => r.c.name === 'openai.chat');
// max_tokens renamed to a field no chat request has.
const renamedBody = (body) => { const copy = structuredClone(body); copy.max_token = copy.max_tokens; delete copy.max_tokens; return copy; };
const renamed = mutated(first.c, (o) => { o.body = renamedBody(o.body); });
const signedCase = results.find((r) => r.c.signing);
const flipped = mutated(signedCase.c, (o) => {
  const a = o.headers.authorization;
  o.headers.authorization = a.slice(0, -1) + (a.endsWith('0') ? '1' : '0');
});
const caught = differences(first.c, renamed, first.theirs).length > 0 &&
               differences(signedCase.c, flipped, signedCase.theirs, signedCase.authorization).length > 0;
console.log(`${caught ? 'ok  ' : 'FAIL'} self-check: a renamed body field and a changed signature byte are caught`);
if (!caught) failures += 1;

// ---- our request bodies against the SDKs' request types -------------------------------------
// OpenAI generates its SDK's types from its published OpenAPI specification (kept on GitHub,
// which no package registry here serves), and Anthropic its SDK's from its API's. `tsc` checks
// each body we send against them: the excess-property check of object literals fails a
// renamed or unknown field, and the types and enumerations are checked. A copy of one body
// with a field renamed must fail (`@ts-expect-error` fails the run when it does not).
const REQUEST_TYPES = [
  ['openai.chat', 'OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming'],
  ['openai.embeddings', 'OpenAI.EmbeddingCreateParams'],
  ['anthropic.messages', 'Anthropic.Messages.MessageCreateParamsNonStreaming'],
];
const typeOf = (name) => REQUEST_TYPES.find(([prefix]) => name.startsWith(prefix))?.[1];
// Known differences with the SDKs' types, listed and printed rather than hidden. npm
// @anthropic-ai/sdk 1.17.0 dropped `temperature` from its Messages types with the sampling
// parameters' deprecation; the Messages API (anthropic-version 2023-06-01, which we pin) still
// takes it for the Claude models before Opus 4.7, and for Opus 4.7 and later we send none
// (the engine's model rules). To be reviewed with the API version.
const KNOWN_TYPE_DIFFERENCES = { 'anthropic.messages': ['temperature'] };
const fs = require('node:fs');
const checkDir = fs.mkdtempSync(path.join(sdkDir, 'typecheck-'));
let source = "import type OpenAI from 'openai';\nimport type Anthropic from '@anthropic-ai/sdk';\n";
let typed = 0;
for (const { c } of results) {
  const type = typeOf(c.name);
  if (!type) continue;
  const body = structuredClone(c.ours.body);
  for (const field of KNOWN_TYPE_DIFFERENCES[c.name] ?? []) {
    if (!(field in body)) continue;
    console.log(`      known difference, ${c.name} body field ${field}: not in the SDK's request type`);
    delete body[field];
  }
  source += `// ${c.name}\nexport const body${typed}: ${type} = ${JSON.stringify(body, null, 2)};\n`;
  typed += 1;
}
source += `// self-check: a renamed field is refused\n// @ts-expect-error\nexport const renamed: ${typeOf('openai.chat')} = ` +
          `${JSON.stringify(renamedBody(first.c.ours.body))};\n`;
fs.writeFileSync(path.join(checkDir, 'bodies.ts'), source);
fs.writeFileSync(path.join(checkDir, 'tsconfig.json'), JSON.stringify({
  compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, module: 'nodenext',
                     moduleResolution: 'nodenext', target: 'es2022', types: [] },
  files: ['bodies.ts'] }));
const typescript = require('typescript/package.json').version;
try {
  execFileSync(path.join(sdkDir, 'node_modules', '.bin', 'tsc'), ['-p', checkDir], { encoding: 'utf8' });
  console.log(`ok   ${typed} request bodies fit the SDKs' request types (tsc ${typescript}), and a renamed field is refused`);
} catch (error) {
  console.log(`FAIL our request bodies against the SDKs' request types (tsc ${typescript}):`);
  console.log(String(error.stdout ?? error.message).replace(/^/gm, '      '));
  failures += 1;
}
fs.rmSync(checkDir, { recursive: true, force: true });

server.close();
console.log(failures ? `${failures} case(s) differ from the official SDKs` : `all ${cases.length} cases match the official SDKs`);
process.exit(failures ? 1 : 0);
