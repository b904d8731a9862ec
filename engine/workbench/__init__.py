"""The legal engineer's workbench: check a pack at file:line, its rule table, a scaffold, JSON Schemas, YAML rule tests."""
