"""The migration report: one self-contained HTML page built from the files a run wrote into OUT.

`render.render_report` reads `assessment.json`, `replay.json`, `experiment.json` and `ddl/*.sql`,
builds a view-model (`viewmodel`, `build_*`), draws the charts (`charts`) and fills the Jinja2
templates of `templates/report/`. `anonymize` replaces object names and literals for a report that
leaves the company.
"""
