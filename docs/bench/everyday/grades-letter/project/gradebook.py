"""Course grades: averages of weighted scores, then letters."""

CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


def weighted_average(scores, weights):
    """The mean of `scores` weighted by `weights` (same length)."""
    if len(scores) != len(weights) or not scores:
        raise ValueError("one weight per score, at least one score")
    return sum(s * w for s, w in zip(scores, weights)) / sum(weights)


def letter(average):
    """A from 90, B from 80, C from 70, D from 60, else F."""
    if average >= 90:
        return "A"
    if average > 80:
        return "B"
    if average >= 70:
        return "C"
    if average >= 60:
        return "D"
    return "F"


def report(students):
    """{name: letter} for {name: (scores, weights)}."""
    return {name: letter(weighted_average(*sw)) for name, sw in students.items()}
