// The plugin's results as text, for comparing the plugins of two platforms bit for bit: the
// same program, built for Linux and for Windows (run under wine), loads the plugin of its
// platform into the test host's fake Stata (stata/tests/host/fake_stata.*), runs fixed calls
// and prints every return code, r() scalar, macro and matrix and every stored variable, each
// double as the hexadecimal of its 64 bits. tools/test.d/stata-windows.sh compares the two
// transcripts with diff.
//
//   plugin_transcript PLUGIN TASK_FILE CACHE_FOLDER [SERVER_BASE_URL]
//
// The calls: `version`; `test` on synthetic embeddings (the host's fixtures), on many passages
// and on one (with and without backtranslations); `validate` with the simulated provider, on
// many passages and on one; with SERVER_BASE_URL, `validate` against the fake provider server
// (tests/fake_server) at that address, through the plugin's own transport (libcurl), and again
// with a key it refuses (continue: every result missing).
// Exit status: 0 when every call ran (whatever its rc, which is printed), 2 on bad arguments,
// 1 when the plugin cannot be loaded.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"
#include "fixtures.hpp"

using namespace host;

namespace {

// A double as its bits: no printf or locale between the value and the text.
std::string bits(double value) {
    std::uint64_t word = 0;
    std::memcpy(&word, &value, sizeof word);
    char text[19];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(word));
    return text;
}

// Text with its line breaks and carriage returns made visible, so that a transcript line is
// one value (Windows' CRLF would otherwise hide in the diff).
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '"' || c == '\\')
            out += std::string("\\") + c;
        else
            out += c;
    }
    return out + "\"";
}

// r() macros whose value is a path the transcript was given: the same file has another name
// on each platform (Z:/... under wine), so it is printed as a placeholder.
std::string without_paths(std::string text, const std::vector<std::string>& paths) {
    for (const auto& path : paths) {
        if (path.empty()) continue;
        for (std::size_t at; (at = text.find(path)) != std::string::npos;)
            text.replace(at, path.size(), "<path>");
    }
    return text;
}

// r(cache_hits) depends on timing, not on the platform: a text that comes back twice is served
// from the cache if its first answer has been written there, else joined to the request in
// flight (the Linux plugin alone gives 24 or 48 hits from run to run against the fake server).
// Its value is left out; r(calls) and every result are compared.
bool timing_dependent(const std::string& scalar) { return scalar == "cache_hits"; }

// `failing`: a run whose calls are refused; which call of a passage is refused first (its
// message in the output) and how many calls were made depend on timing, so the output and
// r(calls) are left out; every result is compared.
void print_run(std::ostream& out, const std::string& name, const Stata& stata, const RunResult& r,
               const std::vector<std::string>& new_variables, const std::vector<std::string>& paths,
               bool failing = false) {
    out << "== " << name << "\n";
    out << "rc " << r.rc << "\nstore_rc " << r.store_rc << "\n";
    out << "errors " << quoted(without_paths(stata.errors, paths)) << "\n";
    out << "output " << (failing ? "<timing>" : quoted(without_paths(stata.output, paths))) << "\n";
    for (const auto& [key, value] : r.scalars)
        out << "r(" << key << ") "
            << (timing_dependent(key) || (failing && key == "calls") ? "<timing>" : bits(value))
            << "\n";
    for (const auto& [key, value] : r.macros)
        out << "r(" << key << ") " << quoted(without_paths(value, paths)) << "\n";
    for (const auto& [key, matrix] : r.matrices) {
        out << "r(" << key << ") " << matrix.rows << "x" << matrix.cols;
        const auto rows = r.matrix_rownames.find(key);
        const auto cols = r.matrix_colnames.find(key);
        if (rows != r.matrix_rownames.end())
            for (const auto& row : rows->second) out << " row:" << row;
        if (cols != r.matrix_colnames.end())
            for (const auto& col : cols->second) out << " col:" << col;
        out << "\n";
        for (const double value : matrix.values) out << "  " << bits(value) << "\n";
    }
    for (const auto& variable : new_variables) {
        const int index = stata.find(variable);
        if (index < 0) continue;
        const Variable& v = stata.data[static_cast<std::size_t>(index)];
        out << "var " << variable << "\n";
        for (const double value : v.numbers) out << "  " << bits(value) << "\n";
        for (const auto& text : v.strings) out << "  " << quoted(text) << "\n";
    }
    // What the ado is told to create for generate(): each variable's type, label and value
    // label (the announce() locals), which the values above do not show.
    if (r.rc != 0) return;
    const std::vector<std::string> suffixes = split_list(stata.local("llmv_vars"));
    for (std::size_t i = 0; i < suffixes.size(); ++i) {
        const std::string base = "llmv_v" + std::to_string(i + 1);
        out << "announced " << suffixes[i] << " type " << quoted(stata.local(base + "_type"))
            << " label " << quoted(stata.local(base + "_label")) << " vlab "
            << quoted(stata.local(base + "_vlab")) << "\n";
    }
}

// The variables a run added (the ado renames its temporaries to prefix + suffix).
std::vector<std::string> added(const Stata& stata, const std::string& prefix) {
    std::vector<std::string> names;
    for (const auto& v : stata.data)
        if (v.name.rfind(prefix, 0) == 0) names.push_back(v.name);
    return names;
}

void passages(Stata& stata) {
    stata.clear();
    stata.add_string("text",
                     {"Demand for the bank's loans rose sharply and clients reported record "
                      "profits in every segment.",
                      "Clients were hit by falling prices and several defaulted on their loans.",
                      "The outlook for the bank's clients remains uncertain.",
                      "The bank's market conditions were broadly unchanged over the quarter."},
                     /*strl=*/true);
    stata.select_all();
}

std::vector<std::string> validate_words() {
    return {"validate",    "text=1",          "human=0",        "generate=1",   "m=6",
            "n=3",         "repeats=1",       "alpha=0.05",     "threshold=0.9", "seed=11",
            "permutations=99", "concurrency=2", "dryrun=0"};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4 || argc > 5) {
        std::cerr << "usage: plugin_transcript PLUGIN TASK_FILE CACHE_FOLDER [SERVER_BASE_URL]\n";
        return 2;
    }
    const std::string plugin = argv[1], task = argv[2], cache_folder = argv[3];
    const std::string server = argc == 5 ? argv[4] : "";
    const std::vector<std::string> paths = {task, cache_folder, server};
    std::ostream& out = std::cout;
    try {
        {
            Stata stata;
            stata.load(plugin);
            out << "== version\npginit " << stata.pginit_result << "\n";
            const int rc = stata.call({"version", "quiet=1"});
            out << "rc " << rc << "\nversion " << quoted(stata.local("llmv_version"))
                << "\nspi " << quoted(stata.local("llmv_spi")) << "\npipeline "
                << quoted(stata.local("llmv_pipeline")) << "\n";
        }
        {
            Stata stata;
            stata.load(plugin);
            const Design design;
            const auto texts = make_texts(design, {"Positive", "Negative", "Neutral"},
                                          {"Positive", "Positive", "Neutral"});
            load_texts(stata, texts);
            std::vector<std::string> varlist = {"label", "passage", "bt"};
            for (const auto& e : embedding_names(design.dim)) varlist.push_back(e);
            const RunResult r = run_like_ado(
                stata, varlist,
                {"test", "label=1", "passage=2", "bt=3", "ref=0", "embed=4",
                 "dim=" + std::to_string(design.dim), "generate=1", "alpha=0.05", "seed=42",
                 "permutations=199"},
                "t_");
            print_run(out, "test", stata, r, added(stata, "t_"), paths);
        }
        // One passage: the single-passage r() scalars, macros and matrices; then one passage
        // without backtranslations (its backtranslation results missing).
        for (const bool with_backtranslation : {true, false}) {
            Stata stata;
            stata.load(plugin);
            const Design design;
            const auto texts = make_texts(design, {"Negative"}, {"Negative"});
            load_texts(stata, texts, false, with_backtranslation);
            std::vector<std::string> varlist = {"label", "passage"};
            if (with_backtranslation) varlist.push_back("bt");
            for (const auto& e : embedding_names(design.dim)) varlist.push_back(e);
            const int embed = static_cast<int>(varlist.size()) - design.dim + 1;
            const RunResult r = run_like_ado(
                stata, varlist,
                {"test", "label=1", "passage=2", with_backtranslation ? "bt=3" : "bt=0", "ref=0",
                 "embed=" + std::to_string(embed), "dim=" + std::to_string(design.dim),
                 "generate=1", "alpha=0.05", "seed=42", "permutations=199"},
                "o_");
            print_run(out, with_backtranslation ? "test one passage" : "test one passage no bt",
                      stata, r, added(stata, "o_"), paths);
        }
        {
            Stata stata;
            stata.load(plugin);
            passages(stata);
            stata.set_local("llmv_task", task);
            stata.set_local("llmv_provider", "simulated");
            stata.set_local("llmv_cache", cache_folder + "/simulated.sqlite");
            const RunResult r = run_like_ado(stata, {"text"}, validate_words(), "v_");
            print_run(out, "validate simulated", stata, r, added(stata, "v_"), paths);
        }
        {
            // One passage (in 1/1): the single-passage results of validate.
            Stata stata;
            stata.load(plugin);
            passages(stata);
            stata.in_last = 1;
            stata.set_local("llmv_task", task);
            stata.set_local("llmv_provider", "simulated");
            stata.set_local("llmv_cache", cache_folder + "/simulated-one.sqlite");
            const RunResult r = run_like_ado(stata, {"text"}, validate_words(), "u_");
            print_run(out, "validate simulated one passage", stata, r, added(stata, "u_"), paths);
        }
        // Against the fake provider server: with its key, then with a key it refuses and
        // continue (every passage failed, its results missing).
        for (const bool refused : {false, true}) {
            if (server.empty()) break;
            Stata stata;
            stata.load(plugin);
            passages(stata);
            stata.set_local("llmv_task", task);
            stata.set_local("llmv_provider", "openai");
            stata.set_local("llmv_model", "fake-chat");
            stata.set_local("llmv_embedding_model", "fake-embed");
            stata.set_local("llmv_base_url", server);
            stata.set_local("llmv_apikey", refused ? "sk-refused" : "sk-transcript");
            stata.set_local("llmv_cache",
                            cache_folder + (refused ? "/refused.sqlite" : "/server.sqlite"));
            std::vector<std::string> words = validate_words();
            if (refused) words.push_back("continue=1");
            const std::string prefix = refused ? "f_" : "s_";
            const RunResult r = run_like_ado(stata, {"text"}, words, prefix);
            print_run(out, refused ? "validate server refused" : "validate server", stata, r,
                      added(stata, prefix), paths, refused);
        }
    } catch (const std::exception& error) {
        std::cerr << "plugin_transcript: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
