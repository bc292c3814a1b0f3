"""A toy sequential set for the LLaRA track's tests: 30 users, 12 timestamped interactions each
over 60 titled items (`alpha 00` ... `alpha 59`), as interactions.parquet and items.parquet."""

from pathlib import Path

import pandas as pd


def write_toy_sequences(folder: Path) -> None:
    rows = [{"user_id": f"u{u}", "item_id": f"i{(u * 7 + t) % 60}", "rating": 4.0, "timestamp": 1000 * u + t}
            for u in range(30) for t in range(12)]
    pd.DataFrame(rows).to_parquet(folder / "interactions.parquet", index=False)
    pd.DataFrame({"item_id": [f"i{k}" for k in range(60)],
                  "title": [f"alpha {k:02d}" for k in range(60)]}).to_parquet(folder / "items.parquet", index=False)
