#include "glue_results.hpp"

#include "glue_convert.hpp"
#include "llmvalidate/records.hpp"
#include "record_r.hpp"

namespace glue {

// The tests' results: their records (llmvalidate/records.hpp) through the R writer
// (record_r.hpp), which names each element by the record's canonical name.
Rcpp::List validation_to_r(const stats::ValidationResult& result) {
    return llmv::records::to_r(result);
}

Rcpp::List separation_to_r(const stats::SeparationResult& result) {
    return llmv::records::to_r(result);
}

Rcpp::List backtranslation_to_r(const stats::BacktranslationResult& result) {
    return llmv::records::to_r(result);
}

Rcpp::List test_output_to_r(const std::string& label, const stats::TestOptions& options,
                            const stats::TestOutput& output) {
    return llmv::records::to_r(llmv::records::TestReport{label, options, output});
}

// Tables 9 and 10 as columns, the calls as R's named vector and a passage's list: records too.
Rcpp::List summary_to_r(const stats::PassageSummary& summary) {
    return llmv::records::to_r(summary);
}

Rcpp::NumericVector counts_to_r(const pipeline::CallCounts& calls) {
    return llmv::records::to_r_numbers(calls);
}

Rcpp::List passage_to_r(const pipeline::PassageResult& result) {
    return llmv::records::to_r(result);
}

Rcpp::List cost_to_r(const llmv::CostEstimate& cost) {
    const R_xlen_t count = static_cast<R_xlen_t>(cost.lines.size());
    Rcpp::CharacterVector role(count), provider(count), model(count), checked(count);
    Rcpp::NumericVector input(count), cached(count), output(count), dollars(count), batch(count),
        paid(count);
    Rcpp::LogicalVector priced(count), batch_available(count);
    for (R_xlen_t i = 0; i < count; ++i) {
        const llmv::CostLine& line = cost.lines[static_cast<std::size_t>(i)];
        role[i] = line.role;
        provider[i] = line.provider;
        model[i] = line.model;
        input[i] = static_cast<double>(line.input_tokens);
        cached[i] = static_cast<double>(line.cached_input_tokens);
        output[i] = static_cast<double>(line.output_tokens);
        priced[i] = line.priced;
        dollars[i] = line.priced ? line.dollars : NA_REAL;
        batch[i] = line.priced ? line.batch_dollars : NA_REAL;
        // What the run paid for this model: the batch price when it went through a batch API.
        paid[i] = !line.priced || cost.paid_through.empty() ? NA_REAL : cost.paid_dollars(line);
        batch_available[i] = line.batch_available;
        checked[i] = line.checked;
    }
    return Rcpp::List::create(
        Rcpp::Named("lines") = Rcpp::List::create(
            Rcpp::Named("role") = role, Rcpp::Named("provider") = provider,
            Rcpp::Named("model") = model, Rcpp::Named("input_tokens") = input,
            Rcpp::Named("cached_input_tokens") = cached, Rcpp::Named("output_tokens") = output,
            Rcpp::Named("priced") = priced, Rcpp::Named("dollars") = dollars,
            Rcpp::Named("batch_dollars") = batch, Rcpp::Named("batch_available") = batch_available,
            Rcpp::Named("paid_dollars") = paid, Rcpp::Named("prices_checked") = checked),
        Rcpp::Named("dollars") = cost.dollars, Rcpp::Named("batch_dollars") = cost.batch_dollars,
        Rcpp::Named("complete") = cost.complete, Rcpp::Named("table") = cost.table,
        Rcpp::Named("note") = cost.note, Rcpp::Named("paid_through") = cost.paid_through);
}

}  // namespace glue
