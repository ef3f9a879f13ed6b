"""The rules engine: checks over the schema, the plan and the translated queries, one code each.

The catalogue of what each code means (severity, rationale, remediation, TiDB versions, effort,
links) lives in the top-level `rules/` folder as one YAML file per code and is read by
`catalogue.py`. The checks that raise the codes this engine owns are registered with `@rule(CODE)`
in `checks_*.py` (the modules `checks.py` lists); other codes are emitted directly by the stage
that finds the problem (readers, planner, query translator, replay). `engine.run_rules` runs the
registered checks.
"""
