"""The judge: every candidate fix, whoever made it, run and ranked one way, with its reasons.

The generators (the edit search, the model's local edits, a model's rewrite) only make
candidates (`search.edits.Edit`: the whole function text and what changed where); the judge
decides which one the user gets. Its parts, in the order it uses them:
- `context.py`: what the session hands the generators and the judge (`SearchContext`);
- `batches.py`: the candidates run on the chosen and wider tests, many per test process
  (`evaluate`), and what they are judged by (`Judging`);
- `survivors.py`: those that pass every chosen test, ranked; one program counted once;
- `crosscheck.py`: versions compared on inputs generated from the tests' own calls;
- `verdicts.py`: the rules that choose among survivors (`judge_survivors`), or choose none;
- `partials.py`: no survivor: the best edit that fixes some failing tests and breaks none;
- `verify.py`: the chosen one run afresh as any fix is (the wider tests and the chosen ones,
  one run when the wider tests hold them);
- `judge.py`: the entry point, `Judge(context).judge(candidates)` -> `Judgement`.
"""
