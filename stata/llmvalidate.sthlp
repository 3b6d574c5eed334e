{smcl}
{* *! version 0.1.0  01dec2026}{...}
{vieweralsosee "estadd" "help estadd"}{...}
{viewerjumpto "Syntax" "llmvalidate##syntax"}{...}
{viewerjumpto "Description" "llmvalidate##description"}{...}
{viewerjumpto "Options" "llmvalidate##options"}{...}
{viewerjumpto "Sample" "llmvalidate##sample"}{...}
{viewerjumpto "Power" "llmvalidate##power"}{...}
{viewerjumpto "Cache" "llmvalidate##cache"}{...}
{viewerjumpto "Models" "llmvalidate##models"}{...}
{viewerjumpto "Installation" "llmvalidate##install"}{...}
{viewerjumpto "Remarks" "llmvalidate##remarks"}{...}
{viewerjumpto "Examples" "llmvalidate##examples"}{...}
{viewerjumpto "Stored results" "llmvalidate##results"}{...}
{viewerjumpto "Return codes" "llmvalidate##rc"}{...}
{viewerjumpto "Reference" "llmvalidate##reference"}{...}
{title:Title}

{phang}
{bf:llmvalidate} {hline 2} Validate LLM annotations without a human benchmark


{marker syntax}{...}
{title:Syntax}

{pstd}
Validate the passages of a string variable (LLM calls){p_end}

{p 8 20 2}
{cmd:llmvalidate} {varname} {ifin}{cmd:,} {opt task(file)} [{it:validate_options}]

{p 8 20 2}
{cmd:llmvalidate} {varname} {ifin}{cmd:,} {opt labels(list)} {opt ann:otation(string)} {opt sim:ulation(string)} [{it:validate_options}]

{pstd}
Draw a reproducible sample of observations (the same draws as the command-line tool and R){p_end}

{p 8 20 2}
{cmd:llmvalidate sample} {ifin}{cmd:,} {opt n(#)} {opt gen:erate(newvar)} [{opt seed(#)} {opt where(conditions)} {opt replace}]

{pstd}
Run the tests on embeddings you already have{p_end}

{p 8 20 2}
{cmd:llmvalidate test} [{varlist}] {ifin}{cmd:,} {opt lab:el(varname)} {opt pass:age(varname)} [{it:test_options}]

{pstd}
Power of the tests by simulation (synthetic data-generating process; no data, no LLM calls){p_end}

{p 8 20 2}
{cmd:llmvalidate power}{cmd:,} {opt task(file)} [{it:power_options}]

{pstd}
An overview of several runs over the same passages: the paper's Tables 7 and 8{p_end}

{p 8 20 2}
{cmd:llmvalidate overview} {it:prefix} [{it:prefix} ...] {ifin} [{cmd:,} {opt ti:tles(varname)} {opt nam:es(list)}]

{pstd}
The run's report: one self-contained HTML file{p_end}

{p 8 20 2}
{cmd:llmvalidate report using} {it:filename}{cmd:.html} [{cmd:,} {opt rep:lace} {opt run(filename)}]

{pstd}
Describe or clear the response cache{p_end}

{p 8 20 2}
{cmd:llmvalidate cache} [{cmd:describe}] [{cmd:using} {it:filename}] [{cmd:,} {opt notab:le}]

{p 8 20 2}
{cmd:llmvalidate cache clear} [{cmd:using} {it:filename}] [{cmd:,} {opt mod:el(string)}]

{p 8 20 2}
{cmd:llmvalidate cache merge} [{cmd:using} {it:filename}] {cmd:,} {opt from(filelist)}

{pstd}
List the models a vendor serves to your credentials, read from its API{p_end}

{p 8 20 2}
{cmd:llmvalidate models}{cmd:,} {opt prov:ider(name)} [{opt base:url(url)} {opt key:env(name)} {opt notab:le}]

{pstd}
Report the version of the command and of its plugin{p_end}

{p 8 20 2}
{cmd:llmvalidate version} [{cmd:,} {opt q:uietly}]

{pstd}
Add the last results to stored estimates, for {cmd:esttab}{p_end}

{p 8 20 2}
{cmd:estadd llmvalidate} [{cmd:,} {opt p:refix(name)} {opt replace} {opt q:uietly}] [{cmd::} {it:namelist}]

{synoptset 26 tabbed}{...}
{synopthdr:validate_options}
{synoptline}
{syntab:Task (task(), or the three options labels(), annotation(), simulation())}
{synopt:{opt task(file)}}the task: a shipped task ({cmd:simple_sentiment}, or its alias {cmd:sentiment}, ...) or a TOML file with the label set and the prompts{p_end}
{synopt:{opt labels(list)}}a task of your own: the label set, e.g. {cmd:labels(Good Bad "Very bad")}{p_end}
{synopt:{opt ann:otation(string)}}its annotation prompt, with {cmd:{c -(}text{c )-}} where the passage goes{p_end}
{synopt:{opt sim:ulation(string)}}its simulation prompt, with {cmd:{c -(}n{c )-}} and {cmd:{c -(}label{c )-}}; it must describe your texts{p_end}
{synopt:{opt vars(spec)}}the task's variables: {it:name}{cmd:=}{it:varname} (a value per passage) or {it:name}{cmd:="}{it:text}{cmd:"} (one value), e.g. {cmd:vars(topic=topic_var)} or {cmd:vars(genre="tweets")}{p_end}
{synopt:{opt simp:rompt(varname)}}a simulation prompt per passage, from a string variable (empty: the task's){p_end}
{syntab:Models}
{* BEGIN GENERATED chat-providers: written from the engine's provider table}{...}
{synopt:{opt prov:ider(name)}}the chat provider: {cmd:openai}, {cmd:anthropic}, {cmd:bedrock} or {cmd:simulated} (docs/providers.md); default: the one the environment configures{p_end}
{* END GENERATED}{...}
{synopt:{opt mod:el(string)}}the chat model; default is the provider's (the engine's table, docs/providers.md){p_end}
{synopt:{opt emb:edding(name)}}the embedding provider; default follows {opt provider()}{p_end}
{synopt:{opt embmod:el(string)}}the embedding model{p_end}
{synopt:{opt base:url(string)}}the provider's address (local servers, Azure){p_end}
{synopt:{opt embbase:url(string)}}the embedding provider's address, when it is not the chat provider's{p_end}
{synopt:{opt paper}}the paper's way: {cmd:vmethod(paper)}, {cmd:smethod(paper)}, {cmd:structured(none)} and {cmd:parseretries(0)}; options given beside it win{p_end}
{synopt:{opt key:env(name)}}the environment variable holding the API key{p_end}
{syntab:Method}
{synopt:{opt hum:an(varname)}}human labels, for the cross-table of the paper's Table 10{p_end}
{synopt:{it:test_method_options}}{opt alpha()}, {opt threshold()}, {opt seed()}, {opt permutations()}, {opt vmethod()}, {opt smethod()}, {opt rule()}; see below{p_end}
{syntab:Running}
{synopt:{opt cache(file)}}SQLite cache: a re-run makes no call already paid for; default {cmd:$LLMV_CACHE}, else the per-user cache shared with the command-line tool and R{p_end}
{synopt:{opt nocache}}keep the answers in memory only (a re-run pays again){p_end}
{synopt:{opt dry:run}}count the calls and tokens a run would need; make none{p_end}
{synopt:{opt batch:api}}send the requests through the provider's batch API (openai, anthropic) at its batch price; resumable from {opt cache()}{p_end}
{synopt:{opt nowait}}with {opt batchapi}: submit the next phase's batches (or poll those out once) and return at once with {cmd:r(waiting)}; the same command collects later{p_end}
{synopt:{opt continue}}store the results even when no passage could be validated (else an error){p_end}
{syntab:Settings (the engine's table, shared with R and the command-line tool)}
{* BEGIN GENERATED validate-settings: written from the engine's settings table}{...}
{synopt:{opt m(#)}}Passages generated per label (the pool size M). Allowed: a whole number in 2..100000; default {cmd:m(100)}{p_end}
{synopt:{opt n(#)}}Passages asked for per simulation call. Allowed: a whole number in 1..1000; default {cmd:n(10)}{p_end}
{synopt:{opt rep:eats(#)}}Annotations of each passage; its label is the modal answer. Allowed: a whole number in 1..1000; default {cmd:repeats(1)}{p_end}
{synopt:{opt conc:urrency(#)}}Requests in flight. Allowed: a whole number in 1..4096; default {cmd:concurrency(16)}{p_end}
{synopt:{opt temp:erature(#)}}Sampling temperature (1, as in the paper). Allowed: a number in [0, 2]; default {cmd:temperature(1)}{p_end}
{synopt:{opt str:uctured(name)}}How the answer's JSON is asked for: schema (the API's structured output), prompt (the schema in the prompt) or none (the paper's way: the prompt alone). Allowed: one of "schema", "prompt", "none"; default {cmd:structured(schema)}{p_end}
{synopt:{opt ans:werformat(name)}}Whether prompts end with the task's answer-format instructions: auto (left out when structured output schema sends the JSON Schema with the request: a fifth to a third fewer input tokens) or always (as earlier versions did: their cached answers serve again). Allowed: one of "auto", "always"; default {cmd:answerformat(auto)}{p_end}
{synopt:{opt reason:effort(name)}}Reasoning effort of a reasoning model: auto (the lowest level the model takes for text generation, sent only to models that reason by default) or a level the model takes (docs/providers.md lists each family's). Allowed: one of "auto", "none", "minimal", "low", "medium", "high", "xhigh", "max"; default {cmd:reasoneffort(auto)}{p_end}
{synopt:{opt parser:etries(#)}}Redraws of an unparseable or out-of-set answer (the paper preset: 0, a bad backtranslation answer counts as wrong). Allowed: a whole number in 0..100; default {cmd:parseretries(3)}{p_end}
{synopt:{opt maxr:etries(#)}}Retries of a request after HTTP 429/5xx or a transport failure. Allowed: a whole number in 0..100; default {cmd:maxretries(5)}{p_end}
{synopt:{opt time:out(#)}}Time limit of one request, retries apart, in seconds. Allowed: a number in (0, 86400]; default {cmd:timeout(300)}{p_end}
{synopt:{opt drain(#)}}On Ctrl-C or SIGTERM: how long the requests in flight may finish and be cached before the run stops, in seconds. Allowed: a number in [0, 3600]; default {cmd:drain(10)}{p_end}
{synopt:{opt poll:interval(#)}}Batch API: seconds between two polls of a provider batch in progress (Ctrl-C and Break are seen at once, whatever the interval). Allowed: a number in [0, 86400]; default {cmd:pollinterval(30)}{p_end}
{synopt:{opt enc:oding(name)}}How the passages' bytes are read: utf-8, or latin1 (ISO 8859-1, e.g. the original Financial PhraseBank files). Allowed: one of "utf-8", "latin1"; default {cmd:encoding(utf-8)}{p_end}
{synopt:{opt maxpass:agebytes(#)}}The largest passage, in bytes: a larger one fails on its own row (naming it) before any request. Allowed: a whole number in 1..2147483647; default {cmd:maxpassagebytes(1000000)}{p_end}
{* END GENERATED}{...}
{syntab:Results}
{synopt:{opt gen:erate(prefix)}}create {it:prefix}{cmd:label}, {it:prefix}{cmd:verdict}, {it:prefix}{cmd:tau}, {it:prefix}{cmd:crit}, {it:prefix}{cmd:p}, {it:prefix}{cmd:bt_acc}, {it:prefix}{cmd:sep_p}, {it:prefix}{cmd:p_bh}{p_end}
{synopt:{opt replace}}replace those variables if they exist{p_end}
{synopt:{opt notab:le}}display no results table{p_end}
{synopt:{opt nomat:rix}}leave out {cmd:r(results)}, the matrix with a row per passage (left out anyway past Stata's matrix limit){p_end}
{synopt:{opt sav:ing(filename[, replace])}}save a dataset of what the model wrote and answered: every annotation and every generated text (see {help llmvalidate##saving:saving()}){p_end}
{synoptline}

{synoptset 26 tabbed}{...}
{synopthdr:test_options}
{synoptline}
{syntab:Required}
{synopt:{opt lab:el(varname)}}the label of each text: for a pool text, the label it was generated from; for a passage, the LLM's label{p_end}
{synopt:{opt pass:age(varname)}}1 for the passages under study, 0 for the pool texts{p_end}
{syntab:Data}
{synopt:{opt embmat:rix(name)}}the embeddings in a Stata matrix instead of {varlist}: row i for observation i{p_end}
{synopt:{opt embf:ile(filename)}}the embeddings in a CSV file instead of {varlist}: line i (after an optional header) for observation i{p_end}
{synopt:{opt labels(list)}}the label set; default: the labels of the pool texts, in order of appearance{p_end}
{synopt:{opt back:translation(varname)}}for each pool text, the label the LLM gave it{p_end}
{synopt:{opt ref:erence(varname)}}1 for the extra reference draws of the paper's methods{p_end}
{syntab:Method}
{synopt:{opt seed(#)}}seed of the permutations; default: drawn from Stata's generator, so {cmd:set seed} governs{p_end}
{* BEGIN GENERATED test-settings: written from the engine's settings table}{...}
{synopt:{opt alp:ha(#)}}Level of every test. Allowed: a number in [1e-06, 0.5]; default {cmd:alpha(0.05)}{p_end}
{synopt:{opt thr:eshold(#)}}Backtranslation accuracy needed. Allowed: a number in [0, 1]; default {cmd:threshold(0.9)}{p_end}
{synopt:{opt vm:ethod(name)}}Validation test: exact (exact p-value) or paper (the paper's bootstrap). Allowed: one of "exact", "paper"; default {cmd:vmethod(exact)}{p_end}
{synopt:{opt sm:ethod(name)}}Separation test: permutation (exact) or paper (the paper's bootstrap). Allowed: one of "paper", "permutation"; default {cmd:smethod(permutation)}{p_end}
{synopt:{opt rule(name)}}Backtranslation pass rule: the accuracy (point, the paper's) or its lower confidence bound (bound). Allowed: one of "point", "bound"; default {cmd:rule(point)}{p_end}
{synopt:{opt perm:utations(#)}}Permutations of the separation test. Allowed: a whole number in 1..1000000; default {cmd:permutations(999)}{p_end}
{* END GENERATED}{...}
{syntab:Results}
{synopt:{opt gen:erate(prefix)}}create {it:prefix}{cmd:verdict}, {it:prefix}{cmd:tau}, {it:prefix}{cmd:crit}, {it:prefix}{cmd:p}, {it:prefix}{cmd:bt_acc}, {it:prefix}{cmd:sep_p} for the passages{p_end}
{synopt:{opt replace}}replace those variables if they exist{p_end}
{synopt:{opt notab:le}}display no results table{p_end}
{synoptline}

{synoptset 26 tabbed}{...}
{synopthdr:power_options}
{synoptline}
{syntab:Required}
{synopt:{opt task(file)}}the task, as for {cmd:llmvalidate} {varname}{p_end}
{syntab:Simulation}
{synopt:{opt repl:ications(#)}}Monte Carlo replications; default {cmd:replications(200)}{p_end}
{synopt:{opt true:label(string)}}the label the passage is written in; default: the task's first label{p_end}
{synopt:{opt top:ic(string)}}topic words of the passage and the pools{p_end}
{* BEGIN GENERATED power-settings: written from the engine's settings table}{...}
{synopt:{opt fol:low(#)}}Simulated provider: probability that a generated text is written in the requested label. Allowed: a number in [0, 1]; default {cmd:follow(0.97)}{p_end}
{synopt:{opt sig:nal(#)}}Simulated provider: share of a generated text's words drawn from its label's lexicon. Allowed: a number in [0, 1]; default {cmd:signal(0.3)}{p_end}
{synopt:{opt acc:uracy(#)}}Simulated provider: probability that the annotator returns a text's latent label. Allowed: a number in [0, 1]; default {cmd:accuracy(0.97)}{p_end}
{synopt:{opt unp:arseable(#)}}Simulated provider: probability that an answer is not valid JSON. Allowed: a number in [0, 1); default {cmd:unparseable(0)}{p_end}
{synopt:{opt word:s(#)}}Simulated provider: words per generated text (0: the passage's length). Allowed: a whole number in 0..2000; default {cmd:words(0)}{p_end}
{* END GENERATED}{...}
{synopt:{opt dgp:seed(#)}}seed of the data-generating process; default: drawn from Stata's generator{p_end}
{syntab:Method}
{synopt:{it:validate_method_options}}{opt m()}, {opt n()}, {opt repeats()}, {opt alpha()}, {opt threshold()}, {opt seed()}, {opt permutations()}, {opt vmethod()}, {opt smethod()}, {opt rule()}, {opt concurrency()}, {opt notable}, as for {cmd:llmvalidate} {varname}{p_end}
{synoptline}

{synoptset 26}{...}
{synopthdr:other_options}
{synoptline}
{synopt:{opt q:uietly}}{cmd:llmvalidate version}, {cmd:estadd llmvalidate}: display nothing{p_end}
{synopt:{opt p:refix(name)}}{cmd:estadd llmvalidate}: prefix of the added results; default {cmd:llmv_}{p_end}
{synopt:{opt replace}}{cmd:estadd llmvalidate}: overwrite results already in {cmd:e()} (else an error, as for {cmd:estadd}'s own subcommands){p_end}
{synopt:{opt mod:el(string)}}{cmd:llmvalidate cache clear}: remove only this model's entries (every provider){p_end}
{synopt:{opt from(filelist)}}{cmd:llmvalidate cache merge}: the cache files to add, in order (quote a name with spaces){p_end}
{synopt:{opt ti:tles(varname)}}{cmd:llmvalidate overview}: the variable that names the rows (numeric or string); default: the observation numbers{p_end}
{synopt:{opt nam:es(list)}}{cmd:llmvalidate overview}: a column header per prefix, in their order (quote a header with spaces); default: the prefixes{p_end}
{synopt:{opt run(filename)}}{cmd:llmvalidate report}: the run document to render (saving()'s {it:name}{cmd:.run.json}, or the command-line tool's {cmd:--run-json}); default: the last run's{p_end}
{synopt:{opt where(conditions)}}{cmd:llmvalidate sample}: draw only from observations where {it:variable}{cmd:=}{it:value} ({it:value}{cmd:|}{it:value} for several, {cmd:;} between conditions), as the command-line tool's {cmd:--where}{p_end}
{synoptline}


{marker description}{...}
{title:Description}

{pstd}
{cmd:llmvalidate} tells you whether an LLM's annotation of a text is a valid measurement,
without a human benchmark, with the tests of Hansen (2026). The texts the LLM writes are
compared with your passages, so {bf:the task's simulation prompt must describe your texts}
(their kind, style and length; Hansen 2026, Sections 2 and 4.1): the paper's tasks simulate
passages of a bank's 10-K filing (and {cmd:financial_phrasebank} sentences of financial
news), the paper's examples. For another corpus, use the general task with a description of
your texts ({cmd:task(general_sentiment) vars(genre="comments on an investing forum, one to three sentences")}),
build a task with {opt labels()}, {opt annotation()} and {opt simulation()}, or write a task
file. For a passage y that the LLM labels b, it asks:

{phang2}1. {it:Validation}: is y a plausible draw from the texts the same LLM writes when asked
for a text of label b? The statistic tau is the mean cosine similarity between the embedding
of y and the embeddings of a pool of M such texts.{p_end}
{phang2}2. {it:Separation}: are the texts the LLM writes for b told apart from those it writes
for every other label? (a permutation two-sample test){p_end}
{phang2}3. {it:Backtranslation}: does the LLM label its own texts for b as b, at least
{opt threshold()} of the time?{p_end}

{pstd}
The verdict is {bf:valid} when the prerequisites (2 and 3) pass and validity is not
rejected, {bf:invalid} when they pass and validity is rejected, and {bf:inconclusive} when a
prerequisite fails, whatever the validation test says.

{pstd}
{cmd:llmvalidate} {varname} makes the LLM calls itself (through a compiled plugin, with a
cache, so that nothing is paid for twice). {cmd:llmvalidate test} runs the same tests on
embeddings you computed yourself, stored as variables, one text per observation; its numbers
equal those of the command-line tool {cmd:llmvalidate test} and of the R package on the same
inputs and seed, bit for bit.


{marker options}{...}
{title:Options}

{dlgtab:Task}

{phang}
{opt task(file)} names the task: a TOML file that defines the label set, the annotation
prompt and the simulation prompt. The tasks of the paper are shipped with the package
({cmd:net install} puts their files on the ado-path) and are named as in the command-line
tool and in R, by their name or an alias: {cmd:task(simple_sentiment)} and
{cmd:task(sentiment)} are the same task. An unknown name is an error that lists the shipped
tasks and their aliases. Any other name is looked for, with {cmd:.toml} added, along the
ado-path, and a path names a task file of your own.

{phang}
{opt labels(list)}, {opt annotation(string)} and {opt simulation(string)}, given together
instead of {opt task()}, build a task: the label set, the annotation prompt (with
{cmd:{c -(}text{c )-}} for the passage; {cmd:{c -(}labels{c )-}} lists the labels) and the
simulation prompt (with {cmd:{c -(}n{c )-}}, the number of texts asked for, and
{cmd:{c -(}label{c )-}}; {cmd:{c -(}length{c )-}} is the passage's length in words). They are
checked as a task file is, before any call, and give the same results as the same task
written as a file (the command-line tool's {cmd:--labels}, {cmd:--annotation-prompt},
{cmd:--simulation-prompt} and R's {cmd:llm_task()} build the same task). The simulation
prompt must describe your texts (kind, style, length). The engine adds its instructions for
the JSON answer to both prompts.

{phang}
{opt vars(spec)} gives the task's variables (its placeholders, such as {cmd:{c -(}topic{c )-}} of
{cmd:task(topic)} or {cmd:{c -(}genre{c )-}} of {cmd:task(general_sentiment)}):
{it:name}{cmd:=}{it:varname} takes a value per passage from a variable (string, or numeric
through its value labels), so that, e.g., the paper's Tables 5 and 6 run with each passage's
own topic: {cmd:vars(topic=topic_discussed)} and {cmd:vars(topic=topic_not_discussed)};
{it:name}{cmd:="}{it:text}{cmd:"} gives every passage the same value. A variable the task
requires but {opt vars()} does not give, a name the task does not have, or an observation
whose value is empty or blank (rc 459, naming the observation, as for an empty passage) is an
error before any call. With {opt labels()}, {opt annotation()} and {opt simulation()}, the names of
{opt vars()} are the task's variables.

{phang}
{opt simprompt(varname)} gives each passage a simulation prompt of its own, from a string
variable, instead of the task's (an empty value keeps the task's), as the paper's Section 4
passages each have one; the command-line tool's {cmd:--simulation-column} and R's column
{cmd:simulation} do the same. Its placeholders are those of the task's simulation prompt.

{phang}
{opt provider(name)} names the chat provider. Without it, the provider is the one the
environment configures, by the same rule as R and the command-line tool: {cmd:LLMV_BASE_URL}
(any OpenAI-compatible server), else {cmd:ANTHROPIC_API_KEY}, else {cmd:OPENAI_API_KEY}, else
AWS credentials; with none of them the command fails. {cmd:simulated} is a documented
synthetic data-generating process for trying the command without a network; it runs only when
named, and every result it produces says so in {cmd:r(synthetic)}.

{phang}
{opt structured(name)} chooses how the answer's JSON shape is asked for: {cmd:schema} (the
API's structured output), {cmd:prompt} (the JSON Schema in the prompt) or {cmd:none} (the
paper's way: the task's prompt alone, one user message, JSON read from the free text).
With {cmd:schema}, the JSON Schema travels with each request, so the prompts leave out the
task's answer-format instructions (a fifth to a third fewer input tokens);
{cmd:answerformat(always)} keeps them, as earlier versions did, so that answers they cached
serve again.
{opt paper} sets the paper's bootstrap tests, {cmd:structured(none)} and {cmd:parseretries(0)}.

{phang}
{opt label(varname)} and {opt passage(varname)} describe the data of {cmd:llmvalidate test}:
see {help llmvalidate##layout:the data layout} below. {opt label()} may be a string variable
or a numeric variable with value labels.

{dlgtab:Models}

{phang}
{opt model(string)}, {opt embedding(name)}, {opt embmodel(string)} and {opt baseurl(string)}
choose the chat model, the embedding provider and model (one embedding model is used for
every text of a validation) and the address of the provider. {opt embbaseurl(string)} is
the address of an embedding provider of another vendor (by default its own public address);
{opt baseurl()} is used for the embeddings too only when the embedding provider is the chat
provider's own ({cmd:openai} with {cmd:openai}). A server of your own ({opt baseurl()} or
{cmd:LLMV_BASE_URL}) needs {opt embmodel()} (or {cmd:LLMV_EMBEDDING_MODEL}): the chat model is
never used for embeddings, and without one the command stops before any call.

{phang}
{opt keyenv(name)} names another environment variable that holds the chat provider's API
key. Without it, each provider reads its own variable ({cmd:ANTHROPIC_API_KEY} for
{cmd:anthropic}, {cmd:OPENAI_API_KEY} for {cmd:openai}, the AWS variables for
{cmd:bedrock}), as in R and the command-line tool. {cmd:ANTHROPIC_API_KEY} goes to
Anthropic's hosts only and {cmd:OPENAI_API_KEY} to OpenAI's: a server at {opt baseurl()} gets
the key {opt keyenv()} names, else {cmd:LLMV_API_KEY}, else none. A key named by {opt keyenv()} is read from
the environment and handed to the plugin; it is never displayed, not even under
{cmd:set trace on}. Keys cannot be typed as options.
If the variable {opt keyenv()} names is not set (or is empty), {cmd:llmvalidate} stops
with an error naming it before any call (rc 198): it never falls back to the provider's own
variable, which may belong to another account.
This key is the chat provider's only: an embedding provider of another vendor (e.g.
{cmd:provider(anthropic) embedding(openai)}) reads its own variable ({cmd:OPENAI_API_KEY}),
so one vendor's key is never sent to another vendor. {cmd:OPENAI_API_KEY} goes to OpenAI's
hosts only: a server of your own ({opt baseurl()}, {cmd:LLMV_BASE_URL}) gets a key only when
one is named for it: {opt keyenv()}, else {cmd:LLMV_API_KEY}; an embedding server other than
the chat server ({opt embbaseurl()}) reads {cmd:LLMV_EMBEDDING_API_KEY}.

{dlgtab:Method}

{phang}
{opt m(#)} is the pool size M: the number of texts generated for each label. {opt n(#)} is
the number of texts asked for in one simulation call. {opt repeats(#)} annotates each passage
R times and takes the modal label.

{phang}
{opt human(varname)} gives human labels where you have them; {cmd:r()} then also holds the
paper's Table 10, the share valid by LLM label and human label ({cmd:r(table10)}, with the
counts in {cmd:r(table10_n)}), {cmd:r(table9)} the share of each LLM label that agrees
with the human label, and the paper's Table 11 in {cmd:r(table11)}: the passages whose LLM
label differs from the human label and whose annotation is valid, one row each, its value
the observation number and its name {it:LLM label}{cmd::}{it:human label} (left out when
there are none). Table 9 (share valid by LLM label) and the Benjamini-Hochberg adjusted
p-values ({it:prefix}{cmd:p_bh}, and the column {cmd:p_bh} of {cmd:r(results)}) are returned
with or without {opt human()}. The numbers are those of the command-line tool's
{cmd:batch --summary} and of R on the same passages.

{phang}
{opt labels(list)} gives the label set S, e.g. {cmd:labels("Very positive" Neutral Negative)}.
Labels match case- and space-insensitively.

{phang}
{opt backtranslation(varname)} gives, for each pool text, the label the LLM gave it. Without
it the backtranslation test is not run and the verdict cannot be {bf:valid}.

{phang}
{opt reference(varname)} marks the extra B reference draws per label that
{cmd:vmethod(paper)} and {cmd:smethod(paper)} need.

{phang}
{opt alpha(#)} is the level of the validation and separation tests; default 0.05.
{opt threshold(#)} is the backtranslation accuracy required; default 0.9.

{phang}
{opt seed(#)} seeds the engine's generator (the permutations) and picks the texts the model
generates, an integer from 0 to 18446744073709551615. Another seed draws (and pays for) new
texts and their backtranslations; the same seed reads them back from the cache (the passage's
own annotation is reused either way). When it is omitted, a seed is drawn from Stata's
random-number generator, so {cmd:set seed} makes the results reproducible, and a second run
without {cmd:set seed} draws new texts; the seed used is returned in {cmd:r(seed)}. With
{opt dryrun}, the command says what a seed's new texts will cost.

{phang}
{opt permutations(#)} is the number of permutations R of the separation test; default 999.

{phang}
{opt vmethod(name)}: {cmd:exact} (default) is a finite-sample rank test on the pool and the
passage; {cmd:paper} reproduces the bootstrap of the paper's reference code.
{opt smethod(name)}: {cmd:permutation} (default) or {cmd:paper}, the separation test of the
paper's reference code (single reference texts; the paper's text averages N texts per
replicate instead). That test can hardly fail even when the LLM ignores the label; the
permutation test passes with probability at most alpha in that case. {opt rule(name)}: {cmd:point} compares the
backtranslation accuracy with the threshold (the paper); {cmd:bound} compares its exact
one-sided Clopper-Pearson lower bound.

{dlgtab:Running}

{phang}
{opt cache(file)} keeps every response in an SQLite file. A run interrupted with
{hi:Break}, or by a failure, is resumed by running the same command again: the calls already
made are read from the cache. The default is the file named by the environment variable
{cmd:LLMV_CACHE}, else the per-user cache that the command-line tool and R use too, so all
three share their answers: {cmd:cache.sqlite} in the folder R's
{cmd:tools::R_user_dir("llmvalidate", "cache")} names ({cmd:~/.cache/R/llmvalidate} on
Linux). The command displays the cache it uses and returns it in {cmd:r(cache)};
{cmd:llmvalidate cache describe} without {cmd:using} describes the default one. The
{cmd:simulated} provider caches nothing (its answers cost nothing). {opt nocache} keeps the
answers in memory only, and a run that pays for answers without a cache says so before its
first call.

{phang}
{opt continue}: when not one passage could be validated (the provider cannot be reached,
or it refuses the key), {cmd:llmvalidate}
{varname} stops with the return code of the first passage's failure (see
{help llmvalidate##rc:return codes}), lists every failed observation and stores nothing.
With {opt continue} it stores the results anyway: every result is missing, and
{cmd:r(N_failed)} counts the passages that failed. Passages that fail in a run where others
succeed are always reported and counted, never an error.

{phang}
{opt maxretries(#)} is how often a request is sent again after the provider answered 429
(rate limit) or 5xx, or the connection failed, waiting longer each time (about 1, 2, 4, ...
seconds, or what the provider asks); {cmd:maxretries(0)} fails at once, which finds a wrong
{opt baseurl()} quickly.

{phang}
{opt timeout(#)} limits how long one request may take, in seconds, retries apart.
{opt drain(#)} is how long, after Break, the requests already in flight may finish and be
cached (they are paid for) before the command stops; nothing new is sent after Break.
{opt encoding(name)} says how the bytes of the passages are read: {cmd:utf-8}, or
{cmd:latin1} for data in ISO 8859-1 (a passage that is not valid UTF-8 otherwise fails on its
own observation).

{phang}
{opt concurrency(#)} is the number of requests in flight. {opt dryrun} reports the number of
calls, texts and (estimated) tokens a run would need, and their price with the synchronous
and the batch APIs ({cmd:r(dollars)}, {cmd:r(batch_dollars)}, when a price table is found:
the build's prompts/prices.csv or the file named by the environment variable
LLMV_PRICE_TABLE), and makes no call. {opt batchapi} sends the requests through the
provider's batch API (openai or anthropic, at half the price): one provider batch per phase,
kept in {opt cache()}; running the same command again resumes a stopped run without
submitting anything twice. {opt pollinterval(#)} sets the seconds between two polls of a
batch in progress (the engine's default, 30); Break is seen within a second during the wait,
no batch is submitted after it, and the command stops with rc 1. A request of the batch API already
in flight when Break comes (uploading a batch file, creating a batch) can be waited for up to
{opt timeout()} seconds before the command stops; the next run finds a batch created meanwhile
through the provider's list of batches and submits nothing twice. {opt nowait} (with
{opt batchapi}) submits the next phase's batches, or polls those out once, and returns at once
with {cmd:r(waiting)} = 1 and the batch ids in {cmd:r(batches)}; running the same command
again collects them. When the chosen
{opt m()}, {opt permutations()} or B cannot reach a decision at {opt alpha()} (the smallest
attainable p-value 1/(size + 1) exceeds alpha, e.g. M <= 18 at 0.05), it displays a warning
before the first call, with {opt dryrun} too, also kept in {cmd:r(warnings)};
{cmd:llmvalidate power} displays the same warning before it runs. Every verdict of such a run is {cmd:inconclusive}, with the reason.

{dlgtab:Results}

{phang}
{opt generate(prefix)} creates new variables, filled for the passages in the sample and
missing elsewhere: {it:prefix}{cmd:verdict} (1 valid, 2 invalid, 3 inconclusive; value label
{cmd:llmv_verdict}), {it:prefix}{cmd:tau}, {it:prefix}{cmd:crit}, {it:prefix}{cmd:p},
{it:prefix}{cmd:bt_acc} (backtranslation accuracy), {it:prefix}{cmd:sep_p} (the largest
separation p-value: every separation test passes exactly when it is at most alpha), and, for
{cmd:llmvalidate} {varname}, {it:prefix}{cmd:label} (the LLM's label) and
{it:prefix}{cmd:p_bh} (the Benjamini-Hochberg adjusted p-value). The names are checked before
any call; the variables are made before the matrices of {cmd:r()}, so that a matrix Stata
cannot make (past its matrix limit) is left out of {cmd:r()} and the variables are still
filled. For many passages, {opt generate()} (or {opt nomatrix} and {opt saving()}) is the way
to keep per-passage results.

{phang}
{opt replace} allows {opt generate()} to replace existing variables.

{phang}
{opt notable} suppresses the results table.

{marker saving}{...}
{phang}
{opt saving(filename[, replace])} ({cmd:llmvalidate} {varname}) saves a dataset of what the
model wrote and answered, so that you can read what it wrote for any passage: one observation
per annotation of a passage and per generated text, with {cmd:obs} (the passage's
observation), {cmd:kind} ({cmd:annotation} or {cmd:simulation}), {cmd:label} (the label the
text was written for), {cmd:draw}, {cmd:text}, {cmd:answer} (the label the model gave the
passage, or gave a generated text back when its pool was backtranslated: the pool of the
passage's label), {cmd:model} and {cmd:prompt_hash} (SHA-256 of the prompt). Each passage
has M texts per label. The data in memory are left as they were. A run whose answers are all
in {opt cache()} makes no call, so {cmd:saving()} after a finished run reads its texts back.

{phang}
{opt quietly} ({cmd:llmvalidate version}) displays nothing; the version is in {cmd:r(version)}.

{phang}
{opt prefix(name)} ({cmd:estadd llmvalidate}) is the prefix of the added results; default
{cmd:llmv_}.


{marker sample}{...}
{title:Sample}

{pstd}
{cmd:llmvalidate sample} draws {opt n()} observations at random and marks them with 1 in the
new variable {opt generate()} (0 elsewhere). The draw is the engine's, so the same
{opt seed()} (default 1, as in the command-line tool and R; {cmd:set seed} plays no part)
draws the same rows as {cmd:llmvalidate batch --sample} {it:n} {cmd:--sample-seed} {it:seed}
{cmd:--where} {it:conditions} and R's {cmd:llm_sample()}, rows being observations in the
order of the data (the order of the file they were read from). Observations are drawn from
those that {ifin} and {opt where()} keep; {opt where()} compares each variable's value as
text (a numeric variable through its value labels or its value), e.g.
{cmd:where(agreement=50|66)}. The paper's Section 5 validates two samples of 100 Financial
PhraseBank sentences, one from the sentences all annotators agreed on and one from those
with 50-66% agreement:{p_end}

{phang2}{cmd:llmvalidate sample, n(100) seed(1) where(agreement=100) generate(s100)}{p_end}
{phang2}{cmd:llmvalidate sentence if s100, task(financial_phrasebank) human(label) generate(v_)}{p_end}

{pstd}
It stores {cmd:r(N)} (observations drawn), {cmd:r(N_population)} (observations drawn from),
{cmd:r(seed)} and {cmd:r(where)}.

{pstd}
{bf:Variables named like a subcommand.} A string variable of passages may be called
{cmd:test}, {cmd:power}, {cmd:sample}, {cmd:cache}, {cmd:models} or {cmd:version}: {cmd:llmvalidate test, task(sentiment)}
validates it when the command has an {it:if} or {it:in} qualifier or an option that only
validation takes ({opt task()} for {cmd:test}, {opt provider()}, {opt generate()} for
{cmd:power}, ...); otherwise the subcommand runs, with a note. {cmd:llmvalidate validate}
{varname}{cmd:, ...} always validates.


{marker power}{...}
{title:Power}

{pstd}
{cmd:llmvalidate power} answers "how large must M be?" before anything is paid for. In each
of {opt replications()} replications the {cmd:simulated} provider's synthetic
data-generating process writes the passage y as a text of {opt truelabel()}, its simulated
annotator labels it (so the annotation is valid exactly when it returns the true label), and
the whole validation runs as {cmd:llmvalidate} {varname} would run it, with the same engine
({cmd:llmvalidate power} of the command-line tool gives the same numbers). The results are
shares of replications: how often each test passes and how often each verdict comes out, and
{cmd:r(p_valid_correct)}, the power to call a correct annotation valid. Every result is
synthetic, says so ({cmd:r(synthetic)} is {cmd:yes}) and involves no LLM; nothing is cached.
{opt follow()}, {opt signal()} and {opt accuracy()} describe how well the simulated LLM
follows the label, how strongly the label marks a text, and how well it annotates; see the
repository's {cmd:docs/simulated.md}. {hi:Break} stops the simulation; nothing is stored.


{marker cache}{...}
{title:Cache}

{pstd}
{cmd:llmvalidate cache describe using} {it:filename} shows what the response cache of
{opt cache()} holds: the entries (answers that parsed, and answers that did not: every
answer paid for is kept), the file size, and per provider and model the entries and the tokens
they cost. {cmd:llmvalidate cache clear using} {it:filename} removes every entry, or with
{opt model()} only the entries of one model; the next run pays for them again. The file must
exist (return code 601 otherwise). Without {cmd:using}, the default cache of
{opt cache()} is used. The cache file is shared with R and the command-line tool:
a run in one reuses the answers paid for in another.

{pstd}
{cmd:llmvalidate cache merge using} {it:filename}{cmd:, from(}{it:filelist}{cmd:)} adds every
answer of the cache files in {it:filelist} to {it:filename} (created if need be): the caches of
a job split across machines or cluster nodes, each run with a cache of its own (the
command-line tool's {cmd:batch --shard} {it:I}{cmd:/}{it:N}; SQLite's locking cannot be trusted
on a network file system). Every key is kept once; a key {it:filename} already holds with
another answer is a conflict, counted, and {it:filename}'s answer is kept. A file of
{it:filelist} that does not exist is return code 601.


{marker overview}{...}
{title:Overview}

{pstd}
{cmd:llmvalidate overview} {it:prefix} ... lays out several runs over the same passages side
by side, as the paper's Table 7 (one run per task) and Table 8 (one run per chat model, with
one embedding model): a row per observation, a column per {it:prefix} (the
{opt generate()} prefix of a run), each cell the passage's label and verdict, e.g.
{cmd:Positive (valid)}; an observation a run did not validate shows {cmd:.}. It reads the
variables {it:prefix}{cmd:label} and {it:prefix}{cmd:verdict} and makes no call. The layout is
the command-line tool's overview ({cmd:llmvalidate run} with several tasks or {cmd:--models}).
For Table 8, run the same command once per model ({opt model()}) with its own
{opt generate()} prefix: each model's answers are cached under its own keys, so adding a model
later pays only for that model.


{marker report}{...}
{title:Report}

{pstd}
{cmd:llmvalidate report using} {it:filename}{cmd:.html} writes the last run's report: one
self-contained HTML file (no external request, printable to PDF) with the verdicts, the share
valid and its interval, each passage's tests and the null distributions of its statistics,
Tables 9-11 with {opt human()}, and every setting, model, seed and cost of the run. The engine
writes it, so the file is the same as the command-line tool's {cmd:llmvalidate report} and R's
{cmd:llm_report()} for the same run, up to its creation time. A run on the simulated provider
says so at the top of every page. {opt run(filename)} renders another run document instead:
the one {opt saving()} leaves beside its dataset ({it:name}{cmd:.run.json}), or the
command-line tool's {cmd:--run-json} file. {opt replace} overwrites the HTML file.
{cmd:r(report)} and {cmd:r(run)} name the two files.


{marker models}{...}
{title:Models}

{pstd}
{cmd:llmvalidate models, provider(}{it:name}{cmd:)} asks the vendor ({cmd:openai},
{cmd:anthropic} or {cmd:bedrock}) which models it serves to your credentials (OpenAI's and
Anthropic's {cmd:GET /v1/models}; Bedrock's foundation models and inference profiles) and
lists them in the vendor's order, marking the default chat and embedding models of
{cmd:llmvalidate} and whether the price table has each (the dry run's dollars need a price).
Each model shows its lifecycle, from the vendor's own list (OpenAI's shutdown date, Anthropic's
lifecycle and retirement date, Bedrock's lifecycle status and end of life): a deprecated model
shows the date it retires and the vendor's replacement; where the vendor gives no date, the
dated table shipped with {cmd:llmvalidate} gives one. Use it before {opt model()}: before its
first call, a run refuses a model the vendor has retired, warns when its model (or embedding
model) retires within 60 days, with the date and the replacement, and stops at the first call
on a model the vendor does not serve. The key is read as for a run: the
provider's own environment variable, or the one {opt keyenv()} names; {opt baseurl()} names
another server of the vendor's protocol. The listing makes one request (no tokens are paid).


{marker remarks}{...}
{title:Remarks}

{marker layout}{...}
{pstd}
{bf:The data layout of llmvalidate test.} One observation per text; {varlist} holds the
embedding (one variable per dimension, e.g. {cmd:e1-e768}). The passages under study have
{opt passage()} = 1 and their LLM label in {opt label()}. Every other observation of the
sample is a pool text of the label in {opt label()}; the pools are taken in the order of the
data. An observation whose {opt passage()} is missing is left out, with a note of how many. Several passages can be tested against the same pools at once; each is tested on its
own, with the same seed. Embeddings need not be normalised. A missing value in an embedding,
an empty label or a pool of fewer than two texts is an error that names the variable and the
observation. Embeddings of many dimensions (3,072 for OpenAI's large model) need not be
variables, whose number Stata limits (2,048 in Stata/BE): {opt embmatrix(name)} reads them
from a matrix and {opt embfile(filename)} from a CSV file (numbers separated by commas, an
optional header line), with one row per observation of the data in memory, row i for
observation i (rows of observations outside {ifin} are skipped whatever they hold, e.g. the
empty fields or {cmd:.} that {cmd:export delimited} writes for missing values; a header line is
a first line with a field that is neither a number nor missing). The numbers are
read as doubles. {bf:Store embeddings as double} ({cmd:import delimited ..., asdouble}, or
{cmd:generate double}): a float keeps about 7 digits, which changes the similarities and the
results, so that they no longer equal those of R or the command-line tool.

{pstd}
{bf:Passages as Stata holds them.} The passages, and the values of {opt human()},
{opt simprompt()} and {opt vars()}, are read from str# or strL variables at their full length.
An observation whose passage is missing (an empty string) is left out of the sample, as
Stata's commands leave out missing values, with a note of how many; when none is left, the
return code is 2000. A blank passage (white space only) or an empty {opt vars()} value stops the
command before any call (rc 459, naming the observation). So does a strL that holds a NUL byte (binary data, e.g. from
{cmd:fileread()} of a file that is not text): read as text it would end at the NUL, and the
rest would never be sent.

{pstd}
{bf:Break.} {cmd:llmvalidate} checks for {hi:Break} between passages and between requests,
and {cmd:llmvalidate test} also while it computes the tests (the permutations, the Gram matrices),
at least every tenth of a second.
Nothing is stored after a {hi:Break} (return code 1); the cache keeps every response already
received.

{marker install}{...}
{pstd}
{bf:Installation and platforms.} The plugin runs on 64-bit Windows and on 64-bit Linux
(glibc 2.17 or later: RHEL/CentOS 7 onwards, Ubuntu 18.04 onwards). A net-install folder made
with the repository's {cmd:tools/stata-package.sh} (published on a web site or a shared drive)
holds both plugins, and {cmd:net install} copies the one for your platform:{p_end}

{phang2}{cmd:net install llmvalidate, from("}{it:https://your.site/stata}{cmd:") replace}{p_end}
{phang2}{cmd:llmvalidate version}{p_end}

{pstd}
On Linux the repository's own {cmd:stata/} folder installs too, after a build
({cmd:tools/build.sh} copies the Linux plugin and the task files there):
{cmd:net install llmvalidate, from("}{it:/path/to/repository}{cmd:/stata") replace}.
There is no macOS plugin to download: on a Mac, build it from the repository with the CMake
preset {cmd:macos-arm64} (Apple silicon) or {cmd:macos-x86_64} (Intel) and copy
{cmd:llmvalidate.plugin} beside {cmd:llmvalidate.ado}; until then {cmd:llmvalidate} stops
with return code 601 and says so.

{pstd}
{cmd:llmvalidate version} shows the version of the plugin that was loaded.


{marker examples}{...}
{title:Examples}

{pstd}The example do-file {cmd:llmv_example.do}, an ancillary file of the package:
{cmd:net get llmvalidate} copies it into the current folder. It builds a small dataset any
Stata can make (3 labels with 20 pool texts each and 4 passages, 6 embedding dimensions; the
embeddings are computed by the do-file, not by an LLM), runs the commands below and
{cmd:assert}s their results:{p_end}

{phang2}{cmd:net get llmvalidate}{p_end}
{phang2}{cmd:do llmv_example.do}{p_end}

{pstd}One passage:{p_end}

{phang2}{cmd:llmvalidate test e1-e6 if id <= 61, label(label) passage(passage) backtranslation(llm_back) labels(Positive Neutral Negative) seed(12345)}{p_end}
{phang2}{cmd:return list}{p_end}
{phang2}{cmd:matrix list r(separation)}{p_end}

{pstd}Many passages at once, with new variables:{p_end}

{phang2}{cmd:llmvalidate test e1-e6, label(label) passage(passage) backtranslation(llm_back) labels(Positive Neutral Negative) seed(12345) generate(v_) replace}{p_end}
{phang2}{cmd:tabulate v_verdict}{p_end}

{pstd}For {cmd:esttab} ({cmd:estadd} and {cmd:esttab} are from the {cmd:estout} package on
SSC): {cmd:llmvalidate} posts its statistics in {cmd:e()}, so {cmd:esttab} shows them on their
own, and {cmd:llmvalidate} typed alone shows them again. Beside a regression, store the
regression first, then add the statistics to it with {cmd:estadd}:{p_end}

{phang2}{cmd:regress e1 e2}{p_end}
{phang2}{cmd:estimates store ols}{p_end}
{phang2}{cmd:llmvalidate test e1-e6 if id <= 61, label(label) passage(passage) backtranslation(llm_back) seed(12345) notable}{p_end}
{phang2}{cmd:llmvalidate}{p_end}
{phang2}{cmd:esttab, cells("b crit pvalue")}{p_end}
{phang2}{cmd:estadd llmvalidate : ols}{p_end}
{phang2}{cmd:esttab ols, stats(N llmv_tau llmv_p llmv_accuracy)}{p_end}

{pstd}Power before paying: how often is a correct annotation found valid with M = 50?{p_end}

{phang2}{cmd:set seed 12345}{p_end}
{phang2}{cmd:llmvalidate power, task(sentiment) m(50) replications(100) follow(0.9) accuracy(0.9)}{p_end}
{phang2}{cmd:matrix list r(power)}{p_end}
{phang2}{cmd:display r(p_valid_correct)}{p_end}

{pstd}Your own corpus, from the example dataset shipped with the package: 200 Financial
PhraseBank sentences (Malo et al. 2014, CC BY-NC-SA 3.0; the data of the paper's Section 5),
100 that all annotators labelled alike and 100 with 50-66% agreement, with their human labels.
{cmd:net get llmvalidate} copies {cmd:llmv_phrasebank.dta} into the current folder (it is
made by the repository's {cmd:stata/tools/make_example_data.R}). The simulation prompt must
describe these texts, so the general task gets a description of them. This runs offline
with the {cmd:simulated} provider, a synthetic data-generating process, not an LLM; name a
real provider to validate for real:{p_end}

{phang2}{cmd:use llmv_phrasebank, clear}{p_end}
{phang2}{cmd:llmvalidate sample, n(20) seed(1) where(agreement=100) generate(all_agree)}{p_end}
{phang2}{cmd:llmvalidate sentence if all_agree, task(general_sentiment) vars(genre="sentences from financial news and company press releases, one sentence each") provider(simulated) m(20) human(label) generate(v_)}{p_end}
{phang2}{cmd:matrix list r(table9)}{p_end}
{phang2}{cmd:matrix list r(table10)}{p_end}
{phang2}{cmd:tabulate v_verdict}{p_end}

{pstd}The same with a task of your own, built from its parts:{p_end}

{phang2}{cmd:llmvalidate sentence if all_agree, labels(Positive Neutral Negative) annotation("Is this financial news sentence Positive, Neutral or Negative for the company? SENTENCE: {c -(}text{c )-}") simulation("Write {c -(}n{c )-} sentences from financial news about a company, one sentence each, whose news is {c -(}label{c )-} for the company.") provider(simulated) m(20) generate(w_)}{p_end}

{pstd}The paper's Section 4, Tables 1 to 7: the five passages of the paper (a 10-K filing, an
earnings call, a news article, a Federal Reserve governor's speech and a Reddit comment), each
with its own simulation prompt for each task ({cmd:sim_}{it:task}, for {opt simprompt()}) and
the two topics of Section 4.5 ({cmd:topic_discussed}, {cmd:topic_not_discussed}, for
{opt vars()}). {cmd:net get llmvalidate} copies {cmd:llmv_section4.csv} into the current
folder (made by the repository's {cmd:stata/tools/make_section4_data.py} from
{cmd:prompts/passages/section4.toml}). {opt paper} uses the paper's methods. These run offline
with the {cmd:simulated} provider, a synthetic data-generating process, not an LLM. The paper
used Claude Sonnet 4.5 through AWS Bedrock with Amazon Titan Text Embeddings v2; to run its
models give {cmd:provider(bedrock) model(anthropic.claude-sonnet-4-5-20250929-v1:0)}
{cmd:embedding(bedrock-titan)} instead (a model's new draws will not repeat the paper's
numbers). The last line lays the six
runs side by side, as Table 7:{p_end}

{phang2}{cmd:import delimited using llmv_section4.csv, clear varnames(1) encoding("utf-8") bindquote(strict)}{p_end}
{phang2}{cmd:llmvalidate text, task(simple_sentiment) simprompt(sim_simple_sentiment) paper provider(simulated) generate(t1_)}{p_end}
{phang2}{cmd:llmvalidate text, task(detailed_sentiment) simprompt(sim_detailed_sentiment) paper provider(simulated) generate(t2_)}{p_end}
{phang2}{cmd:llmvalidate text, task(clarity) simprompt(sim_clarity) paper provider(simulated) generate(t3_)}{p_end}
{phang2}{cmd:llmvalidate text, task(temporal_focus) simprompt(sim_temporal_focus) paper provider(simulated) generate(t4_)}{p_end}
{phang2}{cmd:llmvalidate text, task(topic) vars(topic=topic_discussed) simprompt(sim_topic) paper provider(simulated) generate(t5_)}{p_end}
{phang2}{cmd:llmvalidate text, task(topic) vars(topic=topic_not_discussed) simprompt(sim_topic) paper provider(simulated) generate(t6_)}{p_end}
{phang2}{cmd:llmvalidate overview t1_ t2_ t3_ t4_ t5_ t6_, titles(title) names(sentiment detailed clarity temporal topic "topic absent")}{p_end}

{pstd}Validating passages with LLM calls, with a cache: the models Anthropic serves to your key,
then the shipped example dataset, first priced by a dry run (no call), then run with
Anthropic's API (the key from {cmd:ANTHROPIC_API_KEY}; the texts are embedded by OpenAI's API,
with {cmd:OPENAI_API_KEY}, as Anthropic offers no embedding model):{p_end}

{phang2}{cmd:llmvalidate models, provider(anthropic)}{p_end}
{phang2}{cmd:use llmv_phrasebank, clear}{p_end}
{phang2}{cmd:llmvalidate sentence in 1/5, task(general_sentiment) vars(genre="sentences from financial news and company press releases, one sentence each") provider(anthropic) cache(llmv.sqlite) dryrun}{p_end}
{phang2}{cmd:llmvalidate sentence in 1/5, task(general_sentiment) vars(genre="sentences from financial news and company press releases, one sentence each") provider(anthropic) cache(llmv.sqlite) generate(v_)}{p_end}

{pstd}The cache after that run holds the answers of its model ({cmd:claude-haiku-5-5}, Anthropic's
default when this help was written; {cmd:llmvalidate models} returns today's in
{cmd:r(chat_default)}): describe it, then clear that model's answers:{p_end}

{phang2}{cmd:llmvalidate cache describe using llmv.sqlite}{p_end}
{phang2}{cmd:llmvalidate cache clear using llmv.sqlite, model(claude-haiku-5-5)}{p_end}


{marker results}{...}
{title:Stored results}

{pstd}
{cmd:llmvalidate} and {cmd:llmvalidate test} store the following in {cmd:r()}:

{synoptset 22 tabbed}{...}
{p2col 5 22 26 2: Scalars}{p_end}
{synopt:{cmd:r(N)}}number of passages: the observations validated ({cmd:llmvalidate test}: those with {opt passage()} = 1; the pool texts are not counted){p_end}
{synopt:{cmd:r(N_valid)}}passages found valid{p_end}
{synopt:{cmd:r(N_invalid)}}passages found invalid{p_end}
{synopt:{cmd:r(N_inconclusive)}}passages whose prerequisites failed{p_end}
{synopt:{cmd:r(N_failed)}}passages that could not be validated (their results are missing){p_end}
{synopt:{cmd:r(N_succeeded)}}passages that were validated (a verdict each): {cmd:r(N)} - {cmd:r(N_failed)}{p_end}
{synopt:{cmd:r(share_valid)}}share valid among passages whose prerequisites pass (Table 9){p_end}
{synopt:{cmd:r(alpha)}}level of the tests{p_end}
{synopt:{cmd:r(threshold)}}backtranslation threshold{p_end}
{synopt:{cmd:r(permutations)}}permutations R of the separation test (missing under {cmd:smethod(paper)}, which draws none){p_end}
{synopt:{cmd:r(K)}}number of labels{p_end}
{synopt:{cmd:r(calls)}}({cmd:llmvalidate} {varname}) chat calls made (answers from the cache not counted){p_end}
{synopt:{cmd:r(cache_hits)}}({cmd:llmvalidate} {varname}) answers served from the cache{p_end}

{p2col 5 22 26 2: Scalars (one passage)}{p_end}
{synopt:{cmd:r(tau)}}validation statistic tau{p_end}
{synopt:{cmd:r(crit)}}its critical value (missing when no value of tau can reject){p_end}
{synopt:{cmd:r(p)}}p-value of the validation test{p_end}
{synopt:{cmd:r(reject)}}1 if validity is rejected{p_end}
{synopt:{cmd:r(M)}}pool size{p_end}
{synopt:{cmd:r(B)}}reference texts B of the paper's validation test ({cmd:vmethod(paper)}; 0 otherwise){p_end}
{synopt:{cmd:r(accuracy)}}backtranslation accuracy{p_end}
{synopt:{cmd:r(acc_lb)}}its exact one-sided lower confidence bound{p_end}
{synopt:{cmd:r(bt_pass)}}1 if backtranslation passes{p_end}
{synopt:{cmd:r(sep_p)}}largest separation p-value{p_end}
{synopt:{cmd:r(sep_pass)}}1 if every separation test passes{p_end}
{synopt:{cmd:r(verdict_code)}}1 valid, 2 invalid, 3 inconclusive{p_end}

{p2col 5 22 26 2: Macros}{p_end}
{synopt:{cmd:r(cmd)}}{cmd:llmvalidate}{p_end}
{synopt:{cmd:r(subcmd)}}{cmd:test} or {cmd:validate}{p_end}
{synopt:{cmd:r(verdict)}}{cmd:valid}, {cmd:invalid} or {cmd:inconclusive} (one passage){p_end}
{synopt:{cmd:r(reason)}}why (one passage){p_end}
{synopt:{cmd:r(label)}}the LLM's label (one passage){p_end}
{synopt:{cmd:r(labels)}}the label set{p_end}
{synopt:{cmd:r(seed)}}the seed used{p_end}
{synopt:{cmd:r(vmethod)}, {cmd:r(smethod)}, {cmd:r(rule)}}the methods{p_end}
{synopt:{cmd:r(synthetic)}}({cmd:llmvalidate} {varname}) {cmd:yes} when the {cmd:simulated} provider produced the texts, else {cmd:no}{p_end}
{synopt:{cmd:r(cache)}}({cmd:llmvalidate} {varname}) the cache file (empty with {opt nocache}){p_end}
{synopt:{cmd:r(report)}}({cmd:llmvalidate report}) the HTML file written{p_end}
{synopt:{cmd:r(run)}}({cmd:llmvalidate report}) the run document it was rendered from{p_end}
{synopt:{cmd:r(warnings)}}({cmd:llmvalidate} {varname}) every warning the run displayed (a size that cannot decide, no cache, a model retiring soon, a feature the model refused), separated by spaces; empty when none{p_end}
{synopt:{cmd:r(task)}}({cmd:llmvalidate} {varname}) the task file (empty for a task from {opt labels()}, {opt annotation()} and {opt simulation()}){p_end}
{synopt:{cmd:r(provider)}, {cmd:r(model)}}({cmd:llmvalidate} {varname}) the chat provider and the model used (the provider's default model when {opt model()} is not given){p_end}
{synopt:{cmd:r(embedding_provider)}, {cmd:r(embedding_model)}}({cmd:llmvalidate} {varname}) the embedding provider and model used{p_end}
{synopt:{cmd:r(bt_given)}}({cmd:llmvalidate test}) {cmd:yes} when {opt backtranslation()} was given, else {cmd:no}{p_end}

{p2col 5 22 26 2: Matrices}{p_end}
{synopt:{cmd:r(results)}}one row per passage: obs, tau, crit, p, reject, accuracy, acc_lb, bt_pass, sep_p, sep_pass, verdict, and for {cmd:llmvalidate} {varname} p_bh (Benjamini-Hochberg); left out with {opt nomatrix} or past Stata's matrix limit{p_end}
{synopt:{cmd:r(table9)}}({cmd:llmvalidate} {varname}) Table 9: rows All and each LLM label; columns n (prerequisites pass), n_valid, share_valid, n_human_agree, share_human (with {opt human()}){p_end}
{synopt:{cmd:r(table10)}}({opt human()}) Table 10: share valid, rows the LLM's labels, columns the human labels{p_end}
{synopt:{cmd:r(table10_n)}}({opt human()}) the passages of each cell of {cmd:r(table10)} whose prerequisites pass{p_end}
{synopt:{cmd:r(table11)}}({opt human()}) Table 11: the observation ({cmd:obs}) of each passage whose LLM label differs from the human label and is valid, rows named {it:LLM label}{cmd::}{it:human label}; left out when there are none{p_end}
{synopt:{cmd:r(separation)}}one row per other label: xi, crit, p, pass, M_beta, M_gamma, reps (R; 0 under {cmd:smethod(paper)}), B (the reference texts; 0 under {cmd:smethod(permutation)}) (one passage){p_end}
{synopt:{cmd:r(counts)}}the labels the LLM gave the pool of b (one passage){p_end}
{synopt:{cmd:r(backtranslation)}}accuracy, lower_bound, pass, M, correct by label (one passage){p_end}

{pstd}
{cmd:llmvalidate} {varname}{cmd:, batchapi nowait}, while the provider's batches are in
progress, stores only the scalar {cmd:r(waiting)} (1) and the macros {cmd:r(batches)} (the
ids of the provider batches this run submitted, separated by spaces; empty when it only looked
at batches submitted before) and {cmd:r(cache)} (the cache file that the same
command, run again, collects the answers from), besides {cmd:r(cmd)}, {cmd:r(subcmd)} and
{cmd:r(task)}; nothing is posted in {cmd:e()}.

{pstd}
{cmd:llmvalidate} {varname}{cmd:, dryrun} stores the scalars {cmd:r(N)} (passages),
{cmd:r(calls)} (chat calls it would make), {cmd:r(cached_calls)} (answers already in the
cache), {cmd:r(embedded_texts)}, {cmd:r(input_tokens)}, {cmd:r(output_tokens)} (of which
{cmd:r(reasoning_tokens)}, a reasoning model's) and {cmd:r(embedding_tokens)} (estimates), and, when a price table was found, {cmd:r(dollars)} and
{cmd:r(batch_dollars)}; the macros {cmd:r(dryrun)} ({cmd:yes}), {cmd:r(note)},
{cmd:r(warnings)}, {cmd:r(price_table)} and {cmd:r(price_note)}, besides {cmd:r(cmd)},
{cmd:r(subcmd)} and {cmd:r(task)}.

{pstd}
{cmd:llmvalidate power} stores in {cmd:r()}: the scalars {cmd:r(replications)},
{cmd:r(N_correct)} and {cmd:r(N_wrong)} (replications whose annotation was correct or wrong);
the shares {cmd:r(p_correct)} (annotation correct), {cmd:r(p_bt_pass)} (backtranslation
passes), {cmd:r(p_sep_pass)} (every separation test passes), {cmd:r(p_not_rejected)}
(validity not rejected), {cmd:r(p_valid)}, {cmd:r(p_invalid)}, {cmd:r(p_inconclusive)}
(verdicts), {cmd:r(p_valid_correct)} (valid among correct annotations), {cmd:r(p_invalid_wrong)}
(invalid among wrong ones); {cmd:r(se_valid)} (Monte Carlo standard error of
{cmd:r(p_valid)}); the settings {cmd:r(M)}, {cmd:r(n)}, {cmd:r(repeats)}, {cmd:r(alpha)},
{cmd:r(threshold)}, {cmd:r(permutations)} (missing under {cmd:smethod(paper)}), {cmd:r(B)} (the paper methods' reference texts, missing without them), {cmd:r(follow)}, {cmd:r(signal)},
{cmd:r(accuracy)}, {cmd:r(unparseable)}; the macros {cmd:r(true_label)}, {cmd:r(seed)},
{cmd:r(dgpseed)}, {cmd:r(vmethod)}, {cmd:r(smethod)}, {cmd:r(rule)}, {cmd:r(provider)}
({cmd:simulated}), {cmd:r(synthetic)} ({cmd:yes}), {cmd:r(task)}; and the matrix
{cmd:r(power)}, the shares above as one column, rows {cmd:correct}, {cmd:bt_pass},
{cmd:sep_pass}, {cmd:not_rejected}, {cmd:valid}, {cmd:invalid}, {cmd:inconclusive},
{cmd:valid_correct}, {cmd:invalid_wrong}.

{pstd}
{cmd:llmvalidate cache} stores the scalars {cmd:r(entries)}, {cmd:r(ok_entries)},
{cmd:r(other_entries)}, {cmd:r(size_bytes)}, {cmd:r(N_models)}, after {cmd:clear},
{cmd:r(removed)}, and after {cmd:merge}, {cmd:r(merged_answers)}, {cmd:r(merged_added)},
{cmd:r(merged_same)} and {cmd:r(merged_conflicts)} (over the files of {opt from()}); the macros {cmd:r(using)}, {cmd:r(action)}, {cmd:r(model)} and
{cmd:r(model_names)} (the {it:provider}/{it:model} of each row of the matrix); and the matrix
{cmd:r(models)}: per provider and model the entries, the entries that parsed, and the input
and output tokens they cost.

{pstd}
{cmd:llmvalidate models} stores the scalars {cmd:r(N)} (models listed), {cmd:r(N_priced)}
(those the price table has), {cmd:r(N_deprecated)} and {cmd:r(N_retired)} (those whose
retirement the vendor has announced, and those it has retired); the macros {cmd:r(provider)},
{cmd:r(ids)} (the model ids, in the vendor's order), {cmd:r(retires)} (each id's retirement
date, {it:YYYY-MM-DD}, or {cmd:.} when none is announced, in the order of {cmd:r(ids)}),
{cmd:r(deprecated)} and {cmd:r(retired)} (the ids in those states), {cmd:r(chat_default)} and
{cmd:r(embedding_default)} (the default models, when the vendor lists them), {cmd:r(priced)}
(the ids that have a price), {cmd:r(price_table)} and {cmd:r(fetched)} (when the vendor
answered); and the matrix {cmd:r(catalogue)}, a row per id in the order of {cmd:r(ids)} with
the columns {cmd:default} (1: the default chat model, 2: the default embedding model, 0:
neither), {cmd:priced} (1 or 0), {cmd:profile} (1: a Bedrock inference profile),
{cmd:lifecycle} (0: active, 1: deprecated, 2: retired) and {cmd:retires} (the retirement date as
a Stata date, missing when none is announced).

{pstd}
{cmd:llmvalidate overview} stores the scalar {cmd:r(N)} (rows shown) and the macros
{cmd:r(columns)} (the column headers) and {cmd:r(valid)} (the number of valid cells of each
column, in the columns' order).

{pstd}
{cmd:llmvalidate sample} stores the scalars {cmd:r(N)} (observations drawn) and
{cmd:r(N_population)} (observations it drew from) and the macros {cmd:r(seed)} and {cmd:r(where)}. {cmd:llmvalidate version}
stores the macros {cmd:r(version)} and {cmd:r(spi)} and the scalar
{cmd:r(validate_available)}. Every subcommand stores {cmd:r(cmd)} ({cmd:llmvalidate}) and
{cmd:r(subcmd)}.

{pstd}
{cmd:llmvalidate} and {cmd:llmvalidate test} (not a dry run, not {opt nowait} while waiting) also
post their statistics in {cmd:e()}, for {cmd:esttab} and for the replay ({cmd:llmvalidate} typed
alone): {cmd:e(b)}, the statistics as a coefficient vector (one passage: the columns
{cmd:validation:tau}, {cmd:separation:}{it:label} (xi against each other label) and, with
{opt backtranslation()}, {cmd:backtranslation:accuracy}; many passages: the tau of each passage
validated, {cmd:tau:obs}{it:#} for observation {it:#}); {cmd:e(crit)} and {cmd:e(pvalue)}, their
critical values and p-values, with the same columns (the critical value of the accuracy is the
threshold; it has no p-value); {cmd:e(N)}, the passages, as {cmd:r(N)}; every other scalar and
macro of {cmd:r()} under the same name ({cmd:e(verdict)}, {cmd:e(N_valid)}, ...); {cmd:e(cmd)}
({cmd:llmvalidate}), {cmd:e(subcmd)}, {cmd:e(title)}; and {cmd:e(sample)}, the passages. There
is no {cmd:e(V)}: the tests give p-values, not standard errors. This replaces the estimates
in {cmd:e()}, as any estimation command does: store a regression
({cmd:estimates store}) before running {cmd:llmvalidate} beside it.

{pstd}
{cmd:estadd llmvalidate} adds every scalar in {cmd:r()} (all those of {cmd:llmvalidate},
{cmd:llmvalidate test} or {cmd:llmvalidate power} above, e.g. {cmd:r(N_failed)}, {cmd:r(K)},
{cmd:r(B)}) and the macros {cmd:r(verdict)}, {cmd:r(label)}, {cmd:r(seed)}, {cmd:r(vmethod)},
{cmd:r(smethod)}, {cmd:r(rule)}, {cmd:r(provider)}, {cmd:r(model)} and
{cmd:r(embedding_model)} to the stored estimates with the prefix
{cmd:llmv_}, e.g. {cmd:e(llmv_tau)}, {cmd:e(llmv_p)}, {cmd:e(llmv_verdict)}. Run it right
after {cmd:llmvalidate}, while {cmd:r()} holds its results, naming the stored estimates to add
to ({cmd:estadd llmvalidate : ols}): the active estimates are then {cmd:llmvalidate}'s own, to
which it refuses to add (return code 301).


{marker rc}{...}
{title:Return codes}

{pstd}
Errors of the plugin are reported with a message and one of these return codes. Messages
name the options as you type them ({opt alpha()}) and the observations of your data
({cmd:observation 25}). When no passage of {cmd:llmvalidate} {varname} could be validated,
the return code is that of the first passage's failure (e.g. 677 when the provider cannot be
reached), unless {opt continue} is given:

{p2colset 5 12 14 2}{...}
{p2col:{bf:1}}{hi:Break} was pressed; nothing was stored{p_end}
{p2col:{bf:109}}a variable of the wrong type (e.g. numeric passages){p_end}
{p2col:{bf:198}}an invalid option value ({opt alpha()} outside [1e-06, 0.5], an unknown method, a value with a space in {opt vmethod()}, {opt smethod()}, {opt rule()}, {opt structured()} or {opt encoding()}, a malformed task, a missing key, {opt keyenv()} naming an environment variable that is not set){p_end}
{p2col:{bf:111}}the matrix of {opt embmatrix()} does not exist{p_end}
{p2col:{bf:459}}the data are not as required: an empty or blank passage, an empty per-observation value of {opt vars()}, a strL holding a NUL byte (binary data), a {opt human()} label outside the task's label set, a {opt simprompt()} prompt the task cannot use, a missing embedding value, an empty label, a zero embedding, embeddings of different sizes, a pool of fewer than two texts, a label outside {opt labels()}{p_end}
{p2col:{bf:498}}an internal error of llmvalidate (please report it){p_end}
{p2col:{bf:601}}the task file (an unknown task name), the cache file ({cmd:llmvalidate cache}), the file of {opt embfile()} or the plugin was not found{p_end}
{p2col:{bf:603}}a file (the cache, the task) could not be opened or written{p_end}
{p2col:{bf:673}}the provider refused the API key{p_end}
{p2col:{bf:674}}the provider's answer could not be read (not JSON, malformed, or a label outside the label set){p_end}
{p2col:{bf:675}}the provider reported an error (rate limit, bad request, unknown model, server error){p_end}
{p2col:{bf:677}}the connection to the provider failed or timed out{p_end}
{p2col:{bf:909}}out of memory{p_end}
{p2col:{bf:2000}}no observations{p_end}
{p2colreset}{...}


{marker reference}{...}
{title:Reference}

{phang}
Hansen, A. L. 2026. Validating Large Language Model Annotations. Finance and Economics
Discussion Series 2026-020. Washington: Board of Governors of the Federal Reserve System.
{browse "https://doi.org/10.17016/FEDS.2026.020":doi:10.17016/FEDS.2026.020}.
{p_end}


{title:Also see}

{psee}
{help estadd} (if installed), {help esttab} (if installed)
{p_end}
