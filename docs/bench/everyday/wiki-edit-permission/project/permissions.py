"""Who may do what on a team wiki."""

from dataclasses import dataclass


@dataclass
class User:
    name: str
    is_admin: bool = False


@dataclass
class Page:
    title: str
    owner: str
    locked: bool = False


def can_view(user, page):
    return True


def can_edit(user, page):
    """Admins edit any page; owners edit their own pages unless locked."""
    return (user.is_admin or user.name == page.owner) and not page.locked


def can_delete(user, page):
    return user.is_admin
