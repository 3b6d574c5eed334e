// The validation pipeline: passages in, one verdict per passage out, with every number behind
// it, at the lowest possible number of paid calls (../shared/METHOD.md, "A validation of one
// passage costs ...").
//
// This is the API that the CLI, the R package and the Stata plugin call. It is binding
// friendly on purpose: plain structs, std::function callbacks, a cancellation flag, and no
// exception for a passage that fails (its PassageResult carries the error code and message).
// Only a bad configuration (an unknown provider, M < 1, a task file that does not load) throws
// llmv::Error, before any call is made.
//
// One header per topic; this one includes them all, for a front end that wants the whole API:
//   validation_config.hpp  the configuration (ValidationConfig) and check_config()
//   passage.hpp            a passage in (PassageInput) and out (PassageResult, CallCounts)
//   validate.hpp           validate_passage / validate_batch / validate_stream, the callbacks
//                          and the batch's result (how a batch runs, and the draw indices)
//   run.hpp                run(): the one entry point of the front ends (route, warnings,
//                          failure policy, one outcome); collect() of a pending run
//   pending.hpp            a waiting run's handle (PendingBatch) and its JSON file
//   batch_api.hpp          validate_with_batch_api(): the same run through batch APIs
//   dry_run.hpp            dry_run() and the warnings shown before a run
//   generations.hpp        the audit trail: generation rows, their CSV, read_generations()
//   power.hpp              estimate_power() with the simulated provider
#pragma once

#include "llmvalidate/batch_api.hpp"
#include "llmvalidate/dry_run.hpp"
#include "llmvalidate/generations.hpp"
#include "llmvalidate/passage.hpp"
#include "llmvalidate/pending.hpp"
#include "llmvalidate/power.hpp"
#include "llmvalidate/run.hpp"
#include "llmvalidate/validate.hpp"
#include "llmvalidate/validation_config.hpp"
