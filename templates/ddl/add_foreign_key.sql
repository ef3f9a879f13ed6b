{#- A foreign key, added after the data load and the indexes. -#}
{% for note in fk.notes %}
-- {{ note }}
{% endfor %}
ALTER TABLE {{ fk.table }} ADD CONSTRAINT {{ fk.name }} FOREIGN KEY ({{ fk.columns | join(", ") }}) REFERENCES {{ fk.ref_table }} ({{ fk.ref_columns | join(", ") }}){% if fk.on_delete %} ON DELETE {{ fk.on_delete }}{% endif %}{% if fk.on_update %} ON UPDATE {{ fk.on_update }}{% endif %};
