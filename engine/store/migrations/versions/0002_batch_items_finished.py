"""An index on the batch items' finishing time, per batch.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-28

Why: a portfolio client on the Celery workers polls « the items of this batch finished since t »
(``BatchStore.finished_since``) every fraction of a second; without an index each poll reads the whole batch's
rows, which at 10^6 cases is the client's main cost (issue 33). With it, a poll reads what finished.
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

INDEX = "ix_batch_items_batch_finished"


def upgrade() -> None:
    op.create_index(INDEX, "batch_items", ["batch_id", "finished_at"], unique=False, if_not_exists=True)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="batch_items", if_exists=True)
