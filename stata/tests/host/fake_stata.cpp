#include "fake_stata.hpp"

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace host {

namespace {

Stata* g_current = nullptr;

double bits_to_double(std::uint64_t bits) {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

void unexpected(const char* what) { g_current->unexpected.emplace_back(what); }

// Plugin variable index (1-based, in the varlist) -> the dataset's variable, or null.
Variable* variable_at(ST_int var) {
    Stata& s = *g_current;
    if (var < 1 || var > static_cast<int>(s.varlist.size())) return nullptr;
    return &s.data[static_cast<std::size_t>(s.varlist[static_cast<std::size_t>(var - 1)])];
}

bool obs_ok(ST_int obs) { return obs >= 1 && obs <= g_current->nobs; }

bool in_sample(ST_int obs) {
    Stata& s = *g_current;
    const int last = s.in_last == 0 ? s.nobs : s.in_last;
    if (obs < s.in_first || obs > last) return false;
    return s.if_mask.empty() || s.if_mask[static_cast<std::size_t>(obs - 1)];
}

// Stata names: at most 32 characters; a local's name (after "_") at most 31.
bool valid_name(const char* name) {
    const std::size_t length = std::strlen(name);
    return length >= 1 && length <= 32;
}

ST_int cb_display(char* text) {
    g_current->output += text;
    return 0;
}
void cb_flush() {}
void cb_output_level(ST_ubyte) { unexpected("set_output_level"); }
ST_int cb_read_input(char*, ST_int) {
    unexpected("read_input");
    return 1;
}
ST_int cb_poll() {
    Stata& s = *g_current;
    ++s.polls;
    if (s.break_after_polls >= 0 && s.polls >= s.break_after_polls) s.stop_flag = 1;
    return 0;  // Break is signalled through the stop flag only, the stricter case
}
char* cb_reformat_short(char*, char*, ST_double) {
    unexpected("reformat_short");
    return nullptr;
}
char* cb_reformat_long(char*, char*, ST_double, ST_dmkey) {
    unexpected("reformat_long");
    return nullptr;
}
char* cb_next_token(char*, ST_int) {
    unexpected("next_token");
    return nullptr;
}
ST_int cb_macro_save(char* name, char* value) {
    if (!valid_name(name) || (name[0] == '_' && std::strlen(name) > 32)) return 198;
    g_current->macros[name] = value;
    return 0;
}
ST_int cb_macro_use(char* name, char* buffer, ST_int length) {
    if (length < 1) return 198;
    const auto found = g_current->macros.find(name);
    const std::string value = found == g_current->macros.end() ? "" : found->second;
    const std::size_t n = std::min(value.size(), static_cast<std::size_t>(length - 1));
    std::memcpy(buffer, value.data(), n);
    buffer[n] = '\0';
    return 0;
}
ST_int cb_scalar_use(char* name, ST_double* value) {
    const auto found = g_current->scalars.find(name);
    if (found == g_current->scalars.end()) return 111;
    *value = found->second;
    return 0;
}
ST_int cb_scalar_save_by_pointer(char*, ST_double*) {
    unexpected("scalar_save_by_pointer");
    return 198;
}
ST_int cb_matrix_store_block(char*, ST_int, ST_double*, ST_int, ST_int, ST_int, ST_int, ST_int) {
    unexpected("matrix_store_block");
    return 198;
}
ST_int cb_matrix_load_block(char*, ST_double*, ST_int) {
    unexpected("matrix_load_block");
    return 198;
}
void cb_matrix_info(char*, ST_matinfo*) { unexpected("matrix_info"); }
ST_int cb_matrix_element_v1(char*, ST_int, ST_int, ST_double*) {
    unexpected("matrix_element_v1");
    return 198;
}
ST_double cb_data_v1(ST_int, ST_int) {
    unexpected("data (version 1)");
    return missing();
}
ST_int cb_nobs() { return g_current->nobs; }
ST_int cb_nvar() { return static_cast<ST_int>(g_current->data.size()); }
ST_boolean cb_is_missing(ST_double value) { return !(value < missing()); }
ST_int cb_find_variable(char*, ST_int) {
    unexpected("find_variable");
    return -1;
}
ST_boolean cb_var_is_string(ST_int var) {
    const Variable* v = variable_at(var);
    if (v == nullptr) {
        unexpected("var_is_string outside the varlist");
        return 0;
    }
    return v->kind != Kind::numeric;
}
void cb_abbreviate(char*, ST_double) { unexpected("abbreviate_variable"); }
ST_double cb_math2(ST_double, ST_double) {
    unexpected("math function");
    return 0;
}
ST_double cb_math1(ST_double) {
    unexpected("math function");
    return 0;
}
ST_double cb_random() {
    unexpected("random (the plugin must not use Stata's RNG state directly)");
    return 0;
}
ST_int cb_store_fast(ST_int, ST_int, ST_double) {
    unexpected("store (fast mode)");
    return 198;
}
ST_int count_store(ST_int obs) {
    Stata& s = *g_current;
    ++s.store_calls;
    if (!in_sample(obs)) unexpected("store outside the marked sample");
    if (s.fail_store_at > 0 && s.store_calls == s.fail_store_at) return 909;
    return 0;
}
ST_int cb_store_safe(ST_int var, ST_int obs, ST_double value) {
    Variable* v = variable_at(var);
    if (v == nullptr || !obs_ok(obs)) return 498;
    if (v->kind != Kind::numeric) return 109;
    if (const ST_int rc = count_store(obs)) return rc;
    v->numbers[static_cast<std::size_t>(obs - 1)] = value;
    return 0;
}
ST_int cb_store_string(ST_int var, ST_int obs, char* value) {
    Variable* v = variable_at(var);
    if (v == nullptr || !obs_ok(obs)) return 498;
    if (v->kind != Kind::str) return 109;  // numeric, or strL: SF_sstore cannot store strL
    if (static_cast<int>(std::strlen(value)) > v->width) unexpected("string wider than its str#");
    if (const ST_int rc = count_store(obs)) return rc;
    v->strings[static_cast<std::size_t>(obs - 1)] = value;
    return 0;
}
ST_boolean cb_if_obs(ST_int obs) {
    Stata& s = *g_current;
    if (!obs_ok(obs)) {
        unexpected("ifobs outside the dataset");
        return 0;
    }
    return s.if_mask.empty() || s.if_mask[static_cast<std::size_t>(obs - 1)];
}
ST_int cb_in_first() { return g_current->in_first; }
ST_int cb_in_last() { return g_current->in_last == 0 ? g_current->nobs : g_current->in_last; }
ST_int cb_nvars() { return static_cast<ST_int>(g_current->varlist.size()); }
ST_int cb_display_error(char* text) {
    // Stata reads an error line as SMCL: braces print only escaped.
    g_current->errors_raw += text;
    std::string shown = text;
    for (const auto& [escaped, brace] : {std::pair<std::string, std::string>{"{c -(}", "{"},
                                         std::pair<std::string, std::string>{"{c )-}", "}"}})
        for (auto at = shown.find(escaped); at != std::string::npos; at = shown.find(escaped, at))
            shown.replace(at, escaped.size(), brace);
    g_current->errors += shown;
    return 0;
}
ST_int cb_matrix_element(char* name, ST_int row, ST_int col, ST_double* value) {
    const auto found = g_current->matrices.find(name);
    if (found == g_current->matrices.end()) return 111;
    if (row < 1 || col < 1 || row > found->second.rows || col > found->second.cols) return 503;
    *value = found->second.at(row, col);
    return 0;
}
ST_int cb_matrix_store(char* name, ST_int row, ST_int col, ST_double value) {
    const auto found = g_current->matrices.find(name);
    if (found == g_current->matrices.end()) return 111;
    Matrix& m = found->second;
    if (row < 1 || col < 1 || row > m.rows || col > m.cols) return 503;
    m.values[static_cast<std::size_t>((row - 1) * m.cols + (col - 1))] = value;
    return 0;
}
ST_int cb_matrix_element_fast(char*, ST_int, ST_int, ST_double*) {
    unexpected("matrix element (fast mode)");
    return 198;
}
ST_int cb_matrix_store_fast(char*, ST_int, ST_int, ST_double) {
    unexpected("matrix store (fast mode)");
    return 198;
}
ST_int cb_vdata_safe(ST_int var, ST_int obs, ST_double* value) {
    const Variable* v = variable_at(var);
    if (v == nullptr || !obs_ok(obs)) return 498;
    if (v->kind != Kind::numeric) return 109;
    *value = v->numbers[static_cast<std::size_t>(obs - 1)];
    return 0;
}
ST_int cb_vdata_fast(ST_int, ST_int, ST_double*) {
    unexpected("vdata (fast mode)");
    return 198;
}
ST_int cb_cols_of(char* name) {
    const auto found = g_current->matrices.find(name);
    return found == g_current->matrices.end() ? 0 : found->second.cols;
}
ST_int cb_rows_of(char* name) {
    const auto found = g_current->matrices.find(name);
    return found == g_current->matrices.end() ? 0 : found->second.rows;
}
ST_int cb_scalar_save(char* name, ST_double value) {
    if (!valid_name(name)) return 198;
    g_current->scalars[name] = value;
    return 0;
}
ST_int cb_string_data(ST_int var, ST_int obs, char* buffer) {
    const Variable* v = variable_at(var);
    if (v == nullptr || !obs_ok(obs)) return 498;
    if (v->kind != Kind::str) return 109;  // SF_sdata does not read strL
    const std::string& value = v->strings[static_cast<std::size_t>(obs - 1)];
    if (value.size() > 2045) {  // cannot happen in Stata; would overflow the plugin's buffer
        unexpected("str# value longer than 2045 bytes");
        return 498;
    }
    std::memcpy(buffer, value.c_str(), value.size() + 1);
    return 0;
}
ST_boolean cb_var_is_strl(ST_int var) {
    const Variable* v = variable_at(var);
    if (v == nullptr) {
        unexpected("var_is_strl outside the varlist");
        return 0;
    }
    return v->kind == Kind::strl;
}
ST_boolean cb_var_is_binary(ST_int, ST_int) { return 0; }
ST_int cb_string_length(ST_int var, ST_int obs) {
    const Variable* v = variable_at(var);
    if (v == nullptr || !obs_ok(obs)) return -498;
    if (v->kind == Kind::numeric) return -109;
    return static_cast<ST_int>(v->strings[static_cast<std::size_t>(obs - 1)].size());
}
ST_int cb_strl_data(ST_int var, ST_int obs, char* buffer, ST_int length) {
    const Variable* v = variable_at(var);
    if (v == nullptr || !obs_ok(obs) || length < 1) return -498;
    if (v->kind == Kind::numeric) return -109;
    const std::string& value = v->strings[static_cast<std::size_t>(obs - 1)];
    const std::size_t n = std::min(value.size(), static_cast<std::size_t>(length - 1));
    std::memcpy(buffer, value.data(), n);
    buffer[n] = '\0';
    return static_cast<ST_int>(n);
}

}  // namespace

double missing() { return std::ldexp(1.0, 1023); }

// .a is the first representable step above `.` in Stata's encoding (0x7fe0 01.. for .a,
// 0x7fe0 02.. for .b, ...).
double extended_missing(char letter) {
    const std::uint64_t step = static_cast<std::uint64_t>(letter - 'a' + 1) << 40;
    return bits_to_double(0x7fe0000000000000ULL + step);
}

bool Variable::operator==(const Variable& other) const {
    if (name != other.name || kind != other.kind || width != other.width) return false;
    if (strings != other.strings || numbers.size() != other.numbers.size()) return false;
    for (std::size_t i = 0; i < numbers.size(); ++i)
        if (std::memcmp(&numbers[i], &other.numbers[i], sizeof(double)) != 0) return false;
    return true;
}

Stata& current() { return *g_current; }

Stata::Stata() {
    if (g_current != nullptr) throw std::logic_error("one host::Stata at a time");
    g_current = this;
    table.display_smcl = cb_display;
    table.display_plain = cb_display;
    table.flush_output = cb_flush;
    table.set_output_level = cb_output_level;
    table.read_input = cb_read_input;
    table.poll_standard = cb_poll;
    table.poll_now = cb_poll;
    table.reformat_short = cb_reformat_short;
    table.reformat_long = cb_reformat_long;
    table.next_token = cb_next_token;
    table.macro_save = cb_macro_save;
    table.macro_use = cb_macro_use;
    table.scalar_use = cb_scalar_use;
    table.scalar_save_by_pointer = cb_scalar_save_by_pointer;
    table.matrix_store_block = cb_matrix_store_block;
    table.matrix_load_block = cb_matrix_load_block;
    table.matrix_info = cb_matrix_info;
    table.matrix_element_v1 = cb_matrix_element_v1;
    table.matsize = 11000;
    table.data_fast_v1 = cb_data_v1;
    table.data_safe_v1 = cb_data_v1;
    table.nobs = cb_nobs;
    table.nvar = cb_nvar;
    table.missval = missing();
    table.is_missing = cb_is_missing;
    table.find_variable = cb_find_variable;
    table.var_is_string = cb_var_is_string;
    table.abbreviate_variable = cb_abbreviate;
    table.stopflag = &stop_flag;
    table.round_fn = cb_math2;
    table.sqrt_fn = cb_math1;
    table.pow_fn = cb_math2;
    table.log_fn = cb_math1;
    table.exp_fn = cb_math1;
    table.random_fn = cb_random;
    table.store_fast = cb_store_fast;
    table.store_safe = cb_store_safe;
    table.store_string = cb_store_string;
    table.if_obs = cb_if_obs;
    table.in_first = cb_in_first;
    table.in_last = cb_in_last;
    table.nvars = cb_nvars;
    table.display_error = cb_display_error;
    table.matrix_element_safe = cb_matrix_element;
    table.matrix_store_safe = cb_matrix_store;
    table.matrix_element_fast = cb_matrix_element_fast;
    table.matrix_store_fast = cb_matrix_store_fast;
    table.vdata_safe = cb_vdata_safe;
    table.vdata_fast = cb_vdata_fast;
    table.cols_of = cb_cols_of;
    table.rows_of = cb_rows_of;
    table.scalar_save = cb_scalar_save;
    table.string_data = cb_string_data;
    table.major = 3;
    table.minor = 0;
    table.var_is_strl = cb_var_is_strl;
    table.var_is_binary = cb_var_is_binary;
    table.string_length = cb_string_length;
    table.strl_data = cb_strl_data;
}

Stata::~Stata() {
#ifdef _WIN32
    if (handle_ != nullptr) FreeLibrary(static_cast<HMODULE>(handle_));
#else
    if (handle_ != nullptr) dlclose(handle_);
#endif
    g_current = nullptr;
}

void Stata::clear() {
    nobs = 0;
    data.clear();
    varlist.clear();
    if_mask.clear();
}

int Stata::add_numeric(const std::string& name, const std::vector<double>& values) {
    if (data.empty() && nobs == 0) nobs = static_cast<int>(values.size());
    if (static_cast<int>(values.size()) != nobs) throw std::logic_error("length of " + name);
    Variable v;
    v.name = name;
    v.numbers = values;
    data.push_back(v);
    return static_cast<int>(data.size()) - 1;
}

int Stata::add_string(const std::string& name, const std::vector<std::string>& values, bool strl) {
    if (data.empty() && nobs == 0) nobs = static_cast<int>(values.size());
    if (static_cast<int>(values.size()) != nobs) throw std::logic_error("length of " + name);
    Variable v;
    v.name = name;
    v.kind = strl ? Kind::strl : Kind::str;
    v.strings = values;
    for (const auto& s : values) v.width = std::max(v.width, static_cast<int>(s.size()));
    v.width = std::max(v.width, 1);
    if (!strl && v.width > 2045) throw std::logic_error(name + ": str# holds at most 2045 bytes");
    data.push_back(v);
    return static_cast<int>(data.size()) - 1;
}

int Stata::add_new(const std::string& name, const std::string& type) {
    if (find(name) >= 0) throw std::logic_error("variable " + name + " already defined");
    Variable v;
    v.name = name;
    if (type.rfind("str", 0) == 0) {
        v.kind = type == "strL" ? Kind::strl : Kind::str;
        v.width = type == "strL" ? 0 : std::stoi(type.substr(3));
        v.strings.assign(static_cast<std::size_t>(nobs), "");
    } else {
        v.numbers.assign(static_cast<std::size_t>(nobs), missing());
    }
    data.push_back(v);
    return static_cast<int>(data.size()) - 1;
}

int Stata::find(const std::string& name) const {
    for (std::size_t i = 0; i < data.size(); ++i)
        if (data[i].name == name) return static_cast<int>(i);
    return -1;
}

void Stata::drop(const std::string& name) {
    const int index = find(name);
    if (index >= 0) data.erase(data.begin() + index);
}

void Stata::rename(const std::string& from, const std::string& to) { var(from).name = to; }

Variable& Stata::var(const std::string& name) {
    const int index = find(name);
    if (index < 0) throw std::logic_error("no variable " + name);
    return data[static_cast<std::size_t>(index)];
}

void Stata::select_all() {
    if_mask.clear();
    in_first = 1;
    in_last = 0;
}

void Stata::set_varlist(const std::vector<std::string>& names) {
    varlist.clear();
    for (const auto& name : names) {
        const int index = find(name);
        if (index < 0) throw std::logic_error("varlist: no variable " + name);
        varlist.push_back(index);
    }
}

std::string Stata::local(const std::string& name) const {
    const auto found = macros.find("_" + name);
    return found == macros.end() ? "" : found->second;
}

void Stata::create_matrix(const std::string& name, int rows, int cols) {
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.values.assign(static_cast<std::size_t>(rows * cols), missing());
    matrices[name] = m;
}

void Stata::load(const std::string& path) {
#ifdef _WIN32  // the Windows plugin under wine (stata/tests/platforms/)
    const HMODULE module = LoadLibraryA(path.c_str());
    if (module == nullptr)
        throw std::runtime_error("LoadLibrary " + path + ": error " +
                                 std::to_string(GetLastError()));
    handle_ = module;
    auto init = reinterpret_cast<ST_retcode (*)(ST_plugin*)>(
        reinterpret_cast<void*>(GetProcAddress(module, "pginit")));
    stata_call_ = reinterpret_cast<ST_retcode (*)(int, char**)>(
        reinterpret_cast<void*>(GetProcAddress(module, "stata_call")));
#else
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    auto init = reinterpret_cast<ST_retcode (*)(ST_plugin*)>(dlsym(handle_, "pginit"));
    stata_call_ = reinterpret_cast<ST_retcode (*)(int, char**)>(dlsym(handle_, "stata_call"));
#endif
    if (init == nullptr || stata_call_ == nullptr)
        throw std::runtime_error("the plugin does not export pginit and stata_call");
    pginit_result = init(&table);
}

int Stata::call(const std::vector<std::string>& words) {
    std::vector<std::vector<char>> storage;
    std::vector<char*> argv;
    for (const auto& word : words) {
        storage.emplace_back(word.begin(), word.end());
        storage.back().push_back('\0');
    }
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    return stata_call_(static_cast<int>(words.size()), argv.data());
}

std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < list.size()) {
        if (list[i] == ' ') {
            ++i;
        } else if (list.compare(i, 2, "`\"") == 0) {
            const std::size_t close = list.find("\"'", i + 2);
            words.push_back(list.substr(i + 2, close - i - 2));
            i = close + 2;
        } else if (list[i] == '"') {  // "two words", as a user types a list
            const std::size_t close = list.find('"', i + 1);
            words.push_back(list.substr(i + 1, close - i - 1));
            i = close + 1;
        } else {
            const std::size_t end = std::min(list.find(' ', i), list.size());
            words.push_back(list.substr(i, end - i));
            i = end;
        }
    }
    return words;
}

RunResult run_like_ado(Stata& stata, const std::vector<std::string>& varlist,
                       const std::vector<std::string>& words, const std::string& prefix) {
    RunResult result;
    stata.set_varlist(varlist);
    std::string names;  // as llmvalidate.ado passes them, for messages
    for (const auto& name : varlist) names += (names.empty() ? "" : " ") + name;
    stata.set_local("llmv_varnames", names);
    result.rc = stata.call(words);
    if (result.rc != 0) return result;

    std::vector<std::string> store = {"store", "token=" + stata.local("llmv_token"), "scalars=__R"};
    std::map<std::string, std::string> matrix_names;
    int index = 0;
    for (const auto& key : split_list(stata.local("llmv_matrices"))) {
        const std::string base = "llmv_m" + std::to_string(++index);
        const std::string name = "__M_" + key;
        const int rows = std::stoi(stata.local(base + "_rows"));
        if (stata.max_matrix_rows > 0 && rows > stata.max_matrix_rows) continue;
        stata.create_matrix(name, rows, std::stoi(stata.local(base + "_cols")));
        store.push_back("mat_" + key + "=" + name);
        matrix_names[key] = name;
        result.matrix_rownames[key] = split_list(stata.local(base + "_rn"));
        result.matrix_colnames[key] = split_list(stata.local(base + "_cn"));
        result.matrix_roweqs[key] = split_list(stata.local(base + "_re"));
    }
    std::vector<std::string> temporaries, suffixes = split_list(stata.local("llmv_vars"));
    index = 0;
    for (const auto& suffix : suffixes) {
        temporaries.push_back("__T_" + suffix);
        stata.add_new(temporaries.back(),
                      stata.local("llmv_v" + std::to_string(++index) + "_type"));
    }
    stata.set_varlist(temporaries);
    result.store_rc = stata.call(store);
    if (result.store_rc != 0) {
        for (const auto& name : temporaries) stata.drop(name);  // tempvars vanish
        for (const auto& entry : matrix_names) stata.matrices.erase(entry.second);
        return result;
    }
    for (std::size_t i = 0; i < suffixes.size(); ++i) {
        stata.drop(prefix + suffixes[i]);  // `replace`
        stata.rename(temporaries[i], prefix + suffixes[i]);
    }
    for (const auto& name : split_list(stata.local("llmv_scalars"))) {
        result.scalars[name] = stata.scalars.at("__R_" + name);
        stata.scalars.erase("__R_" + name);
    }
    for (const auto& name : split_list(stata.local("llmv_macros")))
        result.macros[name] = stata.local("llmv_r_" + name);
    for (const auto& entry : matrix_names) {
        result.matrices[entry.first] = stata.matrices.at(entry.second);
        stata.matrices.erase(entry.second);
    }
    return result;
}

}  // namespace host
