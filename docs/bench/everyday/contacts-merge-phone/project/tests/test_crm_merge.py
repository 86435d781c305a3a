from crm_merge import dedupe, merge_contacts

OLD = {"name": "Ann", "email": "ann@x.org", "phone": "555-0100", "tags": ["vip"]}


def test_new_values_win():
    merged = merge_contacts(OLD, {"name": "Ann B.", "phone": "555-0199"})
    assert merged["name"] == "Ann B."
    assert merged["phone"] == "555-0199"


def test_phone_falls_back_to_old():
    assert merge_contacts(OLD, {"email": "ann@y.org"})["phone"] == "555-0100"


def test_dedupe():
    records = [{"email": "a@x.org", "tags": ["a"]}, {"email": "A@x.org ", "tags": ["b"]}]
    assert len(dedupe(records)) == 1
