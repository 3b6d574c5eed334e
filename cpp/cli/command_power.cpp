// llmvalidate power --task TASK [-M M] [-n N] [--alpha A] [DGP options] [--replications N]
// Estimates, by simulation with the synthetic DGP, how often each test passes.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/key_value.hpp"
#include "options.hpp"
#include "terminal.hpp"

namespace llmv::cli {

namespace {

CommandSpec power_spec() {
    CommandSpec spec = {
        "power",
        "--task TASK [--true-label LABEL] [--replications N] [-M M] [-n N] [--alpha A] [DGP "
        "options]",
        "Estimates by simulation the probability that each test passes, for given M, n,\n"
        "alpha and parameters of the simulated provider's synthetic data-generating\n"
        "process (docs/simulated.md): in each replication the DGP writes the passage y as a\n"
        "text of --true-label, the simulated annotator labels it (so the annotation is valid\n"
        "exactly when it returns the true label), and the full pipeline runs. No network.\n"
        "Example: llmvalidate power --task simple_sentiment -M 50 --follow 0.8 --accuracy 0.9",
        "",
        {
            {"--true-label", "", "LABEL",
             "The label y is written in (default: the first label of the task)."},
            {"--replications", "-r", "N", "Monte Carlo replications (default 200)."},
            {"--topic", "", "TEXT",
             "Topic words of y and of the pools (default: a built-in business sentence)."},
            {"--output", "-o", "PATH", "Write the report to PATH instead of standard output."},
        },
        0,
    };
    for (const OptionSpec& option : pipeline_options()) spec.options.push_back(option);
    for (const OptionSpec& option : simulated_options()) spec.options.push_back(option);
    return spec;
}

std::string share(double value) {
    if (std::isnan(value)) return "NA";
    std::ostringstream out;
    out << std::fixed << std::setprecision(3) << value;
    return out.str();
}

}  // namespace

int command_power(const std::vector<std::string>& args) {
    const CommandSpec spec = power_spec();
    const ParsedArgs parsed = parse_args(args, spec);
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    const std::string provider = parsed.value("--provider", "simulated");
    if (provider != "simulated") {
        throw_usage(spec.name,
                    "option `--provider` must be simulated for power analysis (the "
                    "synthetic DGP); received `" +
                        provider + "`.");
    }
    std::vector<std::string> forwarded = args;
    forwarded.push_back("--provider=simulated");
    ParsedArgs with_provider = parse_args(forwarded, spec);
    ConfigChoice choice = config_from_args(spec.name, with_provider, true);
    pipeline::PowerConfig power;
    power.validation = choice.config;
    power.validation.cache_path.clear();
    power.true_label = parsed.value("--true-label");
    if (parsed.has("--topic")) power.validation.simulated.topic = parsed.value("--topic");
    if (parsed.has("--replications")) {
        const std::string text = parsed.value("--replications");
        const auto replications = key_value::whole_number(text);
        if (!replications || text.size() > 7) {
            throw_usage(spec.name, "option `--replications` needs a positive integer; received `" +
                                       text + "`.");
        }
        power.replications = static_cast<int>(*replications);
    }
    // Before any call: a size that cannot decide makes every replication inconclusive.
    for (const std::string& warning : pipeline::size_warnings(power.validation))
        std::cerr << "Warning: " << warning << "\n";
    pipeline::BatchCallbacks callbacks;
    callbacks.cancel = install_interrupt_flag();
    ProgressBar bar(!parsed.has("--quiet") && stderr_is_terminal());
    callbacks.on_progress = [&](const pipeline::Progress& progress) { bar.update(progress); };
    const pipeline::PowerResult result = pipeline::estimate_power(power, callbacks);
    bar.finish();
    if (callbacks.cancel->load()) return exit_code_for_results(true, Failures());

    const pipeline::ValidationConfig& config = power.validation;
    const pipeline::SimulatedDgp& dgp = config.simulated;
    std::ostringstream out;
    out << "SYNTHETIC: power by simulation with the simulated provider's data-generating process "
           "(docs/simulated.md); no LLM was called.\n";
    out << "M = " << config.m << ", n = " << config.n << ", R = " << config.annotation_repeats
        << ", alpha = " << config.tests.alpha << ", threshold = " << config.tests.threshold << " ("
        << config.tests.backtranslation_rule << "), methods " << config.tests.validation_method
        << "/" << config.tests.separation_method << "\n";
    out << "DGP: follow = " << dgp.follow_probability << ", signal = " << dgp.label_signal
        << ", annotator accuracy = "
        << (dgp.confusion.empty() ? share(dgp.annotator_accuracy)
                                  : std::string("(confusion matrix)"))
        << ", unparseable = " << dgp.unparseable_probability << ", true label = "
        << (power.true_label.empty() ? std::string("(first label)") : power.true_label) << "\n";
    out << "Replications: " << result.replications << " (annotation correct in " << result.n_correct
        << ", wrong in " << result.n_wrong << ")\n\n";
    out << "  P(annotation correct)               " << share(result.share_annotation_correct)
        << "\n";
    out << "  P(backtranslation passes)           " << share(result.share_backtranslation_pass)
        << "\n";
    out << "  P(every separation test passes)     " << share(result.share_separation_all_pass)
        << "\n";
    out << "  P(validity not rejected)            " << share(result.share_validation_not_rejected)
        << "\n";
    out << "  P(verdict valid)                    " << share(result.share_valid)
        << "  (Monte Carlo s.e. " << share(result.monte_carlo_se) << ")\n";
    out << "  P(verdict invalid)                  " << share(result.share_invalid) << "\n";
    out << "  P(verdict inconclusive)             " << share(result.share_inconclusive) << "\n";
    out << "  P(valid | annotation correct)       " << share(result.share_valid_given_correct)
        << "\n";
    out << "  P(invalid | annotation wrong)       " << share(result.share_invalid_given_wrong)
        << "\n";
    write_output(parsed.value("--output"), out.str());
    return exit_ok;
}

}  // namespace llmv::cli
