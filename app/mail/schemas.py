"""Bodies and answers of the email operations (checked by the service, so a refusal names
the rule it breaks)."""

from __future__ import annotations

from pydantic import BaseModel, Field, StrictBool

from app.schemas import Strict


class EmailSet(Strict):
    email: str = Field(
        max_length=1000,
        description="one line of printable ASCII, name@example.com, at most 254 characters "
        "(422 naming the rule)",
    )


class DigestSet(Strict):
    digest: StrictBool


class EmailState(BaseModel):
    address: str
    #: The link sent to it was opened.
    verified: bool
    #: At most one email a day listing the correspondence games waiting for your move.
    digest: bool
