"""Per-sentence time of `core.minilm_forward` (all-MiniLM-L6-v2 run whole, numpy) beside Hugging
Face's BertModel (torch, eager attention, the same files) run side by side, round-robin, on the
article's sentence and on one at the order page's cap (64 tokens). Prints milliseconds and the
ratio to BertModel (the baseline). Run: `python benchmarks/bench_minilm.py`."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core import limits, minilm  # noqa: E402
from core.minilm_encoder import minilm_forward  # noqa: E402

SENTENCES = {
    "article (8 tokens)": "The cat sat on the mat",
    f"cap ({limits.MAX_ORDER_TOKENS} tokens)": " ".join(["cat"] * (limits.MAX_ORDER_TOKENS - 2)),
}
ROUNDS = 20


def main() -> None:
    import torch
    from transformers import BertModel

    torch.set_num_threads(1)  # as the app runs its numpy: one thread per forward
    model = minilm.load_minilm()
    bert = BertModel.from_pretrained(str(minilm.model_path()), local_files_only=True,
                                     attn_implementation="eager").eval()
    print(f"{'sentence':20} {'ours ms':>9} {'BertModel ms':>13} {'x baseline':>11}")
    for name, text in SENTENCES.items():
        ids = torch.tensor([model.token_ids(text, add_special_tokens=True)])
        ours, theirs = [], []
        minilm_forward(model, text)  # warm: the encoder's weights are read once per process
        for _ in range(ROUNDS):
            start = time.perf_counter()
            minilm_forward(model, text)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            with torch.no_grad():
                bert(input_ids=ids, output_attentions=True, output_hidden_states=True)
            theirs.append(time.perf_counter() - start)
        a, b = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
        print(f"{name:20} {a:9.1f} {b:13.1f} {a / b:11.2f}")


if __name__ == "__main__":
    main()
