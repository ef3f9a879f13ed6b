-- The Stack Exchange Data Explorer (SEDE) schema: the 29 tables and their columns of
-- tests/corpus/sede-val/tables_so.json, with the types, NULLs and keys of the real site
-- (SOURCE.md says where each comes from and which are a best reading).
-- SEDE declares no foreign keys; tests/answers/sede/references.py lists the ones the rows keep.

CREATE TABLE dbo.Badges (
    Id int NOT NULL PRIMARY KEY,
    UserId int NOT NULL,
    Name nvarchar(50) NOT NULL,
    Date datetime NOT NULL,
    Class tinyint NOT NULL,
    TagBased bit NOT NULL
);
GO
CREATE TABLE dbo.CloseAsOffTopicReasonTypes (
    Id smallint NOT NULL PRIMARY KEY,
    IsUniversal bit NOT NULL,
    InputTitle nvarchar(200) NULL,
    MarkdownInputGuidance nvarchar(max) NULL,
    MarkdownPostOwnerGuidance nvarchar(max) NULL,
    MarkdownPrivilegedUserGuidance nvarchar(max) NULL,
    MarkdownConcensusDescription nvarchar(max) NULL,
    CreationDate datetime NOT NULL,
    CreationModeratorId int NULL,
    ApprovalDate datetime NULL,
    ApprovalModeratorId int NULL,
    DeactivationDate datetime NULL,
    DeactivationModeratorId int NULL
);
GO
CREATE TABLE dbo.CloseReasonTypes (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(200) NOT NULL,
    Description nvarchar(500) NULL
);
GO
CREATE TABLE dbo.Comments (
    Id int NOT NULL PRIMARY KEY,
    PostId int NOT NULL,
    Score int NOT NULL,
    Text nvarchar(600) NOT NULL,
    CreationDate datetime NOT NULL,
    UserDisplayName nvarchar(30) NULL,
    UserId int NULL,
    ContentLicense varchar(12) NOT NULL
);
GO
CREATE TABLE dbo.FlagTypes (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(50) NOT NULL,
    Description nvarchar(500) NOT NULL
);
GO
CREATE TABLE dbo.PendingFlags (
    Id int NOT NULL PRIMARY KEY,
    FlagTypeId tinyint NOT NULL,
    PostId int NOT NULL,
    CreationDate datetime NULL,
    CloseReasonTypeId tinyint NULL,
    CloseAsOffTopicReasonTypeId smallint NULL,
    DuplicateOfQuestionId int NULL,
    BelongsOnBaseHostAddress nvarchar(100) NULL
);
GO
CREATE TABLE dbo.PostFeedback (
    Id int NOT NULL PRIMARY KEY,
    PostId int NOT NULL,
    IsAnonymous bit NULL,
    VoteTypeId tinyint NOT NULL,
    CreationDate datetime NOT NULL
);
GO
CREATE TABLE dbo.PostHistory (
    Id int NOT NULL PRIMARY KEY,
    PostHistoryTypeId tinyint NOT NULL,
    PostId int NOT NULL,
    RevisionGUID uniqueidentifier NOT NULL,
    CreationDate datetime NOT NULL,
    UserId int NULL,
    UserDisplayName nvarchar(40) NULL,
    Comment nvarchar(400) NULL,
    Text nvarchar(max) NULL,
    ContentLicense varchar(12) NULL
);
GO
CREATE TABLE dbo.PostHistoryTypes (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(50) NOT NULL
);
GO
CREATE TABLE dbo.PostLinks (
    Id int NOT NULL PRIMARY KEY,
    CreationDate datetime NOT NULL,
    PostId int NOT NULL,
    RelatedPostId int NOT NULL,
    LinkTypeId tinyint NOT NULL
);
GO
CREATE TABLE dbo.PostNotices (
    Id int NOT NULL PRIMARY KEY,
    PostId int NOT NULL,
    PostNoticeTypeId int NULL,
    CreationDate datetime NOT NULL,
    DeletionDate datetime NULL,
    ExpiryDate datetime NULL,
    Body nvarchar(max) NULL,
    OwnerUserId int NULL,
    DeletionUserId int NULL
);
GO
CREATE TABLE dbo.PostNoticeTypes (
    Id int NOT NULL PRIMARY KEY,
    ClassId tinyint NOT NULL,
    Name nvarchar(80) NULL,
    Body nvarchar(max) NULL,
    IsHidden bit NOT NULL,
    Predefined bit NOT NULL,
    PostNoticeDurationId int NOT NULL
);
GO
CREATE TABLE dbo.Posts (
    Id int NOT NULL PRIMARY KEY,
    PostTypeId tinyint NOT NULL,
    AcceptedAnswerId int NULL,
    ParentId int NULL,
    CreationDate datetime NOT NULL,
    DeletionDate datetime NULL,
    Score int NOT NULL,
    ViewCount int NULL,
    Body nvarchar(max) NULL,
    OwnerUserId int NULL,
    OwnerDisplayName nvarchar(40) NULL,
    LastEditorUserId int NULL,
    LastEditorDisplayName nvarchar(40) NULL,
    LastEditDate datetime NULL,
    LastActivityDate datetime NOT NULL,
    Title nvarchar(250) NULL,
    Tags nvarchar(250) NULL,
    AnswerCount int NULL,
    CommentCount int NOT NULL,
    FavoriteCount int NULL,
    ClosedDate datetime NULL,
    CommunityOwnedDate datetime NULL,
    ContentLicense varchar(12) NOT NULL
);
GO
-- Deleted posts keep only their id, type, dates, score and tags: every other column may be NULL.
CREATE TABLE dbo.PostsWithDeleted (
    Id int NOT NULL PRIMARY KEY,
    PostTypeId tinyint NOT NULL,
    AcceptedAnswerId int NULL,
    ParentId int NULL,
    CreationDate datetime NOT NULL,
    DeletionDate datetime NULL,
    Score int NOT NULL,
    ViewCount int NULL,
    Body nvarchar(max) NULL,
    OwnerUserId int NULL,
    OwnerDisplayName nvarchar(40) NULL,
    LastEditorUserId int NULL,
    LastEditorDisplayName nvarchar(40) NULL,
    LastEditDate datetime NULL,
    LastActivityDate datetime NULL,
    Title nvarchar(250) NULL,
    Tags nvarchar(250) NULL,
    AnswerCount int NULL,
    CommentCount int NULL,
    FavoriteCount int NULL,
    ClosedDate datetime NULL,
    CommunityOwnedDate datetime NULL,
    ContentLicense varchar(12) NULL
);
GO
CREATE TABLE dbo.PostTags (
    PostId int NOT NULL,
    TagId int NOT NULL,
    PRIMARY KEY (PostId, TagId)
);
GO
CREATE TABLE dbo.PostTypes (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(50) NOT NULL
);
GO
CREATE TABLE dbo.ReviewRejectionReasons (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(100) NOT NULL,
    Description nvarchar(300) NOT NULL,
    PostTypeId tinyint NULL
);
GO
CREATE TABLE dbo.ReviewTaskResults (
    Id int NOT NULL PRIMARY KEY,
    ReviewTaskId int NOT NULL,
    ReviewTaskResultTypeId tinyint NOT NULL,
    CreationDate datetime NULL,
    RejectionReasonId tinyint NULL,
    Comment nvarchar(150) NULL
);
GO
CREATE TABLE dbo.ReviewTaskResultTypes (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(100) NOT NULL,
    Description nvarchar(300) NOT NULL
);
GO
CREATE TABLE dbo.ReviewTasks (
    Id int NOT NULL PRIMARY KEY,
    ReviewTaskTypeId tinyint NOT NULL,
    CreationDate datetime NULL,
    DeletionDate datetime NULL,
    ReviewTaskStateId tinyint NOT NULL,
    PostId int NOT NULL,
    SuggestedEditId int NULL,
    CompletedByReviewTaskId int NULL
);
GO
CREATE TABLE dbo.ReviewTaskStates (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(50) NOT NULL,
    Description nvarchar(300) NOT NULL
);
GO
CREATE TABLE dbo.ReviewTaskTypes (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(50) NOT NULL,
    Description nvarchar(300) NOT NULL
);
GO
CREATE TABLE dbo.SuggestedEdits (
    Id int NOT NULL PRIMARY KEY,
    PostId int NOT NULL,
    CreationDate datetime NULL,
    ApprovalDate datetime NULL,
    RejectionDate datetime NULL,
    OwnerUserId int NULL,
    Comment nvarchar(800) NULL,
    Text nvarchar(max) NULL,
    Title nvarchar(250) NULL,
    Tags nvarchar(250) NULL,
    RevisionGUID uniqueidentifier NULL
);
GO
CREATE TABLE dbo.SuggestedEditVotes (
    Id int NOT NULL PRIMARY KEY,
    SuggestedEditId int NOT NULL,
    UserId int NOT NULL,
    VoteTypeId tinyint NOT NULL,
    CreationDate datetime NOT NULL,
    TargetUserId int NULL,
    TargetRepChange int NOT NULL
);
GO
CREATE TABLE dbo.Tags (
    Id int NOT NULL PRIMARY KEY,
    TagName nvarchar(35) NOT NULL,
    Count int NOT NULL,
    ExcerptPostId int NULL,
    WikiPostId int NULL
);
GO
CREATE TABLE dbo.TagSynonyms (
    Id int NOT NULL PRIMARY KEY,
    SourceTagName nvarchar(35) NULL,
    TargetTagName nvarchar(35) NULL,
    CreationDate datetime NOT NULL,
    OwnerUserId int NOT NULL,
    AutoRenameCount int NOT NULL,
    LastAutoRename datetime NULL,
    Score int NOT NULL,
    ApprovedByUserId int NULL,
    ApprovalDate datetime NULL
);
GO
CREATE TABLE dbo.Users (
    Id int NOT NULL PRIMARY KEY,
    Reputation int NOT NULL,
    CreationDate datetime NOT NULL,
    DisplayName nvarchar(40) NULL,
    LastAccessDate datetime NOT NULL,
    WebsiteUrl nvarchar(200) NULL,
    Location nvarchar(100) NULL,
    AboutMe nvarchar(max) NULL,
    Views int NOT NULL,
    UpVotes int NOT NULL,
    DownVotes int NOT NULL,
    ProfileImageUrl nvarchar(200) NULL,
    EmailHash varchar(32) NULL,
    AccountId int NULL
);
GO
CREATE TABLE dbo.Votes (
    Id int NOT NULL PRIMARY KEY,
    PostId int NOT NULL,
    VoteTypeId tinyint NOT NULL,
    UserId int NULL,
    CreationDate datetime NULL,
    BountyAmount int NULL
);
GO
CREATE TABLE dbo.VoteTypes (
    Id tinyint NOT NULL PRIMARY KEY,
    Name nvarchar(50) NOT NULL
);
GO
