from permissions import Page, User, can_delete, can_edit


def test_owner_edits_own_page():
    assert can_edit(User("kai"), Page("Home", owner="kai"))


def test_admin_edits_locked_page():
    assert can_edit(User("root", is_admin=True), Page("Policy", owner="kai", locked=True))


def test_only_admins_delete():
    assert not can_delete(User("kai"), Page("Home", owner="kai"))
