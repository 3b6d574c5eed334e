/* A minimal Stata for the old-glibc load test (tools/test.d/stata-old-glibc.sh): plain C, linked
 * with -ldl and nothing else, so that the process has not loaded libpthread.so.0 when it
 * dlopen()s the plugin, as a Stata that does not link libpthread would be on glibc before 2.34.
 * It fills the SPI 3.0 table with just what `version`, `test` and `validate` use, replays the
 * ado-file's two-call protocol (the computing call, then `store` into the matrices and
 * variables it announced) and prints the return codes and every r() scalar and macro.
 *
 *   tiny_host PLUGIN version
 *   tiny_host PLUGIN test
 *   tiny_host PLUGIN validate TASK_FILE CACHE_FILE BASE_URL API_KEY
 *
 * Exit status: 0 when every call returned rc 0; 1 when one did not or the plugin did not load;
 * 2 on bad arguments. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmv_stplugin.h"

#define MAX_ITEMS 512
#define MAX_OBS 128

static double missing_value(void) { return 8.98846567431158e307; /* 2^1023, Stata's `.` */ }

/* --- macros and scalars: name/value lists --- */
struct macro {
    char* name;
    char* value;
};
static struct macro macros[MAX_ITEMS];
static int n_macros;

static void macro_set(const char* name, const char* value) {
    for (int i = 0; i < n_macros; ++i)
        if (strcmp(macros[i].name, name) == 0) {
            free(macros[i].value);
            macros[i].value = strdup(value);
            return;
        }
    if (n_macros == MAX_ITEMS) abort();
    macros[n_macros].name = strdup(name);
    macros[n_macros].value = strdup(value);
    ++n_macros;
}
static const char* macro_get(const char* name) {
    for (int i = 0; i < n_macros; ++i)
        if (strcmp(macros[i].name, name) == 0) return macros[i].value;
    return "";
}
static const char* local_get(const char* name) {
    char key[128];
    snprintf(key, sizeof key, "_%s", name);
    return macro_get(key);
}
static void local_set(const char* name, const char* value) {
    char key[128];
    snprintf(key, sizeof key, "_%s", name);
    macro_set(key, value);
}

struct scalar {
    char* name;
    double value;
};
static struct scalar scalars[MAX_ITEMS];
static int n_scalars;

/* --- matrices: created by the host before `store`, with their final size --- */
struct matrix {
    char* name;
    int rows, cols;
    double* values;
};
static struct matrix matrices[MAX_ITEMS];
static int n_matrices;
static struct matrix* matrix_find(const char* name) {
    for (int i = 0; i < n_matrices; ++i)
        if (strcmp(matrices[i].name, name) == 0) return &matrices[i];
    return NULL;
}

/* --- the dataset: numeric, str# or strL variables; the call's varlist indexes them --- */
enum kind { NUMERIC, STR, STRL };
struct variable {
    char name[40];
    enum kind kind;
    double numbers[MAX_OBS];
    char* strings[MAX_OBS];
};
static struct variable variables[64];
static int n_variables, n_obs;
static int varlist[64], n_varlist;

static struct variable* variable_at(ST_int var) {
    if (var < 1 || var > n_varlist) return NULL;
    return &variables[varlist[var - 1]];
}
static int add_variable(const char* name, enum kind kind) {
    struct variable* v = &variables[n_variables];
    snprintf(v->name, sizeof v->name, "%s", name);
    v->kind = kind;
    for (int i = 0; i < MAX_OBS; ++i) {
        v->numbers[i] = missing_value();
        v->strings[i] = strdup("");
    }
    return n_variables++;
}

/* --- the SPI callbacks --- */
static ST_int stop_flag;
static ST_int cb_display(char* text) { return fputs(text, stdout) < 0; }
static ST_int cb_error(char* text) { return fputs(text, stdout) < 0; }
static void cb_flush(void) { fflush(stdout); }
static ST_int cb_poll(void) { return 0; }
static ST_int cb_macro_save(char* name, char* value) {
    macro_set(name, value);
    return 0;
}
static ST_int cb_macro_use(char* name, char* buffer, ST_int length) {
    if (length < 1) return 198;
    snprintf(buffer, (size_t)length, "%s", macro_get(name));
    return 0;
}
static ST_int cb_scalar_save(char* name, ST_double value) {
    for (int i = 0; i < n_scalars; ++i)
        if (strcmp(scalars[i].name, name) == 0) {
            scalars[i].value = value;
            return 0;
        }
    if (n_scalars == MAX_ITEMS) return 198;
    scalars[n_scalars].name = strdup(name);
    scalars[n_scalars].value = value;
    ++n_scalars;
    return 0;
}
static ST_int cb_scalar_use(char* name, ST_double* value) {
    for (int i = 0; i < n_scalars; ++i)
        if (strcmp(scalars[i].name, name) == 0) {
            *value = scalars[i].value;
            return 0;
        }
    return 111;
}
static ST_int cb_nobs(void) { return n_obs; }
static ST_int cb_nvar(void) { return n_variables; }
static ST_int cb_nvars(void) { return n_varlist; }
static ST_boolean cb_is_missing(ST_double value) { return !(value < missing_value()); }
static ST_boolean cb_var_is_string(ST_int var) {
    const struct variable* v = variable_at(var);
    return v != NULL && v->kind != NUMERIC;
}
static ST_boolean cb_var_is_strl(ST_int var) {
    const struct variable* v = variable_at(var);
    return v != NULL && v->kind == STRL;
}
static ST_boolean cb_var_is_binary(ST_int var, ST_int obs) {
    (void)var;
    (void)obs;
    return 0;
}
static ST_boolean cb_if_obs(ST_int obs) { return obs >= 1 && obs <= n_obs; }
static ST_int cb_in_first(void) { return 1; }
static ST_int cb_in_last(void) { return n_obs; }
static ST_int cb_vdata(ST_int var, ST_int obs, ST_double* value) {
    const struct variable* v = variable_at(var);
    if (v == NULL || obs < 1 || obs > n_obs) return 498;
    if (v->kind != NUMERIC) return 109;
    *value = v->numbers[obs - 1];
    return 0;
}
static ST_int cb_vstore(ST_int var, ST_int obs, ST_double value) {
    struct variable* v = variable_at(var);
    if (v == NULL || obs < 1 || obs > n_obs) return 498;
    if (v->kind != NUMERIC) return 109;
    v->numbers[obs - 1] = value;
    return 0;
}
static ST_int cb_sdata(ST_int var, ST_int obs, char* buffer) {
    const struct variable* v = variable_at(var);
    if (v == NULL || obs < 1 || obs > n_obs) return 498;
    if (v->kind != STR) return 109;
    strcpy(buffer, v->strings[obs - 1]);
    return 0;
}
static ST_int cb_sstore(ST_int var, ST_int obs, char* value) {
    struct variable* v = variable_at(var);
    if (v == NULL || obs < 1 || obs > n_obs) return 498;
    if (v->kind != STR) return 109;
    free(v->strings[obs - 1]);
    v->strings[obs - 1] = strdup(value);
    return 0;
}
static ST_int cb_sdatalen(ST_int var, ST_int obs) {
    const struct variable* v = variable_at(var);
    if (v == NULL || obs < 1 || obs > n_obs) return -498;
    if (v->kind == NUMERIC) return -109;
    return (ST_int)strlen(v->strings[obs - 1]);
}
static ST_int cb_strldata(ST_int var, ST_int obs, char* buffer, ST_int length) {
    const struct variable* v = variable_at(var);
    if (v == NULL || obs < 1 || obs > n_obs || length < 1) return -498;
    if (v->kind == NUMERIC) return -109;
    snprintf(buffer, (size_t)length, "%s", v->strings[obs - 1]);
    return (ST_int)strlen(buffer);
}
static ST_int cb_mat_el(char* name, ST_int row, ST_int col, ST_double* value) {
    const struct matrix* m = matrix_find(name);
    if (m == NULL) return 111;
    if (row < 1 || col < 1 || row > m->rows || col > m->cols) return 503;
    *value = m->values[(row - 1) * m->cols + (col - 1)];
    return 0;
}
static ST_int cb_mat_store(char* name, ST_int row, ST_int col, ST_double value) {
    struct matrix* m = matrix_find(name);
    if (m == NULL) return 111;
    if (row < 1 || col < 1 || row > m->rows || col > m->cols) return 503;
    m->values[(row - 1) * m->cols + (col - 1)] = value;
    return 0;
}
static ST_int cb_rows(char* name) {
    const struct matrix* m = matrix_find(name);
    return m == NULL ? 0 : m->rows;
}
static ST_int cb_cols(char* name) {
    const struct matrix* m = matrix_find(name);
    return m == NULL ? 0 : m->cols;
}

/* --- the plugin --- */
static ST_plugin table;
static ST_retcode (*plugin_call)(int, char**);

static int load(const char* path) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        printf("dlopen failed: %s\n", dlerror());
        return 1;
    }
    ST_retcode (*init)(ST_plugin*) = (ST_retcode(*)(ST_plugin*))dlsym(handle, "pginit");
    plugin_call = (ST_retcode(*)(int, char**))dlsym(handle, "stata_call");
    if (init == NULL || plugin_call == NULL) {
        printf("the plugin does not export pginit and stata_call\n");
        return 1;
    }
    table.display_smcl = cb_display;
    table.display_plain = cb_display;
    table.flush_output = cb_flush;
    table.poll_standard = cb_poll;
    table.poll_now = cb_poll;
    table.macro_save = cb_macro_save;
    table.macro_use = cb_macro_use;
    table.scalar_use = cb_scalar_use;
    table.matsize = 11000;
    table.nobs = cb_nobs;
    table.nvar = cb_nvar;
    table.missval = missing_value();
    table.is_missing = cb_is_missing;
    table.var_is_string = cb_var_is_string;
    table.stopflag = &stop_flag;
    table.store_safe = cb_vstore;
    table.store_string = cb_sstore;
    table.if_obs = cb_if_obs;
    table.in_first = cb_in_first;
    table.in_last = cb_in_last;
    table.nvars = cb_nvars;
    table.display_error = cb_error;
    table.matrix_element_safe = cb_mat_el;
    table.matrix_store_safe = cb_mat_store;
    table.vdata_safe = cb_vdata;
    table.cols_of = cb_cols;
    table.rows_of = cb_rows;
    table.scalar_save = cb_scalar_save;
    table.string_data = cb_sdata;
    table.major = 3;
    table.minor = 0;
    table.var_is_strl = cb_var_is_strl;
    table.var_is_binary = cb_var_is_binary;
    table.string_length = cb_sdatalen;
    table.strl_data = cb_strldata;
    const ST_retcode version = init(&table);
    printf("pginit %d\n", version);
    return version == SD_PLUGINVER ? 0 : 1;
}

static int call(int argc, char** argv) {
    const int rc = plugin_call(argc, argv);
    printf("%s rc %d\n", argv[0], rc);
    return rc;
}

/* The next word of an announcement list: words separated by spaces, a word in compound quotes
 * (`"results"') without them, as `foreach x of local list` reads it. */
static const char* next_word(const char* list, char* word, size_t size) {
    while (*list == ' ') ++list;
    if (list[0] == '`' && list[1] == '"') {
        const char* close = strstr(list + 2, "\"'");
        if (close == NULL) return NULL;
        snprintf(word, size, "%.*s", (int)(close - list - 2), list + 2);
        return close + 2;
    }
    size_t n = 0;
    while (list[n] != '\0' && list[n] != ' ') ++n;
    if (n == 0) return NULL;
    snprintf(word, size, "%.*s", (int)n, list);
    return list + n;
}

/* The ado-file's second call: the announced matrices and variables made, then `store`; then
 * r() printed. */
static int store_and_print(void) {
    char* store[MAX_ITEMS];
    int n_store = 0;
    char word[64], key[128], text[256];
    store[n_store++] = strdup("store");
    snprintf(text, sizeof text, "token=%s", local_get("llmv_token"));
    store[n_store++] = strdup(text);
    store[n_store++] = strdup("scalars=__R");
    const char* list = local_get("llmv_matrices");
    for (int index = 1; (list = next_word(list, word, sizeof word)) != NULL; ++index) {
        struct matrix* m = &matrices[n_matrices++];
        snprintf(key, sizeof key, "llmv_m%d_rows", index);
        m->rows = atoi(local_get(key));
        snprintf(key, sizeof key, "llmv_m%d_cols", index);
        m->cols = atoi(local_get(key));
        snprintf(text, sizeof text, "__M_%s", word);
        m->name = strdup(text);
        m->values = calloc((size_t)(m->rows * m->cols) + 1, sizeof(double));
        snprintf(text, sizeof text, "mat_%s=__M_%s", word, word);
        store[n_store++] = strdup(text);
    }
    n_varlist = 0;
    list = local_get("llmv_vars");
    for (int index = 1; (list = next_word(list, word, sizeof word)) != NULL; ++index) {
        snprintf(key, sizeof key, "llmv_v%d_type", index);
        const char* type = local_get(key);
        const enum kind kind = strcmp(type, "strL") == 0      ? STRL
                               : strncmp(type, "str", 3) == 0 ? STR
                                                              : NUMERIC;
        snprintf(text, sizeof text, "__T_%s", word);
        varlist[n_varlist++] = add_variable(text, kind);
    }
    const int rc = call(n_store, store);
    if (rc != 0) return rc;
    list = local_get("llmv_scalars");
    while ((list = next_word(list, word, sizeof word)) != NULL) {
        double value = 0;
        snprintf(text, sizeof text, "__R_%s", word);
        if (cb_scalar_use(text, &value) != 0) {
            printf("r(%s) was announced and not stored\n", word);
            return 1;
        }
        printf("r(%s) %.17g\n", word, value);
    }
    list = local_get("llmv_macros");
    while ((list = next_word(list, word, sizeof word)) != NULL) {
        snprintf(key, sizeof key, "llmv_r_%s", word);
        printf("r(%s) \"%s\"\n", word, local_get(key));
    }
    for (int i = 0; i < n_matrices; ++i)
        printf("matrix %s %dx%d\n", matrices[i].name, matrices[i].rows, matrices[i].cols);
    for (int i = 0; i < n_varlist; ++i) printf("variable %s\n", variables[varlist[i]].name);
    return 0;
}

/* Embeddings for `test`: three labels with 12 pool texts each around well separated centres,
 * and one passage (labelled Negative) near the Negative centre; numbers from a fixed LCG. */
static unsigned long long lcg_state = 12345;
static double noise(void) {
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(lcg_state >> 11) / 9007199254740992.0 - 0.5) * 0.2;
}
static void load_embeddings(void) {
    static const char* labels[] = {"Positive", "Neutral", "Negative"};
    enum { dim = 4, per_label = 12 };
    const int label = add_variable("label", STR);
    const int passage = add_variable("passage", NUMERIC);
    int embed[dim];
    for (int k = 0; k < dim; ++k) {
        char name[8];
        snprintf(name, sizeof name, "e%d", k + 1);
        embed[k] = add_variable(name, NUMERIC);
    }
    n_obs = 0;
    for (int l = 0; l < 3; ++l)
        for (int i = 0; i <= per_label; ++i) {
            const int is_passage = i == per_label;
            if (is_passage && l != 2) continue;
            free(variables[label].strings[n_obs]);
            variables[label].strings[n_obs] = strdup(labels[l]);
            variables[passage].numbers[n_obs] = is_passage;
            for (int k = 0; k < dim; ++k)
                variables[embed[k]].numbers[n_obs] = (k == l ? 1.0 : 0.0) + noise();
            ++n_obs;
        }
    n_varlist = 0;
    varlist[n_varlist++] = label;
    varlist[n_varlist++] = passage;
    for (int k = 0; k < dim; ++k) varlist[n_varlist++] = embed[k];
}

static void load_passages(void) {
    static const char* texts[] = {
        "Demand for the bank's loans rose sharply and clients reported record profits.",
        "Clients were hit by falling prices and several defaulted on their loans.",
        "The outlook for the bank's clients remains uncertain.",
    };
    const int text = add_variable("text", STRL);
    for (int i = 0; i < 3; ++i) {
        free(variables[text].strings[i]);
        variables[text].strings[i] = strdup(texts[i]);
    }
    n_obs = 3;
    n_varlist = 1;
    varlist[0] = text;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: tiny_host PLUGIN version|test|validate ...\n");
        return 2;
    }
    if (load(argv[1]) != 0) return 1;
    const char* command = argv[2];
    if (strcmp(command, "version") == 0) {
        char* words[] = {"version", "quiet=1", NULL};
        if (call(2, words) != 0) return 1;
        printf("version \"%s\"\n", local_get("llmv_version"));
        return 0;
    }
    if (strcmp(command, "test") == 0) {
        load_embeddings();
        local_set("llmv_varnames", "label passage e1 e2 e3 e4");
        char* words[] = {"test",       "label=1", "passage=2",       "bt=0",
                         "ref=0",      "embed=3", "dim=4",           "generate=1",
                         "alpha=0.05", "seed=42", "permutations=99", NULL};
        if (call(11, words) != 0) return 1;
        return store_and_print() != 0;
    }
    if (strcmp(command, "validate") == 0 && argc == 7) {
        load_passages();
        local_set("llmv_varnames", "text");
        local_set("llmv_task", argv[3]);
        local_set("llmv_cache", argv[4]);
        local_set("llmv_base_url", argv[5]);
        local_set("llmv_apikey", argv[6]);
        local_set("llmv_provider", "openai");
        local_set("llmv_model", "fake-chat");
        local_set("llmv_embedding_model", "fake-embed");
        char* words[] = {"validate",      "text=1",  "human=0",         "generate=1",
                         "m=6",           "n=3",     "repeats=1",       "alpha=0.05",
                         "threshold=0.9", "seed=11", "permutations=99", "concurrency=2",
                         "dryrun=0",      NULL};
        if (call(13, words) != 0) return 1;
        return store_and_print() != 0;
    }
    fprintf(stderr, "usage: tiny_host PLUGIN version|test|validate TASK CACHE BASE_URL KEY\n");
    return 2;
}
