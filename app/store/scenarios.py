"""Saved scenarios in the database: insert within an owner's quota, list, fetch and delete,
each one transaction. An owner is an API key or a signed-in user (:class:`Owner`); a user's
list holds their own scenarios and their labs'. Evaluating a scenario is
:mod:`app.usecases.scenarios`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import ColumnElement, Engine, func, or_
from sqlmodel import Session, col, select

from app.db import write_session
from app.errors import NotFound, QuotaExceeded
from app.models import Scenario
from app.models.scenario import Owner, ScenarioKind, ScenarioPublic
from app.store import audit


def public(row: Scenario) -> ScenarioPublic:
    """The row as the API shows it (without its owner)."""
    return ScenarioPublic(
        id=row.id,
        name=row.name,
        kind=cast(ScenarioKind, row.kind),  # written only as one of the kinds
        request=row.request,
        created_at=row.created_at,
        lab=row.lab,
        saved_by=row.owner_user,
    )


def _actor(owner: Owner) -> audit.Actor:
    """The audit log's actor for ``owner``."""
    if owner.user is not None:
        return audit.user_actor(owner.user)
    if owner.browser is not None:
        return audit.Actor(f"browser:{owner.browser[:12]}")
    return audit.Actor(f"key:{owner.key_id}")


def _state(row: Scenario) -> dict[str, str | None]:
    """A scenario as the audit log keeps it (its request is in the row, not the log)."""
    return {"name": row.name, "kind": row.kind, "lab": row.lab}


def _owned_by(owner: Owner) -> ColumnElement[bool]:
    """Rows ``owner`` saved."""
    if owner.user is not None:
        return col(Scenario.owner_user) == owner.user
    if owner.browser is not None:
        return col(Scenario.owner_browser) == owner.browser
    return col(Scenario.owner_key_id) == owner.key_id


def is_owner(row: Scenario, owner: Owner) -> bool:
    """Whether ``owner`` saved ``row`` (and so may delete it)."""
    if owner.user is not None:
        return row.owner_user == owner.user
    if owner.browser is not None:
        return row.owner_browser == owner.browser
    return (
        owner.key_id is not None
        and row.owner_key_id == owner.key_id
        and row.owner_user is None
        and row.owner_browser is None
    )


def _visible_to(owner: Owner) -> ColumnElement[bool]:
    """Rows ``owner`` lists: their own, and for a signed-in user their labs'."""
    if owner.user is not None and owner.labs:
        return or_(_owned_by(owner), col(Scenario.lab).in_(owner.labs))
    return _owned_by(owner)


def insert(engine: Engine, row: Scenario, owner: Owner, quota: int) -> ScenarioPublic:
    """Store ``row`` unless ``owner`` already holds ``quota`` scenarios: the count and the
    insert are one writer transaction, so concurrent creates cannot pass the quota together.
    Raises :class:`QuotaExceeded` (429)."""
    with write_session(engine) as own:
        held = own.exec(select(func.count()).select_from(Scenario).where(_owned_by(owner))).one()
        if held >= quota:
            raise QuotaExceeded(
                f"{owner.describe()} holds {held} scenarios, its quota "
                f"({quota}): delete some before saving more",
                # The quota frees only when the owner deletes scenarios, not with time: an hour
                # tells a client not to retry in a loop (RFC 9110 leaves the value to us).
                retry_after_s=3600,
            )
        own.add(row)
        own.flush()
        audit.append(
            own.connection(),
            _actor(owner),
            "scenario.create",
            f"scenario/{row.id}",
            None,
            _state(row),
        )
        own.commit()
        own.refresh(row)
        return public(row)


def get(session: Session, scenario_id: str) -> Scenario:
    """The scenario ``scenario_id``; :class:`NotFound` (404) when there is none."""
    row = session.get(Scenario, scenario_id)
    if row is None:
        raise NotFound(f"no scenario with id '{scenario_id}'")
    return row


def list_page(
    session: Session, owner: Owner, limit: int, offset: int
) -> tuple[Sequence[Scenario], int]:
    """The scenarios ``owner`` may list (a key's own; a user's own and their labs'), newest
    first, and how many there are."""
    mine = _visible_to(owner)
    count = session.exec(select(func.count()).select_from(Scenario).where(mine)).one()
    stmt = select(Scenario).where(mine).order_by(col(Scenario.created_at).desc(), col(Scenario.id))
    return session.exec(stmt.limit(limit).offset(offset)).all(), count


def delete(engine: Engine, scenario_id: str, owner: Owner) -> None:
    """Delete the scenario if ``owner`` saved it; 404 otherwise (another owner's scenario is
    not revealed, a lab's shared one included: only who saved it may delete it)."""
    with write_session(engine) as own:
        row = own.get(Scenario, scenario_id)
        mine = row is not None and is_owner(row, owner)
        if row is None or not mine:
            raise NotFound(f"no scenario with id '{scenario_id}' saved by {owner.describe()}")
        before = _state(row)
        own.delete(row)
        own.flush()
        audit.append(
            own.connection(),
            _actor(owner),
            "scenario.delete",
            f"scenario/{scenario_id}",
            before,
            None,
        )
        own.commit()
