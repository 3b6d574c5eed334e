"""Runs the author's reference code on passages, as its example does, at N = B (issue 26).

Usage: python3 run_reference.py REFERENCE_DIR PASSAGES_JSON N B MODEL

REFERENCE_DIR is a copy of github.com/AnneArtrip/Validating-LLM-Annotations (its
example_sentiment_news.py and utils/); it is imported, not changed. PASSAGES_JSON is a list of
{"id": ..., "text": ...}. For each passage this does what the example's main() does, with
its "reduced for demo purposes" sizes set to N (texts of a pool) and B (reference texts):
annotate, backtranslate N texts of the label, the separation test against each other label,
the validity test. The validity test runs whatever the prerequisites gave, so that every
passage is priced as one whose prerequisites hold (the case the paper's tables report).
OPENAI_BASE_URL and OPENAI_API_KEY name the server, as for the reference code itself.

Prints one JSON object: calls and tokens from the code's own log (api_logs/*.jsonl, the
usage the server reported), and each passage's label and verdicts.
"""
import glob
import json
import os
import sys

reference_dir, passages_path, n, b, model = sys.argv[1:6]
n, b = int(n), int(b)
passages = json.load(open(passages_path, encoding="utf-8"))
sys.path.insert(0, os.path.abspath(reference_dir))

import example_sentiment_news as example  # changes into reference_dir (its own os.chdir)
from utils.llm_api_calls import llm_embedding
from utils.test_backtranslation import test_backtranslation
from utils.test_separation import test_separation
from utils.test_validity import test_validity

example.MODEL = model
results = []
for passage in passages:
    example.ORIGINAL_TEXT = passage["text"]
    label_hat = example.annotation_func(passage["text"])
    if label_hat not in example.LABELS:
        results.append({"id": passage["id"], "label": label_hat, "error": "label outside the set"})
        continue
    backtranslation = test_backtranslation(
        annotation_func=example.annotation_func, simulation_func=example.simulation_func,
        labels=example.LABELS, tested_labels=label_hat, num_sim=n)
    accuracy = float((backtranslation["label"] == backtranslation["label_hat"]).mean())
    pool = list(backtranslation["simulated_text"])
    others = [label for label in example.LABELS if label != label_hat]
    separation, _ = test_separation(
        filename="bench", simulation_func=example.simulation_func, label=label_hat,
        counterfactual_labels=others, simulated_text=pool, num_sim_tau=n, num_sim_boot=b)
    validity, _ = test_validity(
        filename="bench", simulation_func=example.simulation_func, label_hat=label_hat,
        emb_original=llm_embedding(passage["text"]), simulated_text=pool,
        num_sim_tau=n, num_sim_boot=b)
    results.append({"id": passage["id"], "label": label_hat, "backtranslation": accuracy,
                    "separated": bool((~separation["reject"]).all()),
                    "valid": not bool(validity["reject"][0])})

totals = {"chat_calls": 0, "chat_input_tokens": 0, "chat_output_tokens": 0,
          "embedding_calls": 0, "embedding_tokens": 0, "failed_calls": 0}
for path in glob.glob(os.path.join("api_logs", "*.jsonl")):
    for line in open(path, encoding="utf-8"):
        entry = json.loads(line)
        if not entry.get("success"):
            totals["failed_calls"] += 1
            continue
        usage = entry.get("usage") or {}
        if entry["call_type"] == "completion":
            totals["chat_calls"] += 1
            totals["chat_input_tokens"] += usage.get("prompt_tokens") or 0
            totals["chat_output_tokens"] += usage.get("completion_tokens") or 0
        else:
            totals["embedding_calls"] += 1
            totals["embedding_tokens"] += usage.get("prompt_tokens") or 0
print(json.dumps({"passages": results, "totals": totals}))
