"""The site's moderation around the generated posts: suggested edits and their votes, review tasks and their
results, pending close flags, anonymous feedback, post notices, tag synonyms, off-topic close reasons.

As elsewhere, each row comes after the post or user it names, and every id it holds is a row of its table:
a review task of a suggested edit names it, a completed task the result that completed it, a rejection its
reason, a pending close flag of a duplicate the question it duplicates.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sede_activity import numbered
from sede_lists import POST_NOTICE_TYPES, REVIEW_REJECTION_REASONS, SYNONYMS
from sede_people import People
from sede_posts import Site
from sede_random import END, Draw

_RESULTS = {1: (2, 3, 1), 2: (6, 8, 1), 3: (7, 4, 5, 9, 10), 4: (5, 18, 11), 5: (5, 18, 11), 6: (12, 13, 14),
            7: (15, 16, 17), 8: (7, 1), 9: (7, 4), 10: (7, 17, 1), 11: (14, 1), 12: (18, 5, 11), 13: (18, 5, 11)}
"""The results a review task of each type can have."""
OFF_TOPIC_REASONS = 8


def off_topic_rows(seed: int, people: People) -> list[dict]:
    draw = Draw(seed, "CloseAsOffTopicReasonTypes")
    moderators = people.moderators
    rows = []
    for n in range(1, OFF_TOPIC_REASONS + 1):
        created = draw.moment(datetime(2013, 6, 25), datetime(2020, 1, 1))
        approved = draw.after(created, 86_400 * 3) if draw.chance(0.8) else None
        deactivated = draw.after(created, 86_400 * 400) if draw.chance(0.25) else None
        rows.append({"Id": n, "IsUniversal": n <= 2, "InputTitle": None if n <= 2 else f"Off-topic reason {n}",
                     "MarkdownInputGuidance": f"Questions about topic {n} are off-topic here.",
                     "MarkdownPostOwnerGuidance": None if draw.chance(0.3) else "Please see the help center.",
                     "MarkdownPrivilegedUserGuidance": None if draw.chance(0.5) else "Close as off-topic.",
                     "MarkdownConcensusDescription": None if draw.chance(0.5) else "Agreed on meta.",
                     "CreationDate": created, "CreationModeratorId": draw.pick(moderators).id,
                     "ApprovalDate": approved, "ApprovalModeratorId": draw.pick(moderators).id if approved else None,
                     "DeactivationDate": deactivated,
                     "DeactivationModeratorId": draw.pick(moderators).id if deactivated else None})
    return rows


def suggested_edit_rows(seed: int, site: Site, people: People, count: int) -> tuple[list[dict], list[dict]]:
    """SuggestedEdits and their SuggestedEditVotes."""
    draw = Draw(seed, "SuggestedEdits")
    posts = [p for p in site.posts.values() if p.type in (1, 2) and p.created < END - timedelta(days=5)]
    edits, votes = [], []
    for _ in range(count):
        post = posts[draw.below(len(posts))]
        created = draw.after(post.created, 86_400 * 20, END - timedelta(days=3))
        owner = people.pick(draw, created)
        r = draw.random()
        approved = draw.after(created, 3600 * 6, END) if r < 0.7 else None
        rejected = draw.after(created, 3600 * 6, END) if 0.7 <= r < 0.92 else None
        question = post if post.type == 1 else None
        edits.append({"PostId": post.id, "CreationDate": created, "ApprovalDate": approved, "RejectionDate": rejected,
                      "OwnerUserId": owner.id if owner and draw.chance(0.95) else None,
                      "Comment": draw.pick(("fixed grammar", "improved formatting", "added code formatting",
                                            "corrected spelling", "Überarbeitet", "clarified the title")),
                      "Text": post.body, "Title": question.title if question else None,
                      "Tags": question.tag_text if question else None,
                      "RevisionGUID": draw.guid() if approved else None})
    numbered(draw, edits, "CreationDate")
    for edit in edits:
        decided = edit["ApprovalDate"] or edit["RejectionDate"]
        if decided is None:
            continue
        for _ in range(1 + draw.below(3)):
            voter = people.pick(draw, edit["CreationDate"], besides=edit["OwnerUserId"])
            if voter is None:
                continue
            kind = 2 if edit["ApprovalDate"] else 3
            votes.append({"SuggestedEditId": edit["Id"], "UserId": voter.id, "VoteTypeId": kind,
                          "CreationDate": max(edit["CreationDate"], decided - timedelta(minutes=draw.below(300))),
                          "TargetUserId": edit["OwnerUserId"],
                          "TargetRepChange": 2 if kind == 2 and edit["OwnerUserId"] is not None else 0})
    return edits, numbered(draw, votes, "CreationDate")


def review_rows(seed: int, site: Site, edits: list[dict], count: int) -> tuple[list[dict], list[dict]]:
    """ReviewTasks (one per suggested edit, others on posts) and their ReviewTaskResults."""
    draw = Draw(seed, "ReviewTasks")
    posts = [p for p in site.posts.values() if p.type in (1, 2) and p.created < END - timedelta(days=5)]
    tasks = [{"ReviewTaskTypeId": 1, "CreationDate": e["CreationDate"], "DeletionDate": None,
              "ReviewTaskStateId": 2 if e["ApprovalDate"] or e["RejectionDate"] else 1, "PostId": e["PostId"],
              "SuggestedEditId": e["Id"], "CompletedByReviewTaskId": None} for e in edits]
    for _ in range(count):
        post = posts[draw.below(len(posts))]
        kind = draw.pick((2, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 10, 11, 12, 13)) if post.type == 1 else \
            draw.pick((3, 4, 5, 5, 9, 13))
        created = draw.after(post.created, 86_400 * 2, END - timedelta(days=2))
        r = draw.random()
        tasks.append({"ReviewTaskTypeId": kind, "CreationDate": created,
                      "DeletionDate": draw.after(created, 86_400 * 3, END) if r > 0.85 else None,
                      "ReviewTaskStateId": 2 if r < 0.7 else 1 if r <= 0.85 else 3, "PostId": post.id,
                      "SuggestedEditId": None, "CompletedByReviewTaskId": None})
    numbered(draw, tasks, "CreationDate")
    reasons = [r[0] for r in REVIEW_REJECTION_REASONS]
    results = []
    for task in tasks:
        for _ in range(1 + draw.below(3)):
            kind = draw.pick(_RESULTS[task["ReviewTaskTypeId"]])
            results.append({"ReviewTaskId": task["Id"], "ReviewTaskResultTypeId": kind,
                            "CreationDate": draw.after(task["CreationDate"], 3600 * 12, END),
                            "RejectionReasonId": draw.pick(reasons) if kind == 3 else None,
                            "Comment": None if draw.chance(0.8) else draw.pick(("looks fine", "needs work",
                                                                                   "This edit was intended to address the author of the post."))})
    numbered(draw, results, "CreationDate")
    last = {}
    for result in results:
        last[result["ReviewTaskId"]] = result["Id"]
    for task in tasks:
        if task["ReviewTaskStateId"] == 2:
            task["CompletedByReviewTaskId"] = last.get(task["Id"])
    return tasks, results


def flag_rows(seed: int, site: Site, count: int) -> list[dict]:
    """PendingFlags: close (13) and reopen (14) votes not yet settled."""
    draw = Draw(seed, "PendingFlags")
    questions = site.questions
    rows = []
    for _ in range(count):
        i = 1 + draw.below(len(questions) - 1)
        q = questions[i]
        close = draw.chance(0.85)
        reason = draw.pick((101, 102, 102, 103, 104, 105)) if close else None
        rows.append({"FlagTypeId": 13 if close else 14, "PostId": q.id,
                     "CreationDate": draw.after(q.created, 86_400 * 2, END),
                     "CloseReasonTypeId": reason,
                     "CloseAsOffTopicReasonTypeId": draw.between(1, OFF_TOPIC_REASONS) if reason == 102 else None,
                     "DuplicateOfQuestionId": questions[draw.below(i)].id if reason == 101 else None,
                     "BelongsOnBaseHostAddress": draw.pick(("superuser.com", "serverfault.com"))
                     if reason == 102 and draw.chance(0.2) else None})
    return numbered(draw, rows, "CreationDate")


def feedback_rows(seed: int, site: Site, count: int) -> list[dict]:
    draw = Draw(seed, "PostFeedback")
    posts = [p for p in site.posts.values() if p.type in (1, 2)]
    rows = []
    for _ in range(count):
        post = posts[draw.below(len(posts))]
        r = draw.random()
        rows.append({"PostId": post.id, "IsAnonymous": True if r < 0.85 else False if r < 0.95 else None,
                     "VoteTypeId": 2 if draw.chance(0.7) else 3, "CreationDate": draw.after(post.created, 86_400 * 60, END)})
    return numbered(draw, rows, "CreationDate")


def notice_rows(seed: int, site: Site, people: People, count: int) -> list[dict]:
    draw = Draw(seed, "PostNotices")
    posts = [p for p in site.posts.values() if p.type in (1, 2) and p.created < END - timedelta(days=10)]
    rows = []
    for _ in range(count):
        post = posts[draw.below(len(posts))]
        notice = draw.pick(POST_NOTICE_TYPES)
        created = draw.after(post.created, 86_400 * 30, END - timedelta(days=8))
        deleted = draw.after(created, 86_400 * 10, END) if draw.chance(0.4) else None
        owner = people.pick(draw, created)
        remover = people.pick(draw, deleted) if deleted else None
        rows.append({"PostId": post.id, "PostNoticeTypeId": notice[0], "CreationDate": created, "DeletionDate": deleted,
                     "ExpiryDate": created + timedelta(days=7) if notice[1] == 2 else None,
                     "Body": None if draw.chance(0.6) else "<p>Looking for an answer with sources.</p>",
                     "OwnerUserId": owner.id if owner else None, "DeletionUserId": remover.id if remover else None})
    return numbered(draw, rows, "CreationDate")


def synonym_rows(seed: int, people: People, tag_names: list[str]) -> list[dict]:
    draw = Draw(seed, "TagSynonyms")
    known = set(tag_names)
    rows = []
    for source, target in SYNONYMS:
        if target not in known or source in known:
            continue
        created = draw.moment(datetime(2010, 9, 1), END - timedelta(days=30))
        owner = people.pick(draw, created)
        if owner is None:
            continue
        renames = 0 if draw.chance(0.3) else draw.heavy(0.9, 20_000)
        approved = draw.chance(0.9)
        approver = people.pick(draw, created) if approved else None
        rows.append({"SourceTagName": source, "TargetTagName": target, "CreationDate": created,
                     "OwnerUserId": owner.id, "AutoRenameCount": renames,
                     "LastAutoRename": draw.after(created, 86_400 * 100, END) if renames else None,
                     "Score": draw.heavy(1.5, 40), "ApprovedByUserId": approver.id if approver else None,
                     "ApprovalDate": draw.after(created, 86_400 * 4, END) if approver else None})
    return numbered(draw, rows, "CreationDate")
