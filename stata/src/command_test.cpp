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
// Pools are the non-passage, non-reference observations of the sample, by label, in data
// order. Each passage is tested against them with the same seed, so a passage's numbers equal
// those of `llmvalidate test` (the CLI) on the same JSON input.
#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "messages.hpp"
#include "results.hpp"
#include "return_codes.hpp"
#include "test_results.hpp"
#include "validation_settings.hpp"

namespace llmv::stata {

namespace {

struct Layout {
    int label = 0, passage = 0, backtranslation = 0, reference = 0, embed = 0, dim = 0;
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
    if (layout.dim < 1)
        throw StataFailure(kRcSyntax, "llmvalidate test: give at least one embedding variable");
    check(layout.embed, "embed", false);
    check(layout.embed + layout.dim - 1, "last embedding", false);
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

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
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

struct PassageOutcome {
    int obs;
    stats::TestOutput output;
};

}  // namespace

int command_test(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"label", "passage", "bt", "ref", "embed", "dim", "generate", "alpha",
                     "threshold", "seed", "permutations", "vmethod", "smethod", "rule"});
    forget_pending();
    const Layout layout = read_layout(api, args);

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
        for (int k = 0; k < layout.dim; ++k) {
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
    for (int k = 0; k < layout.dim; ++k)
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

    // Compute every passage before anything is stored.
    std::vector<PassageOutcome> outcomes;
    const bool show_dots = passages.size() > 1;
    for (std::size_t k = 0; k < passages.size(); ++k) {
        api.check_break();
        input.label = passages[k]->label;
        input.passage = passages[k]->embedding;
        try {
            outcomes.push_back({passages[k]->obs, stats::run_tests(input)});
        } catch (const llmv::Error& error) {
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
    results.macro("backtranslation", layout.backtranslation != 0 ? "yes" : "no");
    announce(api, std::move(results));
    return 0;
}

}  // namespace llmv::stata
