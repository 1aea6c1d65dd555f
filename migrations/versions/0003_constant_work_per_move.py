"""constant work per move: the notations on the match row, a repetition code per move

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 09:30:00

A move used to read every earlier move twice: for the answer's move list and to judge a
threefold repetition from every earlier position. ``matches.notations`` keeps the move
list on the row the move locks anyway, and ``moves.repetition`` (indexed with the match)
turns the repetition rule into a count. Both are filled in here for existing matches.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import games

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("notations", sa.Text(), server_default="", nullable=False))
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("repetition", sa.Text(), nullable=True))
        batch_op.create_index("ix_moves_match_id_repetition", ["match_id", "repetition"], unique=False)
    _fill_in()


def _fill_in() -> None:
    connection = op.get_bind()
    matches = sa.table("matches", sa.column("id"), sa.column("game"), sa.column("notations"))
    moves = sa.table(
        "moves",
        sa.column("id"),
        sa.column("match_id"),
        sa.column("ply"),
        sa.column("notation"),
        sa.column("position_after"),
        sa.column("repetition"),
    )
    for match_id, game_name in connection.execute(sa.select(matches.c.id, matches.c.game)).all():
        rows = connection.execute(
            sa.select(moves.c.id, moves.c.notation, moves.c.position_after)
            .where(moves.c.match_id == match_id)
            .order_by(moves.c.ply)
        ).all()
        if not rows:
            continue
        connection.execute(
            matches.update()
            .where(matches.c.id == match_id)
            .values(notations="\n".join(row.notation for row in rows))
        )
        game = games.get(game_name)
        if game.repetition_code(game.initial()) is None:
            continue
        for row in rows:
            code = game.repetition_code(game.parse_position(row.position_after))
            connection.execute(moves.update().where(moves.c.id == row.id).values(repetition=code))


def downgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_index("ix_moves_match_id_repetition")
        batch_op.drop_column("repetition")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("notations")
