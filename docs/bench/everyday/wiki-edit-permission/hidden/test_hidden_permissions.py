from permissions import Page, User, can_edit


def test_owner_cannot_edit_locked_page():
    assert not can_edit(User("kai"), Page("Home", owner="kai", locked=True))


def test_stranger_cannot_edit():
    assert not can_edit(User("eve"), Page("Home", owner="kai"))


def test_admin_edits_anything():
    admin = User("root", is_admin=True)
    assert can_edit(admin, Page("A", owner="x"))
    assert can_edit(admin, Page("B", owner="root", locked=True))
