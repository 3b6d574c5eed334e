// `llmvalidate power, task()`: how often each test passes, estimated by simulation with the
// simulated provider's synthetic data-generating process (docs/simulated.md), through the
// engine's pipeline::estimate_power, the function behind the CLI's `llmvalidate power`. No data
// are read and no LLM is called; every result says it is synthetic. The ado-file passes
//
//   locals:   llmv_task (a file path), llmv_truelabel, llmv_topic
//   words:    replications= m= n= repeats= alpha= threshold= seed= permutations= vmethod=
//             smethod= rule= concurrency= follow= signal= accuracy= unparseable= words= dgpseed=
#include "commands.hpp"
#include "return_codes.hpp"

#include <string>
#include <vector>

#include "arguments.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/task.hpp"
#include "results.hpp"
#include "validation_settings.hpp"

namespace llmv::stata {

int command_power(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only(accepted_words({"replications", "dgpseed"}, Offered::all));
    forget_pending();

    pipeline::PowerConfig power;
    pipeline::ValidationConfig& config = power.validation;
    config.provider = "simulated";
    config.task_path = api.local("llmv_task").value_or("");
    if (config.task_path.empty())
        throw StataFailure(kRcSyntax, "llmvalidate power: option task() is required");
    power.true_label = api.local("llmv_truelabel").value_or("");
    power.replications = args.integer("replications", power.replications);
    // The DGP's follow(), signal(), accuracy(), unparseable() and words() are rows of the table.
    read_validation_settings(args, config);
    pipeline::SimulatedDgp& dgp = config.simulated;
    dgp.seed = args.seed("dgpseed", dgp.seed);
    if (const auto topic = api.local("llmv_topic")) dgp.topic = *topic;
    // Power runs keep nothing: every replication is a fresh synthetic draw (as in the CLI).
    config.cache_path.clear();

    // Before any call: a size that cannot decide makes every replication inconclusive.
    for (const std::string& warning : pipeline::size_warnings(config))
        api.display("{txt}Warning: " + warning + "\n");

    ProgressDots progress(api);
    const pipeline::PowerResult result = pipeline::estimate_power(power, progress.callbacks());
    progress.finish();

    Results results;
    results.scalar("replications", result.replications);
    results.scalar("N_correct", result.n_correct);
    results.scalar("N_wrong", result.n_wrong);
    results.scalar("p_correct", result.share_annotation_correct);
    results.scalar("p_bt_pass", result.share_backtranslation_pass);
    results.scalar("p_sep_pass", result.share_separation_all_pass);
    results.scalar("p_not_rejected", result.share_validation_not_rejected);
    results.scalar("p_valid", result.share_valid);
    results.scalar("p_invalid", result.share_invalid);
    results.scalar("p_inconclusive", result.share_inconclusive);
    results.scalar("p_valid_correct", result.share_valid_given_correct);
    results.scalar("p_invalid_wrong", result.share_invalid_given_wrong);
    results.scalar("se_valid", result.monte_carlo_se);
    results.scalar("M", config.m);
    results.scalar("n", config.n);
    results.scalar("repeats", config.annotation_repeats);
    results.scalar("alpha", config.tests.alpha);
    results.scalar("threshold", config.tests.threshold);
    // R only for a method that permutes; B only for one that draws reference texts (registry).
    results.scalar("permutations", stats::draws_permutations(config.tests)
                                       ? config.tests.permutations
                                       : api.missing_value());
    results.scalar("B",
                   stats::draws_reference(config.tests) ? config.paper_b : api.missing_value());
    results.scalar("follow", dgp.follow_probability);
    results.scalar("signal", dgp.label_signal);
    results.scalar("accuracy", dgp.annotator_accuracy);
    results.scalar("unparseable", dgp.unparseable_probability);
    // The label y was written in: the first of the task's unless truelabel() was given.
    results.macro("true_label", power.true_label.empty()
                                    ? llmv::load_task(config.task_path).labels().front()
                                    : power.true_label);
    results.macro("seed", std::to_string(config.tests.seed));
    results.macro("dgpseed", std::to_string(dgp.seed));
    results.macro("vmethod", config.tests.validation_method);
    results.macro("smethod", config.tests.separation_method);
    results.macro("rule", config.tests.backtranslation_rule);
    results.macro("provider", "simulated");
    results.macro("synthetic", "yes");

    ResultMatrix table;
    table.key = "power";
    table.row_names = {"correct", "bt_pass",      "sep_pass",      "not_rejected", "valid",
                       "invalid", "inconclusive", "valid_correct", "invalid_wrong"};
    table.col_names = {"share"};
    table.rows = static_cast<int>(table.row_names.size());
    table.cols = 1;
    table.values = {result.share_annotation_correct,
                    result.share_backtranslation_pass,
                    result.share_separation_all_pass,
                    result.share_validation_not_rejected,
                    result.share_valid,
                    result.share_invalid,
                    result.share_inconclusive,
                    result.share_valid_given_correct,
                    result.share_invalid_given_wrong};
    results.matrices.push_back(std::move(table));
    announce(api, std::move(results));
    return 0;
}

}  // namespace llmv::stata
