#include "results.hpp"

#include <cmath>
#include <memory>
#include <optional>

#include "arguments.hpp"
#include "return_codes.hpp"

namespace llmv::stata {

namespace {
std::unique_ptr<Results> g_pending;
std::uint64_t g_next_token = 1;

std::string join_numbers(const std::vector<std::string>& names) { return join_stata_list(names); }

// One value written to the dataset, with what was there before.
struct Written {
    int var;
    int obs;
    bool is_string;
    double old_number;
    std::string old_string;
};

void roll_back(Api& api, const std::vector<Written>& written) {
    for (auto it = written.rbegin(); it != written.rend(); ++it) {
        try {
            if (it->is_string)
                api.store_string(it->var, it->obs, it->old_string);
            else
                api.store(it->var, it->obs, it->old_number);
        } catch (const StataFailure&) {
            // Keep putting back the rest; the first failure is what the user is told about.
        }
    }
}
}  // namespace

double stata_number(const Api& api, double value) {
    return std::isfinite(value) ? value : api.missing_value();
}

void forget_pending() { g_pending.reset(); }

void announce(Api& api, Results results) {
    results.token = g_next_token++;
    // Locals are numbered, not named after the matrix or variable: a local's name has at most
    // 31 characters.
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < results.matrices.size(); ++i) {
        const auto& matrix = results.matrices[i];
        keys.push_back(matrix.key);
        const std::string base = "llmv_m" + std::to_string(i + 1);
        api.set_local(base + "_rows", std::to_string(matrix.rows));
        api.set_local(base + "_cols", std::to_string(matrix.cols));
        api.set_local(base + "_rn", join_stata_list(matrix.row_names));
        api.set_local(base + "_cn", join_stata_list(matrix.col_names));
        api.set_local(base + "_re", join_stata_list(matrix.row_equations));
    }
    std::vector<std::string> suffixes;
    for (std::size_t i = 0; i < results.variables.size(); ++i) {
        const auto& variable = results.variables[i];
        suffixes.push_back(variable.suffix);
        const std::string base = "llmv_v" + std::to_string(i + 1);
        api.set_local(base + "_type", variable.type);
        api.set_local(base + "_label", variable.label);
        api.set_local(base + "_vlab", variable.value_label);
    }
    api.set_local("llmv_matrices", join_numbers(keys));
    api.set_local("llmv_vars", join_numbers(suffixes));
    api.set_local("llmv_token", std::to_string(results.token));
    g_pending = std::make_unique<Results>(std::move(results));
}

int store_pending(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    if (!g_pending)
        throw StataFailure(kRcSyntax,
                           "llmvalidate plugin: there are no results waiting to be "
                           "stored (call the computing subcommand first)");
    // Whatever happens below, these results are used once.
    std::unique_ptr<Results> results = std::move(g_pending);
    if (args.seed("token", 0) != results->token)
        throw StataFailure(kRcSyntax,
                           "llmvalidate plugin: the results waiting to be stored "
                           "belong to another call");
    std::set<std::string> allowed = {"token", "scalars"};
    for (const auto& matrix : results->matrices) allowed.insert("mat_" + matrix.key);
    args.allow_only(allowed);

    // Everything the ado must have prepared is checked before anything is written.
    const int needed_vars = static_cast<int>(results->variables.size());
    if (api.variables() != needed_vars)
        throw StataFailure(kRcSyntax, "llmvalidate plugin: store expects " +
                                          std::to_string(needed_vars) + " new variables, got " +
                                          std::to_string(api.variables()));
    for (int v = 0; v < needed_vars; ++v) {
        const auto& variable = results->variables[static_cast<std::size_t>(v)];
        const bool wants_string = variable.type.rfind("str", 0) == 0;
        if (api.is_string(v + 1) != wants_string || (wants_string && api.is_strl(v + 1)))
            throw StataFailure(kRcSyntax, "llmvalidate plugin: variable " + std::to_string(v + 1) +
                                              " of the store call must be " + variable.type);
        for (int obs : variable.observations)
            if (obs < 1 || obs > api.observations() || !api.selected(obs))
                throw StataFailure(kRcSyntax, "llmvalidate plugin: observation " +
                                                  std::to_string(obs) +
                                                  " is not in the marked sample of the store call");
    }
    // A matrix the ado could not create (past Stata's matrix limit) is not passed: it is left
    // out, and everything else is stored.
    for (const auto& matrix : results->matrices) {
        if (!args.has("mat_" + matrix.key)) continue;
        const std::string name = args.required_text("mat_" + matrix.key);
        if (api.matrix_rows(name) != matrix.rows || api.matrix_cols(name) != matrix.cols)
            throw StataFailure(kRcSyntax, "llmvalidate plugin: matrix " + name + " must be " +
                                              std::to_string(matrix.rows) + " x " +
                                              std::to_string(matrix.cols));
    }

    // Scalars, macros and matrices: the ado returns them only when this call succeeds.
    const std::string prefix = args.required_text("scalars");
    std::vector<std::string> scalar_names;
    for (const auto& entry : results->scalars) {
        api.set_scalar(prefix + "_" + entry.first, stata_number(api, entry.second));
        scalar_names.push_back(entry.first);
    }
    std::vector<std::string> macro_names;
    for (const auto& entry : results->macros) {
        api.set_local("llmv_r_" + entry.first, entry.second);
        macro_names.push_back(entry.first);
    }
    api.set_local("llmv_scalars", join_numbers(scalar_names));
    api.set_local("llmv_macros", join_numbers(macro_names));
    for (const auto& matrix : results->matrices) {
        if (!args.has("mat_" + matrix.key)) continue;
        const std::string name = args.required_text("mat_" + matrix.key);
        for (int r = 0; r < matrix.rows; ++r)
            for (int c = 0; c < matrix.cols; ++c)
                api.matrix_store(
                    name, r + 1, c + 1,
                    stata_number(api,
                                 matrix.values[static_cast<std::size_t>(r * matrix.cols + c)]));
    }

    // The dataset, last, with a rollback.
    std::vector<Written> written;
    try {
        for (int v = 0; v < needed_vars; ++v) {
            const auto& variable = results->variables[static_cast<std::size_t>(v)];
            const bool is_string = variable.type.rfind("str", 0) == 0;
            for (std::size_t i = 0; i < variable.observations.size(); ++i) {
                Written entry{v + 1, variable.observations[i], is_string, 0.0, {}};
                if (is_string) {
                    entry.old_string = api.string(entry.var, entry.obs);
                    written.push_back(entry);
                    api.store_string(entry.var, entry.obs, variable.strings[i]);
                } else {
                    entry.old_number = api.number(entry.var, entry.obs);
                    written.push_back(entry);
                    api.store(entry.var, entry.obs, stata_number(api, variable.numbers[i]));
                }
            }
        }
    } catch (...) {
        roll_back(api, written);
        throw;
    }
    return 0;
}

}  // namespace llmv::stata
