report --weight=samples tests/data/gecko/devtools.json
