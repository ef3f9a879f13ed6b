"""The foreign ids of the SEDE tables: which column holds the id of which table's rows.

SEDE declares no foreign keys (schema.sql creates none, as the site has none), but its rows keep them:
the generator makes every such id a row of its table, and tests/answers/test_rows.py checks each one
with a query on the loaded database. PostsWithDeleted's own ids point into itself, the others into the
live tables.
"""

from __future__ import annotations

REFERENCES: tuple[tuple[str, str, str, str], ...] = (
    # (table, column, referenced table, referenced column)
    ("Badges", "UserId", "Users", "Id"),
    ("CloseAsOffTopicReasonTypes", "CreationModeratorId", "Users", "Id"),
    ("CloseAsOffTopicReasonTypes", "ApprovalModeratorId", "Users", "Id"),
    ("CloseAsOffTopicReasonTypes", "DeactivationModeratorId", "Users", "Id"),
    ("Comments", "PostId", "Posts", "Id"),
    ("Comments", "UserId", "Users", "Id"),
    ("PendingFlags", "FlagTypeId", "FlagTypes", "Id"),
    ("PendingFlags", "PostId", "Posts", "Id"),
    ("PendingFlags", "CloseReasonTypeId", "CloseReasonTypes", "Id"),
    ("PendingFlags", "CloseAsOffTopicReasonTypeId", "CloseAsOffTopicReasonTypes", "Id"),
    ("PendingFlags", "DuplicateOfQuestionId", "Posts", "Id"),
    ("PostFeedback", "PostId", "Posts", "Id"),
    ("PostFeedback", "VoteTypeId", "VoteTypes", "Id"),
    ("PostHistory", "PostHistoryTypeId", "PostHistoryTypes", "Id"),
    ("PostHistory", "PostId", "Posts", "Id"),
    ("PostHistory", "UserId", "Users", "Id"),
    ("PostLinks", "PostId", "Posts", "Id"),
    ("PostLinks", "RelatedPostId", "Posts", "Id"),
    ("PostNotices", "PostId", "Posts", "Id"),
    ("PostNotices", "PostNoticeTypeId", "PostNoticeTypes", "Id"),
    ("PostNotices", "OwnerUserId", "Users", "Id"),
    ("PostNotices", "DeletionUserId", "Users", "Id"),
    ("Posts", "PostTypeId", "PostTypes", "Id"),
    ("Posts", "AcceptedAnswerId", "Posts", "Id"),
    ("Posts", "ParentId", "Posts", "Id"),
    ("Posts", "OwnerUserId", "Users", "Id"),
    ("Posts", "LastEditorUserId", "Users", "Id"),
    ("PostsWithDeleted", "PostTypeId", "PostTypes", "Id"),
    ("PostsWithDeleted", "AcceptedAnswerId", "PostsWithDeleted", "Id"),
    ("PostsWithDeleted", "ParentId", "PostsWithDeleted", "Id"),
    ("PostsWithDeleted", "OwnerUserId", "Users", "Id"),
    ("PostsWithDeleted", "LastEditorUserId", "Users", "Id"),
    ("PostTags", "PostId", "Posts", "Id"),
    ("PostTags", "TagId", "Tags", "Id"),
    ("ReviewRejectionReasons", "PostTypeId", "PostTypes", "Id"),
    ("ReviewTaskResults", "ReviewTaskId", "ReviewTasks", "Id"),
    ("ReviewTaskResults", "ReviewTaskResultTypeId", "ReviewTaskResultTypes", "Id"),
    ("ReviewTaskResults", "RejectionReasonId", "ReviewRejectionReasons", "Id"),
    ("ReviewTasks", "ReviewTaskTypeId", "ReviewTaskTypes", "Id"),
    ("ReviewTasks", "ReviewTaskStateId", "ReviewTaskStates", "Id"),
    ("ReviewTasks", "PostId", "Posts", "Id"),
    ("ReviewTasks", "SuggestedEditId", "SuggestedEdits", "Id"),
    ("ReviewTasks", "CompletedByReviewTaskId", "ReviewTaskResults", "Id"),
    ("SuggestedEdits", "PostId", "Posts", "Id"),
    ("SuggestedEdits", "OwnerUserId", "Users", "Id"),
    ("SuggestedEditVotes", "SuggestedEditId", "SuggestedEdits", "Id"),
    ("SuggestedEditVotes", "UserId", "Users", "Id"),
    ("SuggestedEditVotes", "VoteTypeId", "VoteTypes", "Id"),
    ("SuggestedEditVotes", "TargetUserId", "Users", "Id"),
    ("Tags", "ExcerptPostId", "Posts", "Id"),
    ("Tags", "WikiPostId", "Posts", "Id"),
    ("TagSynonyms", "TargetTagName", "Tags", "TagName"),
    ("TagSynonyms", "OwnerUserId", "Users", "Id"),
    ("TagSynonyms", "ApprovedByUserId", "Users", "Id"),
    ("Votes", "PostId", "Posts", "Id"),
    ("Votes", "VoteTypeId", "VoteTypes", "Id"),
    ("Votes", "UserId", "Users", "Id"),
)


def dangling_sql(table: str, column: str, parent: str, parent_column: str) -> str:
    """A query counting the rows whose `column` names no row of `parent` (0 when every id resolves)."""
    return (f"SELECT COUNT(*) FROM dbo.{table} AS c WHERE c.{column} IS NOT NULL AND NOT EXISTS "
            f"(SELECT 1 FROM dbo.{parent} AS p WHERE p.{parent_column} = c.{column})")
