"""The fixed lists of the Stack Exchange schema and the vocabulary its generated rows are written in.

The *Types tables hold the site's own lists (SOURCE.md says where each comes from and which are a
best reading). The rest is vocabulary: badge names with their classes, the site's popular tags, the
pieces display names, titles, bodies and comments are made of.
"""

from __future__ import annotations

POST_TYPES = ((1, "Question"), (2, "Answer"), (3, "Wiki"), (4, "TagWikiExcerpt"), (5, "TagWiki"),
              (6, "ModeratorNomination"), (7, "WikiPlaceholder"), (8, "PrivilegeWiki"))

VOTE_TYPES = ((1, "AcceptedByOriginator"), (2, "UpMod"), (3, "DownMod"), (4, "Offensive"), (5, "Favorite"),
              (6, "Close"), (7, "Reopen"), (8, "BountyStart"), (9, "BountyClose"), (10, "Deletion"),
              (11, "Undeletion"), (12, "Spam"), (15, "ModeratorReview"), (16, "ApproveEditSuggestion"))

POST_HISTORY_TYPES = (
    (1, "Initial Title"), (2, "Initial Body"), (3, "Initial Tags"), (4, "Edit Title"), (5, "Edit Body"),
    (6, "Edit Tags"), (7, "Rollback Title"), (8, "Rollback Body"), (9, "Rollback Tags"), (10, "Post Closed"),
    (11, "Post Reopened"), (12, "Post Deleted"), (13, "Post Undeleted"), (14, "Post Locked"), (15, "Post Unlocked"),
    (16, "Community Owned"), (17, "Post Migrated"), (18, "Question Merged"), (19, "Question Protected"),
    (20, "Question Unprotected"), (21, "Post Disassociated"), (22, "Question Unmerged"),
    (24, "Suggested Edit Applied"), (25, "Post Tweeted"), (31, "Comment discussion moved to chat"),
    (33, "Post Notice Added"), (34, "Post Notice Removed"), (35, "Post Migrated Away"), (36, "Post Migrated Here"),
    (37, "Post Merge Source"), (38, "Post Merge Destination"), (50, "Bumped by Community User"),
    (52, "Question became hot network question"))

CLOSE_REASON_TYPES = (
    (1, "Exact Duplicate", "This question covers exactly the same content as earlier questions on this topic."),
    (2, "Off-topic", "Questions on this site are expected to relate to programming or software development."),
    (3, "Subjective and argumentative", "It's impossible to objectively answer this question."),
    (4, "Not a real question", "It's difficult to tell what is being asked here."),
    (7, "Too localized", "This question is unlikely to ever help any future visitors."),
    (10, "General reference", "This question can be answered by a single search in a standard reference."),
    (20, "Noise or pointless", "This question is off topic on meta: it is noise or pointless."),
    (101, "Duplicate", "This question has been asked before and already has an answer."),
    (102, "Off-topic", "This question does not appear to be about programming within the scope defined in the help center."),
    (103, "Needs details or clarity", "Add details and clarify the problem by editing this post."),
    (104, "Needs more focus", "This question currently includes multiple questions in one."),
    (105, "Opinion-based", "Update the question so it can be answered with facts and citations."))

FLAG_TYPES = (
    (1, "PostSpam", "Spam: the post promotes a product or service without disclosure"),
    (2, "PostOffensive", "Rude or abusive: a reasonable person would find this content inappropriate"),
    (4, "PostLowQuality", "Very low quality: the post has severe formatting or content problems"),
    (6, "PostNotAnAnswer", "Not an answer: the post does not attempt to answer the question"),
    (7, "PostOther", "In need of moderator intervention"),
    (13, "PostClose", "A vote or flag to close the question"),
    (14, "PostReopen", "A vote to reopen the question"))

REVIEW_TASK_TYPES = (
    (1, "Suggested Edit", "Approve, reject, or improve edits suggested by users."),
    (2, "Close Votes", "Review questions that have close votes."),
    (3, "Low Quality Posts", "Identify and improve or delete low quality posts."),
    (4, "First Post", "Review first posts from new users."),
    (5, "Late Answer", "Review late answers from new users."),
    (6, "Reopen Vote", "Review closed questions that have reopen votes."),
    (7, "Community Evaluation", "Evaluate posts in a community review."),
    (8, "Link Validation", "Check that links in posts still work."),
    (9, "Flagged Posts", "Review flagged posts."),
    (10, "Triage", "Identify the quality of questions so they can be routed."),
    (11, "Helper", "Edit questions so they can be reopened."),
    (12, "First Questions", "Review first questions from new users."),
    (13, "First Answers", "Review first answers from new users."))

REVIEW_TASK_STATES = ((1, "Active", "The review task is active."), (2, "Completed", "The review task is completed."),
                      (3, "Invalidated", "The review task was invalidated."))

REVIEW_TASK_RESULT_TYPES = (
    (1, "Skip", "The reviewer skipped the task."), (2, "Approve", "Approve the suggested edit."),
    (3, "Reject", "Reject the suggested edit."), (4, "Delete", "Recommend deletion of the post."),
    (5, "Edit", "Edit the post."), (6, "Close", "Close the question."), (7, "Looks OK", "The post looks OK."),
    (8, "Do Not Close", "Leave the question open."), (9, "Recommend Deletion", "Recommend deletion of the answer."),
    (10, "Recommend Close", "Recommend closing the question."), (11, "I'm Done", "Other action taken."),
    (12, "Reopen", "Reopen the question."), (13, "Leave Closed", "Leave the question closed."),
    (14, "Edit and Reopen", "Edit the question and reopen it."), (15, "Excellent", "An excellent post."),
    (16, "Satisfactory", "A satisfactory post."), (17, "Needs Improvement", "The post needs improvement."),
    (18, "No Action Needed", "No action is needed."))

REVIEW_REJECTION_REASONS = (
    (1, "spam or vandalism", "This edit defaces the post in order to promote a product or service.", None),
    (2, "no improvement whatsoever", "This edit does not make the post even a little bit easier to read.", None),
    (3, "irrelevant tags", "This edit introduces tags that do not help to define the topic of the question.", 1),
    (4, "clearly conflicts with author's intent", "This edit deviates from the original intent of the post.", None),
    (5, "attempt to reply", "This edit was intended to address the author of the post.", None),
    (101, "copied content", "This edit copies content from elsewhere without attribution.", None),
    (102, "too minor", "This edit is too minor; suggested edits should be substantive improvements.", None),
    (103, "invalid edit", "This edit makes the post worse.", None),
    (104, "radical change", "This edit changes too much in the original post.", None),
    (105, "causes harm", "This edit introduces harmful content.", None))

POST_NOTICE_TYPES = (  # (Id, ClassId, Name, Body, IsHidden, Predefined, PostNoticeDurationId)
    (1, 1, "Citation needed", "<p>This post needs citations to reliable sources.</p>", False, True, -1),
    (2, 1, "Current event", "<p>This post covers an event in progress.</p>", False, True, -1),
    (3, 1, "Insufficient explanation", "<p>This answer needs more explanation.</p>", False, True, -1),
    (10, 2, "Draw attention", "<p>This question has not received enough attention.</p>", False, True, 1),
    (11, 2, "Improve details", "<p>The current answers do not contain enough detail.</p>", False, True, 1),
    (12, 2, "Authoritative reference needed", "<p>Looking for an answer drawing from credible sources.</p>", False, True, 1),
    (13, 2, "Canonical answer required", "<p>The question is widely applicable.</p>", False, True, 1),
    (14, 2, "Current answers are outdated", "<p>The current answers are out of date.</p>", False, True, 1),
    (15, 2, "Reward existing answer", "<p>One or more of the answers is exemplary.</p>", False, True, 1),
    (20, 4, "Historical significance", "<p>This question exists because it has historical significance.</p>", False, True, -1),
    (21, 4, "Wiki answer", "<p>This post is a wiki answer.</p>", False, True, -1),
    (22, 4, "Obsolete", "<p>This answer is obsolete.</p>", True, False, -1))

BADGES = {  # name: class (1 gold, 2 silver, 3 bronze)
    "Student": 3, "Teacher": 3, "Editor": 3, "Supporter": 3, "Critic": 3, "Scholar": 3, "Autobiographer": 3,
    "Commentator": 3, "Nice Answer": 3, "Nice Question": 3, "Popular Question": 3, "Informed": 3,
    "Citizen Patrol": 3, "Organizer": 3, "Tumbleweed": 3, "Announcer": 3, "Caucus": 3, "Constituent": 3,
    "Custodian": 3, "Disciplined": 3, "Excavator": 3, "Peer Pressure": 3, "Revival": 3, "Self-Learner": 3,
    "Suffrage": 3, "Tag Editor": 3, "Vox Populi": 3, "Promoter": 3, "Quorum": 3, "Precognitive": 3,
    "Curious": 3, "Explainer": 3, "Proofreader": 3, "Talkative": 3, "Cleanup": 3, "Reviewer": 3,
    "Good Answer": 2, "Good Question": 2, "Notable Question": 2, "Necromancer": 2, "Enlightened": 2,
    "Civic Duty": 2, "Deputy": 2, "Strunk & White": 2, "Yearling": 2, "Enthusiast": 2, "Guru": 2, "Pundit": 2,
    "Favorite Question": 2, "Convention": 2, "Investor": 2, "Taxonomist": 2, "Sportsmanship": 2,
    "Archaeologist": 2, "Inquisitive": 2, "Generalist": 2, "Refiner": 2, "Booster": 2, "Outspoken": 2,
    "Great Answer": 1, "Great Question": 1, "Famous Question": 1, "Populist": 1, "Reversal": 1,
    "Stellar Question": 1, "Unsung Hero": 1, "Fanatic": 1, "Legendary": 1, "Electorate": 1, "Marshal": 1,
    "Copy Editor": 1, "Illuminator": 1, "Steward": 1, "Socratic": 1, "Publicist": 1, "Constable": 1,
    "Sheriff": 1, "Epic": 1, "Socialist": 1}

TAGS = (  # the site's most used tags, most used first
    "javascript", "python", "java", "c#", "php", "android", "html", "jquery", "c++", "css", "ios", "sql", "mysql",
    "r", "reactjs", "node.js", "arrays", "c", "asp.net", "json", "ruby-on-rails", ".net", "sql-server", "swift",
    "python-3.x", "django", "angular", "objective-c", "excel", "pandas", "angularjs", "regex", "typescript",
    "ruby", "linux", "ajax", "iphone", "vba", "xml", "laravel", "spring", "asp.net-mvc", "database", "wordpress",
    "string", "flutter", "postgresql", "mongodb", "wpf", "windows", "amazon-web-services", "xcode", "bash", "git",
    "oracle", "spring-boot", "dataframe", "azure", "firebase", "list", "multithreading", "docker", "vb.net",
    "react-native", "eclipse", "algorithm", "powershell", "macos", "visual-studio", "numpy", "image", "forms",
    "scala", "function", "vue.js", "performance", "twitter-bootstrap", "selenium", "winforms", "kotlin", "loops",
    "express", "hibernate", "sqlite", "matlab", "dart", "api", "shell", "rest", "apache", "entity-framework",
    "android-studio", "csv", "maven", "linq", "qt", "dictionary", "unit-testing", "facebook", "asp.net-core",
    "tensorflow", "apache-spark", "file", "swing", "class", "unity3d", "sorting", "date", "authentication",
    "go", "symfony", "t-sql", "opencv", "matplotlib", ".htaccess", "google-chrome", "for-loop", "datetime",
    "codeigniter", "perl", "http", "validation", "sockets", "google-maps", "object", "uitableview", "xaml",
    "oop", "visual-studio-code", "if-statement", "cordova", "ubuntu", "web-services", "email", "android-layout",
    "github", "spring-mvc", "elasticsearch", "kubernetes", "selenium-webdriver", "ms-access", "ggplot2",
    "user-interface", "parsing", "pointers", "google-sheets", "c++11", "machine-learning", "security",
    "jquery-ui", "flask", "ruby-on-rails-3", "nginx", "templates", "haskell", "variables", "delphi", "jsp",
    "debugging", "unix", "xpath", "hadoop", "mongoose", "session", "pdf", "svg", "cocoa", "bootstrap-4",
    "heroku", "mod-rewrite", "firebase-realtime-database", "ember.js", "backbone.js", "knockout.js",
    "homework", "mathematica", "tridion", "meteor", "arduino", "regex-lookarounds", "cassandra", "couchbase",
    "data.table", "webgl", "dojo", "extjs", "polymer", "kendo-ui", "playframework", "lift", "vaadin")

FIRST_NAMES = ("John", "Maria", "Ahmed", "Wei", "Olga", "Sven", "Ana", "Luis", "Priya", "Kenji", "Fatima", "Pierre",
               "Ingrid", "Tomás", "Zoë", "Jürgen", "Søren", "Nuñez", "Łukasz", "Ştefan", "Άννα", "Дмитрий", "Анна",
               "Сергей", "李", "王芳", "山田", "김민준", "Chloé", "Björn", "José", "François", "Mikaël", "Ole")
LAST_NAMES = ("Smith", "Müller", "García", "Nguyen", "Ivanov", "Kowalski", "Rossi", "Dubois", "Jensen", "Silva",
              "O'Brien", "D'Angelo", "Andersen", "Øvergaard", "Peña", "Håkansson", "Petrović", "Şahin", "Иванов",
              "Петрова", "伟", "田中", "Schröder", "Lefèvre", "Mc'Donald", "Kim", "Patel", "Okafor")
HANDLES = ("coder", "dev", "geek", "ninja", "hacker", "guru", "wizard", "newbie", "jedi", "fox", "owl", "bit",
           "byte", "stack", "loop", "lambda", "null", "pixel", "kernel", "query")

LOCATIONS = ("London, United Kingdom", "Berlin, Germany", "Amsterdam, Netherlands", "Bangalore, India",
             "Hyderabad, India", "Kolkata, West Bengal, India", "Kyiv, Ukraine", "Helsinki, Finland",
             "Algiers, Algeria", "Indianapolis, Indiana", "Kitchener-Waterloo, ON, Canada", "Brussels, Belgium",
             "Athens, Greece", "Thessaloniki, Greece", "Cairo, Egypt", "Sofia, Bulgaria", "Zagreb, Croatia",
             "Morgantown, WV", "Atlanta, GA", "Vienna, AT", "São Paulo, Brazil", "München, Deutschland",
             "Москва, Россия", "東京, 日本", "Seattle, WA", "New York, NY", "Paris, France", "Oslo, Norway",
             "Zürich, Switzerland", "Sydney, Australia", "Toronto, Canada", "Kraków, Poland", "UK", "NL",
             "Holland", "Bratislava, Slovakia", "Lagos, Nigeria")

WORDS = ("value", "table", "list", "string", "function", "query", "error", "loop", "file", "page", "button", "class",
         "object", "array", "request", "response", "server", "client", "database", "column", "row", "index", "date",
         "thread", "event", "module", "package", "test", "build", "image", "form", "view", "model", "key", "map",
         "type", "variable", "method", "callback", "promise", "stream", "socket", "cache", "session", "cookie")
VERBS = ("convert", "parse", "sort", "filter", "merge", "split", "read", "write", "update", "delete", "find",
         "replace", "count", "group", "join", "serialize", "validate", "compare", "debug", "install")

TITLE_FORMS = (
    "How do I {verb} a {word} in {tag}?", "How do you {verb} the {word} with {tag}?",
    "What is the best way to {verb} a {word}?", "What was the reason {tag} cannot {verb} my {word}?",
    "Which {word} should I use to {verb} in {tag}?", "Why does {tag} fail to {verb} the {word}?",
    "{tag}: {verb} {word} returns the wrong {word2}", "Error when I {verb} a {word} in {tag}",
    "When did the {tag} {word} change?", "Who was first to {verb} a {word} in {tag}?",
    "Is it possible to {verb} a {word} without a {word2}?", "Help: {verb} {word} is very slow, stuck",
    "Problem with {word} and {word2} in {tag}, please help", "Easy question about {tag} {word}",
    "The most difficult part of {verb} a {word}", "Where does {tag} keep the {word}?")

COMMENT_FORMS = (
    "Thanks, that worked for me.", "What have you tried so far?", "Can you show the {word} you get?",
    "+1 for the {word} explanation", "possible duplicate of [How do I {verb} a {word}?]"
    "(https://stackoverflow.com/questions/{post})", "Welcome to Stack Overflow! Please read How to Ask.",
    "Is this homework?", "Have you tried to {verb} the {word} first?", "This should be a comment, not an answer.",
    "While this link may answer the question, it is better to include the essential parts of the answer here "
    "and provide the link for reference.", "Your acceptance rate is low; consider accepting answers.",
    "Nice try, robot.", "I don't have enough rep to comment elsewhere, sorry.", "Works on {tag} 3 too.",
    "Merci beaucoup, ça marche très bien !", "Спасибо, помогло.", "谢谢，这个方法有效。", "Did you {verb} the {word}?")

LINKS = ("https://stackoverflow.com/questions/{post}", "http://www.youtube.com/watch?v=dQw4w9WgXcQ",
         "https://i.stack.imgur.com/{code}.png", "http://www.w3schools.com/sql/", "http://lmgtfy.com/?q={word}",
         "https://docs.python.org/3/library/{word}.html", "http://tr.im/{code}", "https://github.com/{word}/{word2}")

CONTENT_LICENSES = ((2011, 4, "CC BY-SA 2.5"), (2018, 5, "CC BY-SA 3.0"), (9999, 12, "CC BY-SA 4.0"))
"""(year, month, license): a post before that month of that year is under that license."""

SYNONYMS = (("js", "javascript"), ("py", "python"), ("c-sharp", "c#"), ("csharp", "c#"), ("jquery-core", "jquery"),
            ("sqlserver", "sql-server"), ("mssql", "sql-server"), ("tsql", "t-sql"), ("node", "node.js"),
            ("nodejs", "node.js"), ("cpp", "c++"), ("html5-only", "html"), ("css3-only", "css"),
            ("rails", "ruby-on-rails"), ("postgres", "postgresql"), ("iphone-sdk", "ios"), ("react", "reactjs"),
            ("angular2", "angular"), ("vuejs", "vue.js"), ("golang", "go"), ("dotnet", ".net"), ("ms-excel", "excel"),
            ("java-se", "java"), ("python3", "python-3.x"), ("mongo", "mongodb"), ("git-scm", "git"),
            ("sh", "bash"), ("ggplot", "ggplot2"), ("tf", "tensorflow"), ("mpl", "matplotlib"))

MIGRATED_FROM = ("superuser.com", "serverfault.com", "english.stackexchange.com", "dba.stackexchange.com",
                 "math.stackexchange.com", "meta.stackoverflow.com")
