#include "stata_api.hpp"

#include <cstring>
#include <vector>

#include "return_codes.hpp"

namespace llmv::stata {

namespace {
ST_plugin* g_table = nullptr;

// SPI functions take char*; they do not write through it, but the type says they may.
std::vector<char> writable(const std::string& value) {
    std::vector<char> buffer(value.begin(), value.end());
    buffer.push_back('\0');
    return buffer;
}

// str# holds at most 2045 bytes (Stata 13 and later); one more for the terminator.
constexpr int kStrBufferBytes = 2048;
constexpr int kMacroMaxBytes = 64 * 1024 * 1024;
}  // namespace

ST_plugin* table() { return g_table; }
void set_table(ST_plugin* plugin_table) { g_table = plugin_table; }

Api::Api() : t_(g_table) {
    if (t_ == nullptr) throw StataFailure(198, "the plugin was called before pginit()");
}

void Api::display(const std::string& smcl) { t_->display_smcl(writable(smcl).data()); }

std::string Api::escape_smcl(const std::string& plain) {
    std::string out;
    out.reserve(plain.size());
    for (char c : plain) {
        if (c == '{')
            out += "{c -(}";
        else if (c == '}')
            out += "{c )-}";
        else
            out += c;
    }
    return out;
}

void Api::text(const std::string& plain) { display(escape_smcl(plain)); }

void Api::error(const std::string& plain) {
    // Stata reads an error line as SMCL too: a prompt's {text} or {label} in a message must
    // print as written.
    std::string line = escape_smcl(plain);
    if (line.empty() || line.back() != '\n') line += '\n';
    t_->display_error(writable(line).data());
}

bool Api::poll() {
    const int polled = t_->poll_standard();
    return polled != 0 || (t_->stopflag != nullptr && *t_->stopflag != 0);
}

void Api::check_break() {
    if (poll()) throw BreakRequested();
}

int Api::observations() const { return t_->nobs(); }
int Api::variables() const { return t_->nvars(); }
int Api::in_first() const { return t_->in_first(); }
int Api::in_last() const { return t_->in_last(); }
bool Api::selected(int obs) const { return t_->if_obs(obs) != 0; }
bool Api::is_string(int var) const { return t_->var_is_string(var) != 0; }
bool Api::is_strl(int var) const { return t_->var_is_strl(var) != 0; }
double Api::missing_value() const { return t_->missval; }
bool Api::is_missing(double value) const { return t_->is_missing(value) != 0; }

double Api::number(int var, int obs) const {
    double value = 0;
    const int rc = t_->vdata_safe(var, obs, &value);
    if (rc != 0)
        throw StataFailure(rc, "could not read variable " + std::to_string(var) +
                                   " in observation " + std::to_string(obs));
    return value;
}

std::string Api::string(int var, int obs) const {
    if (is_strl(var)) {
        const int length = t_->string_length(var, obs);
        if (length < 0)
            throw StataFailure(-length,
                               "could not read the strL in observation " + std::to_string(obs));
        std::vector<char> buffer(static_cast<std::size_t>(length) + 1, '\0');
        const int rc = t_->strl_data(var, obs, buffer.data(), length + 1);
        if (rc < 0)
            throw StataFailure(-rc,
                               "could not read the strL in observation " + std::to_string(obs));
        // A NUL byte (a binary strL) would cut the text there without a word: refused.
        if (const void* nul = std::memchr(buffer.data(), '\0', static_cast<std::size_t>(length)))
            throw StataFailure(
                kRcData, "observation " + std::to_string(obs) +
                             ": the strL value holds a NUL "
                             "byte (binary data) at byte " +
                             std::to_string(static_cast<const char*>(nul) - buffer.data() + 1) +
                             " of " + std::to_string(length) +
                             "; llmvalidate reads text only. "
                             "Remove the NUL bytes, or leave such observations out with if.");
        return std::string(buffer.data(), static_cast<std::size_t>(length));
    }
    std::vector<char> buffer(kStrBufferBytes, '\0');
    const int rc = t_->string_data(var, obs, buffer.data());
    if (rc != 0)
        throw StataFailure(rc, "could not read the string in observation " + std::to_string(obs));
    return std::string(buffer.data());
}

void Api::store(int var, int obs, double value) {
    const int rc = t_->store_safe(var, obs, value);
    if (rc != 0)
        throw StataFailure(rc, "could not store into variable " + std::to_string(var) +
                                   " in observation " + std::to_string(obs));
}

void Api::store_string(int var, int obs, const std::string& value) {
    const int rc = t_->store_string(var, obs, writable(value).data());
    if (rc != 0)
        throw StataFailure(rc, "could not store a string into variable " + std::to_string(var) +
                                   " in observation " + std::to_string(obs));
}

std::optional<std::string> Api::local(const std::string& name) const {
    auto macro = writable("_" + name);
    for (int size = 4096; size <= kMacroMaxBytes; size *= 4) {
        std::vector<char> buffer(static_cast<std::size_t>(size), '\0');
        if (t_->macro_use(macro.data(), buffer.data(), size) != 0) return std::nullopt;
        const std::size_t length = std::strlen(buffer.data());
        // A full buffer may mean a longer macro: read again with room to spare.
        if (length + 1 < static_cast<std::size_t>(size)) return std::string(buffer.data(), length);
    }
    throw StataFailure(920, "local macro `" + name + "' is longer than 64 MB");
}

void Api::set_local(const std::string& name, const std::string& value) {
    const int rc = t_->macro_save(writable("_" + name).data(), writable(value).data());
    if (rc != 0) throw StataFailure(rc, "could not set local macro " + name);
}

void Api::set_scalar(const std::string& name, double value) {
    const int rc = t_->scalar_save(writable(name).data(), value);
    if (rc != 0) throw StataFailure(rc, "could not save scalar " + name);
}

int Api::matrix_rows(const std::string& name) const {
    const int rows = t_->rows_of(writable(name).data());
    return rows > 0 ? rows : 0;
}

int Api::matrix_cols(const std::string& name) const {
    const int cols = t_->cols_of(writable(name).data());
    return cols > 0 ? cols : 0;
}

void Api::matrix_store(const std::string& name, int row, int col, double value) {
    const int rc = t_->matrix_store_safe(writable(name).data(), row, col, value);
    if (rc != 0)
        throw StataFailure(rc, "could not store element (" + std::to_string(row) + "," +
                                   std::to_string(col) + ") of matrix " + name);
}

double Api::matrix_element(const std::string& name, int row, int col) const {
    double value = 0;
    const int rc = t_->matrix_element_safe(writable(name).data(), row, col, &value);
    if (rc != 0)
        throw StataFailure(rc, "could not read element (" + std::to_string(row) + "," +
                                   std::to_string(col) + ") of matrix " + name);
    return value;
}

}  // namespace llmv::stata
