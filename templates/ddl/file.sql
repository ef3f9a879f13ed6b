{#- One numbered file of the migration plan. -#}
-- {{ f.title }}
{% for line in f.header %}
-- {{ line }}
{% endfor %}
{% for statement in f.statements %}

{{ statement }}
{% endfor %}
