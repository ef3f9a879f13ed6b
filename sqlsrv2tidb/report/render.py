"""Writes OUT/report.html (and OUT/topology.yaml) from the files a run left in OUT.

`api.run_assess` calls this after every stage; `sqlsrv2tidb report OUT` calls it alone, so a
report can be re-rendered (or re-rendered anonymized, or with a user's templates) without
re-running anything. Anonymized, the page never sits beside files that still hold the original
names: `report OUT --anonymize` writes a complete pseudonymised copy of OUT into `OUT/anonymized/`
(the page, assessment.json, ddl/, replay.json, ...; OUT stays as it was), which is the folder to
share; `assess --anonymize` rewrites OUT itself. Templates come through `resources`, so `--templates DIR` overrides single
files of `templates/report/`. Autoescaping is on for every template whatever its name, undefined
names fail loudly, and a Content-Security-Policy lets only the report's own script run, so a query
text that slipped past escaping still could not execute.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime
from pathlib import Path

from ..errors import InputError
from ..outdir import prepare_output, write_text
from ..progress import NullProgress, Progress
from .build import build_report
from .inputs import load_inputs
from .rulesinfo import load_rule_info

MAIN_TEMPLATE = "report/report.html"
ANONYMIZED_DIR = "anonymized"
"""Where `report OUT --anonymize` writes its shareable copy of OUT."""
SCRIPT_TEMPLATE = "report/script.js"


def environment(templates: Path | None = None):
    """The Jinja2 environment of the report: user templates first, autoescaped, strict about names."""
    import jinja2

    from ..resources import search_path

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(p) for p in search_path("templates", templates)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_html(view, templates: Path | None = None) -> str:
    """Fill the templates with a view-model; template errors name the file and line."""
    import jinja2

    env = environment(templates)
    try:
        script = env.get_template(SCRIPT_TEMPLATE).render()
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
        return env.get_template(MAIN_TEMPLATE).render(r=view, script=script, script_hash=f"sha256-{digest}")
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(f"{exc.filename or exc.name}:{exc.lineno}: template error: {exc.message}") from None
    except jinja2.TemplateNotFound as exc:
        raise InputError(f"template {exc.name} not found in {templates or 'the built-in templates'}") from None
    except jinja2.UndefinedError as exc:
        raise InputError(f"a report template uses something the report does not have: {exc.message}") from None


def render_report(
    out: Path,
    *,
    anonymize: bool = False,
    into: Path | None = None,
    progress: Progress | None = None,
    templates: Path | None = None,
    rules: Path | None = None,
    now: datetime | None = None,
) -> Path:
    """(Re-)render OUT/report.html and return its path.

    With `anonymize`, every file of OUT is first copied, pseudonymised, into `into` (default
    `OUT/anonymized`; OUT itself for `assess --anonymize`) and the page is written there from those copies.
    """
    progress = progress or NullProgress()
    out = Path(out)
    dest = out
    with progress.task("Writing the report"):
        rule_info = load_rule_info(rules)
        if anonymize:
            from .anonymize import Anonymizer, write_anonymized

            load_inputs(out)  # a missing or broken OUT is named before a copy folder is made
            dest = Path(into) if into is not None else out / ANONYMIZED_DIR
            if dest.resolve() != out.resolve():
                prepare_output(dest)
            anonymizer = Anonymizer()
            inputs, _ = write_anonymized(out, dest, anonymizer)
            rule_info = anonymizer.rules(rule_info)  # the catalogue's prose may name a table like the user's
        else:
            inputs = load_inputs(out)
        generated = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
        anonymized = anonymize or inputs.assessment.get("anonymized") is True
        view = build_report(inputs, rule_info, anonymized=anonymized, generated=generated, out_dir=str(out),
                            report_dir=dest)
        html = render_html(view, templates)
        if view.deployment is not None and view.deployment.topology_yaml:
            write_text(dest / "topology.yaml", view.deployment.topology_yaml)
        return write_text(dest / "report.html", html)
