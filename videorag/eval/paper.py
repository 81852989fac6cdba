"""The VideoRAG paper's published numbers (Jeong et al. 2025, Tables 1–3), for side-by-side tables."""

from __future__ import annotations

# Table 1, WikiHowQA: ROUGE-L, BLEU-4, BERTScore (roberta-large), G-Eval
GENERATION: dict[str, dict[str, tuple[float, ...]]] = {
    "InternVL2.5-8B": {
        "Naive": (16.54, 1.859, 84.30, 1.720),
        "TextRAG (BM25)": (17.41, 2.275, 84.89, 1.552),
        "TextVideoRAG": (19.88, 3.199, 85.81, 1.686),
        "VideoRAG-V": (25.11, 4.243, 88.15, 1.863),
        "VideoRAG-VT": (23.75, 4.271, 87.42, 1.906),
        "Oracle-V": (25.59, 4.318, 88.29, 1.958),
        "Oracle-VT": (24.60, 4.421, 87.70, 2.002),
    },
    "LLaVA-Video-7B": {
        "Naive": (14.08,),
        "TextRAG (BM25)": (17.22,),
        "TextVideoRAG": (22.81,),
        "VideoRAG-V": (24.95,),
        "VideoRAG-VT": (24.93,),
    },
    "Qwen2.5-VL-3B": {"Naive": (17.96,), "TextVideoRAG": (22.18,), "VideoRAG-V": (23.24,), "VideoRAG-VT": (23.22,)},
}

# Tables 2/3, first-gold Recall@1/5/10
RETRIEVAL = {
    "Visual": (0.054, 0.193, 0.288),
    "Textual": (0.088, 0.302, 0.388),
    "Ensemble": (0.103, 0.311, 0.442),
    "Visual adaptive": (0.079, 0.249, 0.367),
    "Ensemble adaptive": (0.118, 0.324, 0.453),
}

# shipped InternVL2.5-8B prediction files → the Table 1 row they stand behind
REFERENCE_RUNS = ("Naive", "VideoRAG-V", "VideoRAG-VT", "Oracle-V", "Oracle-VT")
