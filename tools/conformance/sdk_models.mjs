// The engine's default models and the price table's ids against the vendors' current SDKs
// (issue 39): every OpenAI and Anthropic default, and every priced id of those vendors (Claude
// ids on Bedrock included), must appear in the SDK's model types (openai's ChatModel and
// EmbeddingModel, @anthropic-ai/sdk's Model), and no default may be in the Anthropic SDK's
// table of deprecated models; a default that retires within 60 days fails with the date. The
// SDK versions read are printed. The SDKs are read as text (their .d.ts and data files): nothing
// is run and nothing leaves the machine.
//
// Usage: node sdk_models.mjs SDK_DIR DEFAULTS_DUMP_TOOL PRICE_TABLE   (sdk-conformance.sh)
// SDK_DIR/node_modules/openai-latest is npm's newest openai (its types list the newest models;
// the runtime comparison keeps the openai that runs on this Node.js).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [sdkDir, dumpTool, priceTable] = process.argv.slice(2);
const today = new Date(process.env.LLMV_SDK_MODELS_TODAY ?? new Date().toISOString().slice(0, 10));
const failures = [];
const notes = [];

const packageDir = (name) => path.join(sdkDir, 'node_modules', name);
const version = (name) => JSON.parse(fs.readFileSync(path.join(packageDir(name), 'package.json'), 'utf8')).version;

// The string literals of `export type NAME = 'a' | 'b' | ...;` in a declaration file.
function literalUnion(file, name) {
  const text = fs.readFileSync(file, 'utf8');
  const match = text.match(new RegExp(`export type ${name} = ([^;]*);`));
  if (!match) throw new Error(`no type ${name} in ${file}`);
  return new Set([...match[1].matchAll(/'([^']+)'/g)].map((m) => m[1]));
}

const openaiName = fs.existsSync(packageDir('openai-latest')) ? 'openai-latest' : 'openai';
const openaiDir = packageDir(openaiName);
const chatModels = literalUnion(path.join(openaiDir, 'resources/shared.d.ts'), 'ChatModel');
const embeddingModels = literalUnion(path.join(openaiDir, 'resources/embeddings.d.ts'), 'EmbeddingModel');
const anthropicDir = packageDir('@anthropic-ai/sdk');
const claudeModels = literalUnion(path.join(anthropicDir, 'resources/messages/messages.d.ts'), 'Model');
// DEPRECATED_MODELS: { 'id': 'January 22nd, 2027', ... } (src/internal/data/deprecated-models.ts)
const deprecatedText = fs.readFileSync(path.join(anthropicDir, 'src/internal/data/deprecated-models.ts'), 'utf8');
const deprecated = new Map([...deprecatedText.matchAll(/'([^']+)':\s*'([^']+)'/g)]
  .map((m) => [m[1], new Date(m[2].replace(/(\d+)(st|nd|rd|th)/, '$1') + ' UTC')]));

console.log(`sdk-models: ${openaiName} ${version(openaiName)} (${chatModels.size} chat, ${embeddingModels.size} embedding ids); ` +
            `@anthropic-ai/sdk ${version('@anthropic-ai/sdk')} (${claudeModels.size} ids, ${deprecated.size} deprecated)`);

// A Claude id inside a Bedrock id: "global.anthropic.claude-sonnet-4-6" -> "claude-sonnet-4-6";
// a dated Bedrock id "anthropic.claude-sonnet-4-5-20250929-v1:0" -> "claude-sonnet-4-5-20250929".
function claudeOf(bedrockId) {
  const at = bedrockId.indexOf('anthropic.claude-');
  if (at < 0) return null;
  return bedrockId.slice(at + 'anthropic.'.length).replace(/-v\d+(:\d+)?$/, '');
}

// Which SDK list an id of a provider belongs to; null: no SDK lists that vendor's ids.
function sdkList(provider, kind, id) {
  if (provider === 'openai') return kind === 'embedding' ? ['openai EmbeddingModel', embeddingModels, id]
                                                         : ['openai ChatModel', chatModels, id];
  if (provider === 'anthropic') return ['@anthropic-ai/sdk Model', claudeModels, id];
  if (provider === 'bedrock' || provider === 'bedrock-titan') {
    const claude = claudeOf(id);
    return claude ? ['@anthropic-ai/sdk Model', claudeModels, claude] : null;
  }
  return null;
}

function checkListed(what, provider, kind, id) {
  const list = sdkList(provider, kind, id);
  if (!list) {
    notes.push(`${what} ${provider} ${id}: no SDK lists this vendor's ids (not checked)`);
    return null;
  }
  const [listName, ids, sdkId] = list;
  if (!ids.has(sdkId)) failures.push(`${what} ${provider} ${id} is not in ${listName}${sdkId !== id ? ` (as ${sdkId})` : ''}`);
  return sdkId;
}

// The defaults.
const defaults = JSON.parse(execFileSync(dumpTool, { encoding: 'utf8' })).defaults;
let checkedDefaults = 0;
for (const row of defaults) {
  const models = new Set([row.model, ...Object.values(row.model_by_region ?? {})]);
  for (const model of models) {
    const sdkId = checkListed('default', row.provider, row.kind, model);
    if (sdkId === null) continue;
    checkedDefaults += 1;
    if (row.provider === 'anthropic' || sdkId.startsWith('claude-')) {
      const retires = deprecated.get(sdkId);
      if (retires) {
        const days = Math.round((retires - today) / 86400000);
        failures.push(`default ${row.provider} ${model} is deprecated in @anthropic-ai/sdk ` +
                      `(retires ${retires.toISOString().slice(0, 10)}, in ${days} days` +
                      `${days <= 60 ? ': within 60 days' : ''})`);
      }
    }
  }
}

// The price table's ids.
let checkedPrices = 0;
let columns = null;  // the header's names: the table's columns may come in any order
for (const line of fs.readFileSync(priceTable, 'utf8').split('\n')) {
  if (!line.trim() || line.startsWith('#')) continue;
  if (!columns) {
    columns = line.split(',').map((name) => name.trim());
    continue;
  }
  const field = Object.fromEntries(line.split(',').map((value, i) => [columns[i], value.trim()]));
  const { provider, model, input, output, embedding } = field;
  const kind = embedding && !input && !output ? 'embedding' : 'chat';
  // Bedrock sets its own lifecycle (a Claude model can stay on Bedrock after Anthropic's API
  // retires it) and the AWS SDK declares no model ids: its priced rows are not checked here.
  if (provider.startsWith('bedrock')) continue;
  if (checkListed('priced', provider, kind, model) !== null) checkedPrices += 1;
}

// The check must be able to fail: an id no SDK lists, and a deprecated Claude default, are
// caught by the same code (the findings of these probes are removed again).
{
  const before = failures.length;
  checkListed('probe', 'openai', 'chat', 'gpt-4.1-mnii');
  checkListed('probe', 'anthropic', 'chat', 'claude-sonet-5');
  const probesCaught = failures.length - before === 2;
  const deprecatedProbe = [...deprecated.keys()][0];
  failures.length = before;
  if (!probesCaught) failures.push('the probes with misspelled ids were not caught: the check cannot fail');
  if (deprecatedProbe === undefined) notes.push('@anthropic-ai/sdk lists no deprecated model today');
}

for (const note of notes) console.log(`sdk-models: note: ${note}`);
console.log(`sdk-models: ${checkedDefaults} default ids and ${checkedPrices} priced ids checked against the SDKs`);
if (failures.length) {
  for (const failure of failures) console.error(`sdk-models: FAIL: ${failure}`);
  process.exit(1);
}
console.log('sdk-models: every default and priced id is in the current SDKs, no default deprecated');
