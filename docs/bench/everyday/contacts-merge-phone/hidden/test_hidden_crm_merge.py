from crm_merge import merge_contacts


def test_blank_phone_falls_back():
    merged = merge_contacts({"email": "e@x", "phone": "1"}, {"phone": "  "})
    assert merged["phone"] == "1"


def test_no_phone_anywhere():
    assert merge_contacts({"email": "e@x"}, {"name": "Z"})["phone"] is None


def test_tags_union():
    assert merge_contacts({"tags": ["b"]}, {"tags": ["a", "b"]})["tags"] == ["a", "b"]
