// Engine error codes (cpp/include/llmvalidate/error.hpp) -> Stata return codes, derived from
// the code's category (llmv::error_category). The table is
// documented for users in llmvalidate.sthlp ("Return codes") and must change with it.
//
//   engine code / condition                         rc    Stata's meaning of the rc
//   ---------------------------------------------   ----  ----------------------------------
//   llmv.input.invalid_argument                     198   invalid syntax / option
//   llmv.input.unknown_label                        198
//   llmv.input.malformed_json                       198
//   llmv.task.invalid                               198
//   llmv.provider.config (no key, bad base URL)     198
//   llmv.input.invalid_embedding                    459   something that should be true of
//   llmv.input.dimension_mismatch                   459   your data is not
//   llmv.input.pool_too_small                       459
//   (plugin) no observations in the sample          2000  no observations
//   llmv.cancelled, the Break key                   1     --Break--
//   (plugin) file not found                         601   file not found
//   llmv.io.failed                                  603   file could not be opened
//   llmv.cache.failed                               603
//   llmv.transport.failed, llmv.transport.timeout   677   remote connection failed
//   llmv.provider.auth                              673   authorization required by server
//   llmv.provider.rate_limited                      675   server reported an error
//   llmv.provider.bad_request                       675
//   llmv.provider.not_found                         675
//   llmv.provider.server_error                      675
//   llmv.provider.unparseable_answer                674   unexpected response from server
//   llmv.provider.malformed_response                674
//   llmv.provider.label_outside_set                 674
//   std::bad_alloc                                  909   op. sys. refuses to provide memory
//   llmv.internal, any other exception              498   (an error in llmvalidate: report it)
//   (plugin) `validate` not in this build           199   unrecognized command
#pragma once

#include <string>

namespace llmv::stata {

int return_code_for(const std::string& engine_code);

inline constexpr int kRcSyntax = 198;
inline constexpr int kRcData = 459;
inline constexpr int kRcNoObservations = 2000;
inline constexpr int kRcBreak = 1;
inline constexpr int kRcFileNotFound = 601;
inline constexpr int kRcFile = 603;
inline constexpr int kRcInternal = 498;
inline constexpr int kRcNoMemory = 909;

}  // namespace llmv::stata
