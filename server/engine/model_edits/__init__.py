"""The model's local edits: the model writes only the hole at a suspicious line (fill in the
middle), many samples of it, and the edit search's judge keeps what the tests say.

Why: a whole-function answer costs a small model 500-1,500 tokens (a minute or more on two
cores), is cut at the length limit or repeats the function unchanged; one line costs ~20 tokens,
so the same minute buys dozens of candidates, each judged like the search's edits (AlphaRepair,
Xia & Zhang FSE'22; Xia, Wei & Zhang ICSE'23).

- holes.py: where (the line, its statement, its block's header with it, the gap after it;
  then a guard before it, it grown into a few lines, a new branch of its if/elif chain);
- fim_prompt.py: what the model reads (prefix and suffix around a hole, with the evidence);
- samples.py: the model's answers made into edits (cut at the hole's end, parsed, deduped);
- step.py: all of it under one time budget, judged by search/edit_search.py;
- preference.py: the model's vote among fixes the tests cannot tell apart (the one it writes).
"""
