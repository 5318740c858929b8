"""POPE (Li et al., 2023): object hallucination as yes/no questions in three splits (random, popular,
adversarial), scored as POPE's own `evaluate.py` scores them, with intervals on every number."""
