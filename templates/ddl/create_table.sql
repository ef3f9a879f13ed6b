{#- CREATE TABLE with its primary key and TiDB options; secondary indexes come after the load. -#}
{% for note in t.notes %}
-- {{ note }}
{% endfor %}
CREATE TABLE {{ t.name }} (
{% for c in t.columns %}
  {{ c.name }} {{ c.type }}{% if c.collate %} COLLATE {{ c.collate }}{% endif %}{% if c.generated %} GENERATED ALWAYS AS {{ c.generated }}{% endif %}{{ " NOT NULL" if not c.nullable else (" NULL" if not c.generated else "") }}{% if c.auto %} {{ c.auto }}{% endif %}{% if c.default %} {{ c.default }}{% endif %}{% if c.comment %} COMMENT {{ c.comment }}{% endif %}{{ "," if not loop.last or t.keys or t.checks }}
{% endfor %}
{% for k in t.keys %}
  {{ k }}{{ "," if not loop.last or t.checks }}
{% endfor %}
{% for ck in t.checks %}
  {{ ck }}{{ "," if not loop.last }}
{% endfor %}
){% for opt in t.options %} {{ opt }}{% endfor %}{% if t.partition %}

{{ t.partition }}{% endif %};
