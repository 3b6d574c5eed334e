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

Rcpp::List summary_to_r(const stats::PassageSummary& summary) {
    const std::size_t rows9 = summary.table9.size();
    Rcpp::CharacterVector label9(rows9);
    Rcpp::IntegerVector n9(rows9), n_valid9(rows9), n_human9(rows9);
    Rcpp::NumericVector share9(rows9), share_human9(rows9);
    for (std::size_t i = 0; i < rows9; ++i) {
        const auto& row = summary.table9[i];
        label9[i] = row.label;
        n9[i] = row.n;
        n_valid9[i] = row.n_valid;
        share9[i] = row.share_valid;
        n_human9[i] = row.n_human_agree;
        share_human9[i] = row.share_human;
    }
    const std::size_t rows10 = summary.table10.size();
    Rcpp::CharacterVector llm10(rows10), human10(rows10);
    Rcpp::IntegerVector n10(rows10), n_valid10(rows10);
    Rcpp::NumericVector share10(rows10);
    for (std::size_t i = 0; i < rows10; ++i) {
        const auto& cell = summary.table10[i];
        llm10[i] = cell.llm_label;
        human10[i] = cell.human_label;
        n10[i] = cell.n;
        n_valid10[i] = cell.n_valid;
        share10[i] = cell.share_valid;
    }
    return Rcpp::List::create(
        Rcpp::Named("table9") = Rcpp::List::create(
            Rcpp::Named("label") = label9, Rcpp::Named("n") = n9, Rcpp::Named("n_valid") = n_valid9,
            Rcpp::Named("share_valid") = share9, Rcpp::Named("n_human_agree") = n_human9,
            Rcpp::Named("share_human") = share_human9),
        Rcpp::Named("table10") = Rcpp::List::create(
            Rcpp::Named("llm_label") = llm10, Rcpp::Named("human_label") = human10,
            Rcpp::Named("n") = n10, Rcpp::Named("n_valid") = n_valid10,
            Rcpp::Named("share_valid") = share10),
        Rcpp::Named("n_total") = summary.n_total,
        Rcpp::Named("n_inconclusive") = summary.n_inconclusive);
}

Rcpp::NumericVector counts_to_r(const pipeline::CallCounts& calls) {
    Rcpp::NumericVector out = Rcpp::NumericVector::create(
        Rcpp::Named("chat_calls") = calls.chat_calls,
        Rcpp::Named("annotation_calls") = calls.annotation_calls,
        Rcpp::Named("simulation_calls") = calls.simulation_calls,
        Rcpp::Named("backtranslation_calls") = calls.backtranslation_calls,
        Rcpp::Named("embedding_requests") = calls.embedding_requests,
        Rcpp::Named("embedded_texts") = calls.embedded_texts,
        Rcpp::Named("cache_hits") = calls.cache_hits,
        Rcpp::Named("shared") = calls.shared,
        Rcpp::Named("parse_retries") = calls.parse_retries,
        Rcpp::Named("transport_retries") = calls.transport_retries,
        Rcpp::Named("input_tokens") = calls.input_tokens,
        Rcpp::Named("output_tokens") = calls.output_tokens);
    return out;
}

Rcpp::List passage_to_r(const pipeline::PassageResult& result) {
    return Rcpp::List::create(
        Rcpp::Named("id") = result.id, Rcpp::Named("ok") = result.ok,
        Rcpp::Named("error_code") = result.error_code,
        Rcpp::Named("error_message") = result.error_message,
        Rcpp::Named("label") = result.label,
        Rcpp::Named("annotations") = result.annotations,
        Rcpp::Named("labels") = result.label_set,
        Rcpp::Named("tests") = result.ok ? Rcpp::RObject(test_output_to_r(
                                               result.label, llmv::records::test_options_of(result),
                                               result.tests))
                                         : Rcpp::RObject(R_NilValue),
        Rcpp::Named("verdict") = result.verdict_name, Rcpp::Named("task") = result.task_name,
        Rcpp::Named("provider") = result.provider, Rcpp::Named("model") = result.model,
        Rcpp::Named("embedding_provider") = result.embedding_provider,
        Rcpp::Named("embedding_model") = result.embedding_model,
        Rcpp::Named("synthetic") = result.synthetic,
        Rcpp::Named("seed") = static_cast<double>(result.seed),
        Rcpp::Named("calls") = counts_to_r(result.calls));
}

Rcpp::List cost_to_r(const llmv::CostEstimate& cost) {
    const R_xlen_t count = static_cast<R_xlen_t>(cost.lines.size());
    Rcpp::CharacterVector role(count), provider(count), model(count), checked(count);
    Rcpp::NumericVector input(count), cached(count), output(count), dollars(count), batch(count);
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
            Rcpp::Named("prices_checked") = checked),
        Rcpp::Named("dollars") = cost.dollars, Rcpp::Named("batch_dollars") = cost.batch_dollars,
        Rcpp::Named("complete") = cost.complete, Rcpp::Named("table") = cost.table,
        Rcpp::Named("note") = cost.note);
}

}  // namespace glue
