"""Evaluation harness: datasets, metrics, methods, reports (`videorag eval`)."""
from .datasets import EvalItem, load_golden_jsonl, load_transcripts, load_triplets, load_wikihow_qa
from .metrics import Score, bleu4, retrieval_scores, rouge_l
from .runner import evaluate_generation, evaluate_retrieval, score_predictions

__all__ = ["EvalItem", "Score", "bleu4", "evaluate_generation", "evaluate_retrieval", "load_golden_jsonl",
           "load_transcripts", "load_triplets", "load_wikihow_qa", "retrieval_scores", "rouge_l",
           "score_predictions"]
