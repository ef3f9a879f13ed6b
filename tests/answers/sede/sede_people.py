"""The users of the generated Stack Exchange site: who they are, when they joined, how active they are.

Ids are sparse and grow with the join date, as on the site (an id tells roughly when its user joined);
the ids the corpus queries name are among them, and the Community user (-1) owns the tag wikis. Display
names mix the site's forms: handles in any case, `user12345`, first and last names in many scripts
(é, ü, ø, ñ, Cyrillic, CJK), apostrophes, a few with a trailing space or empty, and those the queries
name. Reputation and the other counts are filled in once the posts are made (`user_rows`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sede_lists import FIRST_NAMES, HANDLES, LAST_NAMES, LOCATIONS
from sede_random import END, START, Draw, running

MAX_USER_ID = 23_000_000
FIXED_NAMES = ("SuperCoder", "Superb Owl", "Grace Note ♦")
"""Names the queries look for by pattern (`LIKE 'Super%'`, `LIKE '%♦%'`), which the literals cannot give."""
COMMUNITY = -1


@dataclass
class User:
    id: int
    created: datetime
    name: str | None
    activity: float
    """How much this user posts, relative to others (heavy-tailed)."""
    moderator: bool = False
    reputation: int = 1
    up_votes: int = 0
    down_votes: int = 0
    badges: list[str] = field(default_factory=list)


def user_time(user_id: int) -> datetime:
    """When a user of this id joined: ids grow with the join date."""
    if user_id < 1:
        return START.replace(hour=0, minute=0, second=0, microsecond=0)
    share = min(user_id / MAX_USER_ID, 1.0)
    return START + (END - START) * share


class People:
    """Every user, ordered by id (and so by join date), with a weighted choice among those who had joined."""

    def __init__(self, users: list[User]) -> None:
        self.users = sorted(users, key=lambda u: u.id)
        self.by_id = {u.id: u for u in self.users}
        active = [u for u in self.users if u.id != COMMUNITY]
        self._joined = [u.created for u in active]
        self._active = active
        self._cumulative = running([u.activity for u in active])

    def pick(self, draw: Draw, at: datetime, *, besides: int | None = None) -> User | None:
        """An active user who had joined by `at`, the more active more often; None when nobody had."""
        known = bisect_right(self._joined, at)
        if known == 0:
            return None
        for _ in range(4):
            target = draw.random() * self._cumulative[known - 1]
            user = self._active[min(bisect_right(self._cumulative, target), known - 1)]
            if user.id != besides:
                return user
        return user

    @property
    def moderators(self) -> list[User]:
        return [u for u in self.users if u.moderator]


def make_users(seed: int, count: int, named_ids: tuple[int, ...], named: tuple[str, ...]) -> People:
    """`count` users (at least the ones the queries name), the Community user and the named ones included."""
    draw = Draw(seed, "Users")
    ids = {COMMUNITY, *named_ids}
    while len(ids) < count + 1:
        ids.add(draw.between(1, MAX_USER_ID))
    users = []
    for user_id in sorted(ids):
        created = user_time(user_id) + timedelta(seconds=draw.below(3600))
        created = min(created, END).replace(microsecond=draw.pick((0, 3, 7, 10, 13, 17, 500, 997)) * 1000)
        users.append(User(user_id, created, _name(draw, user_id), activity=1.0 / (1.0 - draw.random()) ** 0.9))
    community = users[0]
    community.name, community.activity = "Community", 0.0
    others = [u for u in users if u.id != COMMUNITY]
    wanted = set(named_ids)
    for user in others:  # the users the queries name post often enough for their queries to find something
        if user.id in wanted:
            user.activity = max(user.activity, 25.0)
    for text in (*named, *FIXED_NAMES):  # the names the queries look for, on users drawn at random
        user = others[draw.below(len(others))]
        user.name, user.activity = text, max(user.activity, 25.0)
    for user in sorted(others, key=lambda u: -u.activity)[: max(3, len(others) // 200)]:
        user.moderator = True
    return People(users)


def _name(draw: Draw, user_id: int) -> str | None:
    r = draw.random()
    if r < 0.45:
        handle = draw.pick(HANDLES)
        handle = (handle.upper() if draw.chance(0.1) else handle.capitalize() if draw.chance(0.4) else handle)
        name = f"{handle}{draw.below(10_000)}" if draw.chance(0.7) else f"{draw.pick(FIRST_NAMES).lower()}_{handle}"
    elif r < 0.82:
        name = f"{draw.pick(FIRST_NAMES)} {draw.pick(LAST_NAMES)}"
    elif r < 0.93:
        name = f"user{user_id}"
    elif r < 0.96:
        name = draw.pick(FIRST_NAMES)
    elif r < 0.985:
        name = f"{draw.pick(FIRST_NAMES)} {draw.pick(LAST_NAMES)} "  # a trailing space, as some are stored
    else:
        name = ""
    return name[:40]


def location_pool(wanted: tuple[str, ...]) -> tuple[str, ...]:
    """The places users give: the list, and each searched-for text that no place of it contains."""
    missing = tuple(text for text in wanted if not any(text.casefold() in place.casefold() for place in LOCATIONS))
    return LOCATIONS + missing


def user_rows(people: People, seed: int, places: tuple[str, ...], ends: dict[int, datetime]) -> list[dict]:
    """The Users rows; `ends` is each user's last activity (their last post, comment or vote)."""
    draw = Draw(seed, "UserRows")
    rows = []
    users = [u for u in people.users if u.id != COMMUNITY]
    placed = {users[draw.below(len(users))].id: place for place in places}  # every place someone's, at least once
    for user in people.users:
        last = max(ends.get(user.id, user.created), user.created)
        last_access = min(draw.after(last, 86_400 * 30), END)
        handle = "".join(ch for ch in (user.name or "").lower() if ch.isascii() and ch.isalnum())[:20] or f"u{user.id}"
        r = draw.random()
        website = None if r < 0.8 else "" if r < 0.85 else f"https://{handle}.example.com" if r < 0.95 else \
            f"http://www.{handle}.dev/blog"
        r = draw.random()
        location = placed.get(user.id) or (None if r < 0.72 else "" if r < 0.75 else draw.pick(places))
        r = draw.random()
        about = None if r < 0.78 else "" if r < 0.81 else \
            f"<p>{'Moderator. ' if user.moderator else ''}Working with databases since {user.created.year}.</p>"
        views = int(user.activity * draw.heavy(0.9, 50_000)) if user.reputation > 1 else draw.heavy(1.5, 20)
        image = None if draw.chance(0.4) else f"https://i.stack.imgur.com/{_code(draw)}.jpg" if draw.chance(0.5) \
            else f"https://www.gravatar.com/avatar/{_hex(draw, 32)}?s=256&d=identicon&r=PG"
        rows.append({
            "Id": user.id, "Reputation": user.reputation, "CreationDate": user.created, "DisplayName": user.name,
            "LastAccessDate": last_access, "WebsiteUrl": website, "Location": location, "AboutMe": about,
            "Views": views, "UpVotes": user.up_votes, "DownVotes": user.down_votes, "ProfileImageUrl": image,
            "EmailHash": _hex(draw, 32) if draw.chance(0.03) else None,
            "AccountId": COMMUNITY if user.id == COMMUNITY else None if draw.chance(0.02) else user.id // 3 + 7})
    return rows


def _code(draw: Draw) -> str:
    return "".join(draw.pick("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(7))


def _hex(draw: Draw, n: int) -> str:
    return "".join(draw.pick("0123456789abcdef") for _ in range(n))
