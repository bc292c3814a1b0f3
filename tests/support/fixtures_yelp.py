"""A small Yelp Open Dataset file pair (review.json, business.json) in exactly the published
format, for the SRBench loader's tests."""

from __future__ import annotations

import json
import random
import string
from datetime import datetime, timezone
from pathlib import Path


def _yelp_id(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "-_") for _ in range(22))


def write_yelp_fixture(out_dir: str | Path, n_users: int = 40, n_businesses: int = 30,
                       reviews_per_user: int = 8, seed: int = 0) -> tuple[Path, Path]:
    """Write ``review.json`` and ``business.json`` in the Yelp Open Dataset layout (all fields of
    the real files, one JSON object per line) with a popularity skew; return their paths."""
    rng = random.Random(seed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cats = ["Restaurants", "Pizza", "Coffee & Tea", "Bars", "Nightlife", "Mexican", "Beauty & Spas", "Hair Salons"]
    businesses = []
    for i in range(n_businesses):
        businesses.append({
            "business_id": _yelp_id(rng), "name": f"Business {i}", "address": f"{100 + i} Main St",
            "city": "Philadelphia", "state": "PA", "postal_code": "19107",
            "latitude": 39.95 + rng.random() / 100, "longitude": -75.16 + rng.random() / 100,
            "stars": rng.choice([3.0, 3.5, 4.0, 4.5]), "review_count": 0, "is_open": 1,
            "attributes": {"RestaurantsTakeOut": "True"} if i % 2 else None,
            "categories": ", ".join(rng.sample(cats, 2)) if i % 7 else None,
            "hours": {"Monday": "8:0-18:0"} if i % 3 else None,
        })
    weights = [1.0 / (i + 1) for i in range(n_businesses)]
    reviews = []
    t0 = datetime(2018, 1, 1, tzinfo=timezone.utc).timestamp()
    for u in range(n_users):
        uid = _yelp_id(rng)
        chosen: list[int] = []
        while len(chosen) < min(reviews_per_user, n_businesses):
            b = rng.choices(range(n_businesses), weights)[0]
            if b not in chosen:
                chosen.append(b)
        t = t0 + rng.randrange(10**7)
        for b in chosen:
            t += rng.randrange(3600, 10**6)
            businesses[b]["review_count"] += 1
            reviews.append({
                "review_id": _yelp_id(rng), "user_id": uid, "business_id": businesses[b]["business_id"],
                "stars": float(rng.randint(1, 5)), "useful": rng.randint(0, 3), "funny": 0, "cool": 0,
                "text": "Fixture review.",
                "date": datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
            })
    rng.shuffle(reviews)  # the real file is not sorted by user or time
    rp, bp = out_dir / "review.json", out_dir / "business.json"
    rp.write_text("".join(json.dumps(r) + "\n" for r in reviews), encoding="utf-8")
    bp.write_text("".join(json.dumps(b) + "\n" for b in businesses), encoding="utf-8")
    return rp, bp
