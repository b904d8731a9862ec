"""Portfolio work: batches and Celery tasks with leases."""
