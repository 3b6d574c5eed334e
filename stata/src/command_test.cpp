// `llmvalidate test`: the statistics on embeddings the user already has, one text per
// observation. The ado-file passes the varlist in this order:
//
//   label  passage  [backtranslation]  [reference]  embedding_1 ... embedding_d
//
// label:           string; the label of the text: for a pool text the label it was generated
//                  from, for a passage the LLM's annotation β̂.
// passage:         numeric; nonzero marks the passages under study, zero the pool texts.
// backtranslation: string; for pool texts, the label the LLM gave the text (f⁻¹).
// reference:       numeric; nonzero marks the extra reference draws the paper's methods need.
//
// The embeddings may instead come from a Stata matrix or a CSV file (the local llmv_embmatrix or
// llmv_embfile; embed=0 dim=0): row i is observation i of the
// data, so that 3,072 dimensions need no 3,072 variables.
//
// Pools are the non-passage, non-reference observations of the sample, by label, in data
// order. Each passage is tested against them with the same seed, so a passage's numbers equal
// those of `llmvalidate test` (the CLI) on the same JSON input.
#include <Eigen/Dense>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/stats.hpp"
#include "llmvalidate/text.hpp"
#include "messages.hpp"
#include "results.hpp"
#include "return_codes.hpp"
#include "test_results.hpp"
#include "validation_settings.hpp"

namespace llmv::stata {

namespace {

using text::trim;

struct Layout {
    int label = 0, passage = 0, backtranslation = 0, reference = 0, embed = 0, dim = 0;
    std::string source = "vars";     // where the embeddings are: vars, matrix or file
    std::vector<std::string> names;  // variable names by position, for messages

    std::string name(int position) const {
        if (position >= 1 && position <= static_cast<int>(names.size()))
            return names[static_cast<std::size_t>(position - 1)];
        return "variable " + std::to_string(position);
    }
};

Layout read_layout(const Api& api, const Arguments& args) {
    Layout layout;
    layout.label = args.integer("label", 0);
    layout.passage = args.integer("passage", 0);
    layout.backtranslation = args.integer("bt", 0);
    layout.reference = args.integer("ref", 0);
    layout.embed = args.integer("embed", 0);
    layout.dim = args.integer("dim", 0);
    const bool matrix = !api.local("llmv_embmatrix").value_or("").empty();
    const bool file = !api.local("llmv_embfile").value_or("").empty();
    if (matrix + file + (layout.dim > 0) != 1)
        throw StataFailure(
            kRcSyntax,
            "llmvalidate test: give the embeddings one way: as variables (the "
            "varlist), with embmatrix() or with embfile(); received " +
                std::string(layout.dim > 0 ? "variables" : "") +
                (matrix ? std::string(layout.dim > 0 ? " and " : "") + "embmatrix()" : "") +
                (file ? std::string(layout.dim > 0 || matrix ? " and " : "") + "embfile()" : "") +
                (matrix + file + (layout.dim > 0) == 0 ? "none" : ""));
    layout.source = matrix ? "matrix" : file ? "file" : "vars";
    if (const auto names = api.local("llmv_varnames"))
        layout.names = split_stata_list(*names, "llmv_varnames");
    const int nvars = api.variables();
    auto check = [&](int position, const char* what, bool optional) {
        if ((optional && position == 0) || (position >= 1 && position <= nvars)) return;
        throw StataFailure(kRcSyntax, std::string("llmvalidate plugin: ") + what + " position " +
                                          std::to_string(position) + " is outside the varlist of " +
                                          std::to_string(nvars) + " variables");
    };
    check(layout.label, "label", false);
    check(layout.passage, "passage", false);
    check(layout.backtranslation, "bt", true);
    check(layout.reference, "ref", true);
    if (layout.source == "vars") {
        check(layout.embed, "embed", false);
        check(layout.embed + layout.dim - 1, "last embedding", false);
    }
    if (!api.is_string(layout.label))
        throw StataFailure(109, "label(): variable " + layout.name(layout.label) +
                                    " must be a string variable; it is numeric");
    if (api.is_string(layout.passage))
        throw StataFailure(109, "passage(): variable " + layout.name(layout.passage) +
                                    " must be numeric (1 for a passage, 0 for a pool text)");
    if (layout.backtranslation != 0 && !api.is_string(layout.backtranslation))
        throw StataFailure(109, "backtranslation(): variable " +
                                    layout.name(layout.backtranslation) +
                                    " must be a string variable; it is numeric");
    if (layout.reference != 0 && api.is_string(layout.reference))
        throw StataFailure(109, "reference(): variable " + layout.name(layout.reference) +
                                    " must be numeric (1 for a reference draw)");
    for (int k = 0; k < layout.dim; ++k)
        if (api.is_string(layout.embed + k))
            throw StataFailure(109, "embedding variable " + layout.name(layout.embed + k) +
                                        " must be numeric; it is a string");
    return layout;
}

// Maps data labels onto the label set S (given, or in order of first appearance).
class LabelSet {
  public:
    explicit LabelSet(std::vector<std::string> given) : given_(!given.empty()) {
        for (auto& label : given) {
            const std::string key = stats::normalize_label(label);
            if (key.empty())
                throw StataFailure(kRcSyntax,
                                   "labels(): a label is empty; every label needs a name");
            if (index_.count(key))
                throw StataFailure(kRcSyntax, "labels(): label `" + label + "' is given twice");
            index_[key] = labels_.size();
            labels_.push_back(label);
        }
    }
    // The spelling of S for `label`; adds it when S was not given.
    std::string resolve(const std::string& label, const std::string& where) {
        const std::string key = stats::normalize_label(label);
        const auto found = index_.find(key);
        if (found != index_.end()) return labels_[found->second];
        if (given_)
            throw StataFailure(kRcData,
                               where + ": label `" + label +
                                   "' is not in labels(); allowed: " + join_stata_list(labels_));
        index_[key] = labels_.size();
        labels_.push_back(label);
        return label;
    }
    const std::vector<std::string>& labels() const { return labels_; }

  private:
    bool given_;
    std::map<std::string, std::size_t> index_;
    std::vector<std::string> labels_;
};

struct Row {
    int obs;
    std::string label;
    bool is_passage;
    bool is_reference;
    std::string backtranslation;
    Eigen::VectorXd embedding;
};

// The embeddings of the observations `wanted` from the matrix of embmatrix() or the CSV file of
// embfile(): one row per observation of the data (row i: observation i). Sets `dim`.
std::map<int, Eigen::VectorXd> outside_embeddings(const Api& api, const Layout& layout,
                                                  const std::vector<int>& wanted, int& dim) {
    std::map<int, Eigen::VectorXd> rows;
    const int observations = api.observations();
    if (layout.source == "matrix") {
        const std::string name = api.local("llmv_embmatrix").value_or("");
        const int n_rows = api.matrix_rows(name);
        dim = api.matrix_cols(name);
        if (n_rows == 0 || dim == 0)
            throw StataFailure(111, "embmatrix(): there is no matrix " + name +
                                        "; allowed: a matrix with one row per observation");
        if (n_rows != observations)
            throw StataFailure(kRcData,
                               "embmatrix(): matrix " + name + " has " + std::to_string(n_rows) +
                                   " rows; it must have one "
                                   "row per observation of the data (" +
                                   std::to_string(observations) + "), row i for observation i");
        for (int obs : wanted) {
            Eigen::VectorXd row(dim);
            for (int c = 1; c <= dim; ++c) {
                const double value = api.matrix_element(name, obs, c);
                if (api.is_missing(value))
                    throw StataFailure(kRcData, "embmatrix(): matrix " + name +
                                                    " is missing in row " + std::to_string(obs) +
                                                    " (observation " + std::to_string(obs) +
                                                    "), column " + std::to_string(c) +
                                                    "; embeddings must be complete");
                row[c - 1] = value;
            }
            rows[obs] = std::move(row);
        }
        return rows;
    }
    const std::string path = api.local("llmv_embfile").value_or("");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw StataFailure(601, "embfile(): file " + path + " not found or not readable");
    std::vector<char> want(static_cast<std::size_t>(observations) + 1, 0);
    for (int obs : wanted) want[static_cast<std::size_t>(obs)] = 1;
    dim = 0;
    int data_row = 0, line_number = 0;
    std::string line;
    while (std::getline(in, line)) {
        ++line_number;
        // A UTF-8 byte order mark (export delimited from Excel, R's write.csv with UTF-8-BOM)
        // belongs to no field: a first line of numbers after it is data, not a header.
        if (line_number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        std::vector<double> values;
        std::string bad;
        int bad_column = 0;
        std::size_t start = 0;
        for (int column = 1;; ++column) {
            const auto comma = line.find(',', start);
            const std::string field = trim(
                line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            char* end = nullptr;
            errno = 0;
            const double value = std::strtod(field.c_str(), &end);
            if (bad.empty() &&
                (field.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value))) {
                bad = field;
                bad_column = column;
            }
            values.push_back(value);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        // A first line that is not all numbers is a header (e1,e2,...), unless what is not a
        // number is a missing value (empty, `.' or .a-.z, as export delimited writes them):
        // then it is the first observation's line.
        if (bad_column != 0 && data_row == 0 && dim == 0) {
            bool header = false;
            std::size_t at = 0;
            while (!header) {
                const auto comma = line.find(',', at);
                const std::string field = trim(
                    line.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
                char* end = nullptr;
                (void)std::strtod(field.c_str(), &end);
                const bool missing =
                    field.empty() || field == "." ||
                    (field.size() == 2 && field[0] == '.' && field[1] >= 'a' && field[1] <= 'z');
                if (!missing && (field.empty() || *end != '\0')) header = true;
                if (comma == std::string::npos) break;
                at = comma + 1;
            }
            if (header) {
                dim = -1;  // the header was read; the next line starts the data
                continue;
            }
        }
        // The line of an observation that is not used (excluded by if or in) is skipped
        // whatever it holds: the help says such lines are read but not used.
        if (data_row + 1 > observations || !want[static_cast<std::size_t>(data_row + 1)]) {
            ++data_row;
            continue;
        }
        if (bad_column != 0)
            throw StataFailure(kRcData, "embfile(): line " + std::to_string(line_number) + " of " +
                                            path + ", column " + std::to_string(bad_column) +
                                            " is `" + bad +
                                            "'; allowed: a number (every line "
                                            "after an optional header holds one observation's "
                                            "embedding)");
        if (dim <= 0) dim = static_cast<int>(values.size());
        if (static_cast<int>(values.size()) != dim)
            throw StataFailure(kRcData, "embfile(): line " + std::to_string(line_number) + " of " +
                                            path + " has " + std::to_string(values.size()) +
                                            " numbers; the lines before it have " +
                                            std::to_string(dim));
        ++data_row;
        rows[data_row] = Eigen::Map<const Eigen::VectorXd>(values.data(), dim);
    }
    if (data_row != observations)
        throw StataFailure(kRcData, "embfile(): " + path + " has " + std::to_string(data_row) +
                                        " lines of numbers; it must have one per observation of "
                                        "the data (" +
                                        std::to_string(observations) +
                                        "), line i for observation i");
    return rows;
}

struct PassageOutcome {
    int obs;
    stats::TestOutput output;
};

}  // namespace

int command_test(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only(accepted_words({"label", "passage", "bt", "ref", "embed", "dim", "generate"},
                                   Offered::statistics));
    forget_pending();
    Layout layout = read_layout(api, args);
    std::map<int, Eigen::VectorXd> outside;
    if (layout.source != "vars") {
        std::vector<int> wanted;
        for (int obs = api.in_first(); obs <= api.in_last(); ++obs)
            if (api.selected(obs)) wanted.push_back(obs);
        outside = outside_embeddings(api, layout, wanted, layout.dim);
    }

    // The engine's settings table reads and checks the options; its messages name alpha().
    const stats::TestOptions options = read_test_settings(args);
    const bool generate = args.integer("generate", 0) != 0;

    LabelSet label_set(split_stata_list(api.local("llmv_labels").value_or(""), "labels()"));

    // Read the sample once: observations in [in1, in2] that satisfy the if condition.
    std::vector<Row> rows;
    for (int obs = api.in_first(); obs <= api.in_last(); ++obs) {
        if (!api.selected(obs)) continue;
        Row row;
        row.obs = obs;
        const std::string where = "observation " + std::to_string(obs);
        const double passage_flag = api.number(layout.passage, obs);
        if (api.is_missing(passage_flag))
            throw StataFailure(kRcData, "passage(): " + layout.name(layout.passage) +
                                            " is missing in " + where +
                                            "; it must be 1 for a passage and 0 for a pool text");
        row.is_passage = passage_flag != 0;
        row.is_reference = false;
        if (layout.reference != 0) {
            const double reference_flag = api.number(layout.reference, obs);
            if (api.is_missing(reference_flag))
                throw StataFailure(kRcData, "reference(): " + layout.name(layout.reference) +
                                                " is missing in " + where);
            row.is_reference = reference_flag != 0;
            if (row.is_reference && row.is_passage)
                throw StataFailure(kRcData, where +
                                                " is marked both as a passage and as a "
                                                "reference draw; it can be only one");
        }
        const std::string raw_label = trim(api.string(layout.label, obs));
        if (raw_label.empty())
            throw StataFailure(kRcData, "label(): " + layout.name(layout.label) + " is empty in " +
                                            where + "; every text needs its label");
        row.embedding.resize(layout.dim);
        if (layout.source != "vars") row.embedding = outside.at(obs);
        for (int k = 0; k < layout.dim && layout.source == "vars"; ++k) {
            const double value = api.number(layout.embed + k, obs);
            if (api.is_missing(value))
                throw StataFailure(kRcData, "embedding variable " + layout.name(layout.embed + k) +
                                                " is missing in " + where +
                                                "; embeddings must be complete");
            row.embedding[k] = value;
        }
        if (layout.backtranslation != 0 && !row.is_passage && !row.is_reference) {
            row.backtranslation = trim(api.string(layout.backtranslation, obs));
            if (row.backtranslation.empty())
                throw StataFailure(kRcData,
                                   "backtranslation(): " + layout.name(layout.backtranslation) +
                                       " is empty in " + where +
                                       ", a pool text; give the label the LLM gave it");
        }
        row.label = raw_label;
        rows.push_back(std::move(row));
    }
    if (rows.empty()) throw StataFailure(kRcNoObservations, "no observations");

    // Pool texts first, so that S (when not given) follows their order of appearance.
    std::map<std::string, std::vector<const Row*>> pool_rows, reference_rows;
    std::vector<const Row*> passages;
    for (auto& row : rows) {
        if (row.is_passage) continue;
        row.label = label_set.resolve(row.label, "label(), observation " + std::to_string(row.obs));
        (row.is_reference ? reference_rows : pool_rows)[row.label].push_back(&row);
    }
    for (auto& row : rows) {
        if (!row.is_passage) continue;
        row.label = label_set.resolve(
            row.label, "label(), observation " + std::to_string(row.obs) + " (a passage)");
        passages.push_back(&row);
    }
    if (passages.empty())
        throw StataFailure(kRcData, "passage(): " + layout.name(layout.passage) +
                                        " is 0 in every observation of the sample; mark the "
                                        "passages under study with 1");

    stats::TestInput input;
    input.labels = label_set.labels();
    input.options = options;
    auto to_matrix = [&](const std::vector<const Row*>& group) {
        Eigen::MatrixXd matrix(static_cast<Eigen::Index>(group.size()), layout.dim);
        for (std::size_t i = 0; i < group.size(); ++i)
            matrix.row(static_cast<Eigen::Index>(i)) = group[i]->embedding.transpose();
        return matrix;
    };
    for (const auto& entry : pool_rows) {
        input.pools[entry.first] = to_matrix(entry.second);
        if (layout.backtranslation != 0) {
            auto& answers = input.backtranslation[entry.first];
            for (const Row* row : entry.second) answers.push_back(row->backtranslation);
        }
    }
    for (const auto& entry : reference_rows)
        input.paper_reference[entry.first] = to_matrix(entry.second);

    // The observations behind each of the engine's inputs, for messages in Stata's words.
    TestContext context;
    for (int k = 0; k < layout.dim && layout.source == "vars"; ++k)
        context.embedding_variables.push_back(layout.name(layout.embed + k));
    auto observations = [](const std::vector<const Row*>& group) {
        std::vector<int> list;
        for (const Row* row : group) list.push_back(row->obs);
        return list;
    };
    for (const auto& entry : pool_rows)
        context.fields["pools." + entry.first] = {
            "a pool text of label " + entry.first,
            "the pool of label " + entry.first + " (" + layout.name(layout.passage) + " 0)",
            observations(entry.second)};
    for (const auto& entry : reference_rows)
        context.fields["paper_reference." + entry.first] = {
            "a reference draw of label " + entry.first,
            "the reference draws of label " + entry.first + " (" + layout.name(layout.reference) +
                " 1)",
            observations(entry.second)};

    // Compute every passage before anything is stored. The tests' long loops (permutations,
    // Gram matrices) look at Break through the engine's interrupt check.
    const ScopedInterruptCheck break_check([&api] { return api.poll(); });
    std::vector<PassageOutcome> outcomes;
    const bool show_dots = passages.size() > 1;
    for (std::size_t k = 0; k < passages.size(); ++k) {
        api.check_break();
        input.label = passages[k]->label;
        input.passage = passages[k]->embedding;
        try {
            outcomes.push_back({passages[k]->obs, stats::run_tests(input)});
        } catch (const llmv::Error& error) {
            if (error_category(error.code()) == ErrorCategory::cancelled) throw BreakRequested();
            context.passage_observation = passages[k]->obs;
            context.passage_label = passages[k]->label;
            context.fields["passage"] = {"the passage", "the passage", {passages[k]->obs}};
            throw llmv::Error(error.code(),
                              "llmvalidate test: " + test_error_message(error, context));
        }
        if (show_dots) {
            api.display((k + 1) % 50 == 0 ? ". " + std::to_string(k + 1) + "\n" : ".");
        }
    }
    if (show_dots && passages.size() % 50 != 0) api.display("\n");

    std::vector<Outcome> table;
    for (std::size_t k = 0; k < outcomes.size(); ++k)
        table.push_back({outcomes[k].obs, passages[k]->label, &outcomes[k].output, ""});
    Results results;
    fill_results(results, table, options, input.labels, generate, false);
    // r(bt_given), not r(backtranslation): that is the matrix of one passage's backtranslation.
    results.macro("bt_given", layout.backtranslation != 0 ? "yes" : "no");
    announce(api, std::move(results));
    return 0;
}

}  // namespace llmv::stata
