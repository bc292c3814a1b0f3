"""The benchmark audit (docs/audit.md): every question and prompt file of a dataset is
checked before any score is recorded, and the build fails with one line naming the file, the
question id and the check when a hard check fails.

Hard checks (`checks.py`): an answer equal to a negative (by id or by normalised display text), a
negative from the user's history, the positive inside the shown history, a distractor value that
is true of the positive, two candidates with one display text, a candidate without its label or
text in the prompt, a prompt that disagrees with its question. Slot checks (`slots.py`): answer
slots uniform per measure (chi-square, a failure at p < 0.001 once n >= 200) and no two (dataset,
measure) pairs with the same slot sequence. `report.py` adds the counts a reader needs (ties,
dropped users, exclusions, rejected negatives, rewritten titles) and writes the json and table.
"""
