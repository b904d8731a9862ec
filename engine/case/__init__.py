"""The case state machine: state, planner, evaluation protocol, dossier driver, submissions, ontology."""
