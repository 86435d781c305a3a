"""Validating a product CSV before it is imported into the shop."""

import csv
import io

REQUIRED = ("sku", "name", "price")


def read_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def row_errors(row):
    errors = [f"missing {field}" for field in REQUIRED if not (row.get(field) or "").strip()]
    price = (row.get("price") or "").strip()
    if price:
        try:
            if float(price) < 0:
                errors.append("negative price")
        except ValueError:
            errors.append("price is not a number")
    return errors


def validate_rows(rows):
    """(line number, message) for every problem; line 2 is the first data row."""
    problems = []
    for number, row in enumerate(rows, start=2):
        for message in row_errors(row):
            problems.append((number, message))
            return problems
    return problems
