"""Alembic environment: migrations run on the connection sysdrill hands over.

Each migration runs in its own transaction together with the update of the
``alembic_version`` record, so a failed migration leaves the schema as it was.
"""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    transaction_per_migration=True,
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
